package cli

import (
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
		),
		Action: func(c *cli.Context) error {
			opts := sessionOptions(c)
			opts.Segments = c.Bool("segments")
			found, err := collect(c, opts)
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
			}
			return headless.WriteJSON(c.App.Writer, headless.SnapshotFound(found))
		},
	}
}
