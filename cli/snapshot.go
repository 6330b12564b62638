package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/urfave/cli/v2"
)

func snapshotCommand() *cli.Command {
	return &cli.Command{
		Name:  "snapshot",
		Usage: "print every VM with its threads and heaps",
		Flags: append(discoveryFlags(),
			&cli.BoolFlag{Name: "json", Usage: "print JSON (the only format)", Value: true},
			&cli.DurationFlag{Name: "wait", Value: 2 * time.Second, Usage: "how long to look before printing"},
			&cli.IntFlag{Name: "pid", Usage: "only the VM with this pid"},
			&cli.BoolFlag{Name: "segments", Usage: "ask for heap segments (summary by kind and solidity arrives at the next GC)"},
			&cli.BoolFlag{Name: "views", Usage: "add each app's windows and view trees (VULW, VURT: costs the apps' UI threads a dump)"},
		),
		Action: func(c *cli.Context) error {
			opts := sessionOptions(c)
			opts.Segments = c.Bool("segments")
			var views map[string]*headless.Views
			var then func(context.Context, *monitor.Engine, []monitor.Found)
			if c.Bool("views") {
				then = func(ctx context.Context, e *monitor.Engine, found []monitor.Found) {
					views = dumpFoundViews(ctx, e, found, c.Int("pid"))
				}
			}
			found, err := collectThen(c, opts, then)
			if err != nil {
				return err
			}
			if pid := c.Int("pid"); pid != 0 {
				var keep []monitor.Found
				for _, f := range found {
					if f.VM.PID == pid {
						keep = append(keep, f)
					}
				}
				found = keep
				if len(found) == 0 {
					return fmt.Errorf("snapshot: no VM with pid %d found within --wait %s", pid, c.Duration("wait"))
				}
			}
			entries := headless.SnapshotFound(found)
			for i := range entries {
				entries[i].Views = views[found[i].VM.Key]
			}
			return headless.WriteJSON(c.App.Writer, entries)
		},
	}
}
