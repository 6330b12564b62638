package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
)

// writeHPROF converts Android's HPROF to standard HPROF (as hprof-conv
// does) unless raw is set, and writes it to path. It returns the summary of
// what was written.
func writeHPROF(path string, data []byte, raw bool) (*hprof.Summary, error) {
	out := data
	if !raw {
		var err error
		if out, err = hprof.ToStandard(data); err != nil {
			return nil, fmt.Errorf("converting the dump to standard HPROF: %w", err)
		}
	}
	sum, err := hprof.Summarize(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("the heap dump does not parse: %w", err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return nil, err
	}
	return sum, nil
}

func hprofCommand() *cli.Command {
	return &cli.Command{
		Name:  "hprof",
		Usage: "dump a VM's heap to an HPROF file (standard HPROF, ready for desktop tools)",
		Description: "Asks the VM for a heap dump — streamed (HPDS) when it can, otherwise written on the device\n" +
			"(HPDU) and read back through adb; a VM that does not answer within 5s (recent Android)\n" +
			"is dumped with the device's `am dumpheap` into /data/local/tmp, pulled with adb sync and\n" +
			"deleted — and converts Android's HPROF variant to standard HPROF in-process, as\n" +
			"hprof-conv does (--android keeps the original).",
		Flags: append(vmPickFlags(),
			&cli.IntFlag{Name: "pid", Usage: "the VM", Required: true},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the `FILE.hprof` to write", Required: true},
			&cli.BoolFlag{Name: "android", Usage: "keep Android's HPROF variant (JAVA PROFILE 1.0.3) instead of converting"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Second, Usage: "how long to look for the VM"},
			&cli.DurationFlag{Name: "timeout", Value: 5 * time.Minute, Usage: "how long the dump may take"},
		),
		Action: func(c *cli.Context) error {
			var data []byte
			err := withVM(c, c.Int("pid"), c.Duration("wait"), func(ctx context.Context, s *monitor.Session, vm monitor.VM) error {
				dctx, cancel := context.WithTimeout(ctx, c.Duration("timeout"))
				defer cancel()
				last := time.Now()
				progress := func(n uint64) {
					if time.Since(last) >= 500*time.Millisecond {
						fmt.Fprintf(c.App.ErrWriter, "\r%s received…", humanSize(n))
						last = time.Now()
					}
				}
				var err error
				data, err = s.HeapDump(dctx, progress)
				if err != nil {
					return fmt.Errorf("heap dump of pid %d: %w", vm.PID, err)
				}
				return nil
			})
			if err != nil {
				return err
			}
			sum, err := writeHPROF(c.String("output"), data, c.Bool("android"))
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s: %s, %s\n", c.String("output"), humanSize(uint64(sum.Size)), sum.Header.Version)
			for _, h := range sum.Heaps {
				fmt.Fprintf(c.App.Writer, "  heap %-8s %8d instances %8d arrays %10s\n", h.Name, h.Instances, h.Arrays, humanSize(uint64(h.Bytes)))
			}
			for _, cl := range sum.TopByCount(5) {
				fmt.Fprintf(c.App.Writer, "  %8d × %s\n", cl.Instances, safetext.Terminal(cl.Name))
			}
			return nil
		},
	}
}

// humanSize formats a byte count for progress lines.
func humanSize(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
