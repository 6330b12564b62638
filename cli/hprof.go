package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
)

func hprofCommand() *cli.Command {
	return &cli.Command{
		Name:  "hprof",
		Usage: "dump a VM's heap to an HPROF file (standard HPROF, ready for desktop tools); analyse dumps",
		Description: "Asks the VM for a heap dump — streamed (HPDS) when it can, otherwise written on the device\n" +
			"(HPDU) and read back through adb; a VM that does not answer within 5s (recent Android)\n" +
			"is dumped with the device's `am dumpheap` into /data/local/tmp (with -b png from Android 15,\n" +
			"so bitmaps keep their pixels), pulled with adb sync and deleted — and converts Android's\n" +
			"HPROF variant to standard HPROF in-process, as hprof-conv does (--android keeps the\n" +
			"original). The dump streams into a temporary file beside FILE, and only a complete dump\n" +
			"that parses takes FILE's name. --analyze then analyses the file as `ddmtui hprof analyze` does.",
		ArgsUsage:   " ",
		Subcommands: hprofSubcommands(),
		Flags: append(vmPickFlags(),
			// Required, but checked in Action: urfave/cli runs a command's
			// checks (and Before) before its subcommands.
			&cli.IntFlag{Name: "pid", Usage: "the VM (required)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the `FILE.hprof` to write (required)"},
			&cli.BoolFlag{Name: "analyze", Usage: "then analyse the written file (as `hprof analyze`)"},
			&cli.BoolFlag{Name: "json", Usage: "with --analyze: print the analysis as JSON"},
			topFlag,
			&cli.BoolFlag{Name: "android", Usage: "keep Android's HPROF variant (JAVA PROFILE 1.0.3) instead of converting"},
			&cli.Float64Flag{Name: "max-output-ratio", Value: 16, Usage: "refuse a conversion whose output would pass this many times the dump's size (at least 16 MiB; 0: no bound)"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Second, Usage: "how long to look for the VM"},
			&cli.DurationFlag{Name: "timeout", Value: 5 * time.Minute, Usage: "how long the dump may take"},
		),
		Action: func(c *cli.Context) error {
			if err := requireFlags(c, "pid", "output"); err != nil {
				return err
			}
			// Through the one save path (savefile): the output's directory
			// is checked before the VM is even looked for; the dump goes to
			// a temporary file beside the output as it arrives (an HPDS
			// stream is never held in memory), is converted and validated,
			// and only then renamed into place.
			out, pid := c.String("output"), c.Int("pid")
			if err := savefile.Check(out); err != nil {
				return err
			}
			var sum *hprof.Summary
			opts := savefile.HPROF(c.Bool("android"), c.Float64("max-output-ratio"), &sum)
			opts.Timeout = c.Duration("timeout")
			progress, done := savefile.ProgressLine(c.App.ErrWriter, isTerminal(c.App.ErrWriter), fmt.Sprintf("heap dump of pid %d", pid))
			opts.Progress = progress
			err := withVM(c, pid, c.Duration("wait"), func(ctx context.Context, s *monitor.Session, vm monitor.VM) error {
				_, err := savefile.Save(ctx, out, opts, func(ctx context.Context, w *savefile.Writer) error {
					if _, err := s.HeapDumpTo(ctx, w, w.Progress); err != nil {
						return fmt.Errorf("heap dump of pid %d: %w", vm.PID, err)
					}
					return nil
				})
				return err
			})
			done()
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s: %s, %s\n", out, humanSize(uint64(sum.Size)), sum.Header.Version)
			for _, h := range sum.Heaps {
				fmt.Fprintf(c.App.Writer, "  heap %-8s %8d instances %8d arrays %10s\n", h.Name, h.Instances, h.Arrays, humanSize(uint64(h.Bytes)))
			}
			for _, cl := range sum.TopByCount(5) {
				fmt.Fprintf(c.App.Writer, "  %8d × %s\n", cl.Instances, safetext.Terminal(cl.Name))
			}
			if c.Bool("analyze") {
				fmt.Fprintln(c.App.Writer)
				return analyzeHeap(c, out, c.Bool("json"), c.Int("top"), openHeapViewer, isTerminal)
			}
			return nil
		},
	}
}

// requireFlags fails, as a command line error, when flags are not set.
func requireFlags(c *cli.Context, names ...string) error {
	var missing []string
	for _, n := range names {
		if !c.IsSet(n) {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return onUsageError(c, fmt.Errorf("missing %s", strings.Join(missing, ", ")), true)
}

// humanSize formats a byte count for progress lines.
func humanSize(n uint64) string { return savefile.Size(n) }
