package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/threaddump"
)

func dumpCommand() *cli.Command { return newDumpCommand(viewDump, isTerminal) }

func newDumpCommand(view dumpViewer, terminal func(io.Writer) bool) *cli.Command {
	return &cli.Command{
		Name:  "dump",
		Usage: "ask a device VM for a thread dump (debuggerd -j, or kill -3) and analyse it",
		Description: "Gets the VM's Java stacks through adb — `debuggerd -j PID` (Android 8+; needs root or a\n" +
			"debuggable app via run-as), else SIGQUIT and the dump the VM writes to /data/anr/traces.txt\n" +
			"(before Android 8) — and opens it as `ddmtui anr` does (--json prints it). When no way\n" +
			"works, the error says what each answered.",
		Flags: append(vmPickFlags(),
			&cli.IntFlag{Name: "pid", Usage: "the VM to dump", Required: true},
			&cli.BoolFlag{Name: "json", Usage: "print the parsed dump and its analysis as JSON"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "also save the raw dump to `FILE`"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Second, Usage: "how long to look for the VM"},
			mappingFlag(),
		),
		Action: func(c *cli.Context) error {
			if out := c.String("output"); out != "" {
				if err := savefile.Check(out); err != nil {
					return err
				}
			}
			var raw []byte
			err := withVM(c, c.Int("pid"), c.Duration("wait"), func(ctx context.Context, s *monitor.Session, vm monitor.VM) error {
				dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				defer cancel()
				var err error
				raw, err = s.ThreadDump(dctx)
				return err
			})
			if err != nil {
				return err
			}
			if out := c.String("output"); out != "" {
				if _, err := savefile.SaveBytes(c.Context, out, raw, savefile.Options{}); err != nil {
					return err
				}
			}
			m, err := loadMapping(c, "dump")
			if err != nil {
				return err
			}
			r, stats := apply.Reader(m, bytes.NewReader(raw))
			d, err := threaddump.Parse(r)
			reportCoverage(c, "dump", m, stats().Classes)
			if err != nil {
				return fmt.Errorf("dump: the dump does not parse: %w", err)
			}
			d.KeepNewest(c.Int("pid"))
			return showDump(c, "dump", d, fmt.Sprintf("pid %d", c.Int("pid")), view, terminal)
		},
	}
}
