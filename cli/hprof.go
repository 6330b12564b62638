package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
)

// writeHPROF converts Android's HPROF to standard HPROF (as hprof-conv
// does) unless raw is set, streaming it into path (through a temporary file
// beside it, renamed when complete), with the output bounded by maxOut bytes
// (0: hprof.DefaultMaxOutput of the input; negative: no bound). It returns
// the summary of what was written; on error nothing is left at path.
func writeHPROF(path string, data []byte, raw bool, maxOut int64) (*hprof.Summary, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".ddmtui-*.android.part")
	if err != nil {
		return nil, err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name()) // gone already when renamed into place
	}()
	if _, err := f.Write(data); err != nil {
		return nil, err
	}
	return finishHPROF(path, f, int64(len(data)), raw, maxOut)
}

// finishHPROF puts the Android HPROF dump of size bytes held in dump (a
// temporary file in path's directory) at path: converted to standard HPROF
// through another temporary file beside it, or, raw, dump itself renamed.
// It returns the summary of what was written; on error nothing is left at
// path. The caller closes and removes dump (a no-op once renamed).
func finishHPROF(path string, dump *os.File, size int64, raw bool, maxOut int64) (sum *hprof.Summary, err error) {
	if maxOut == 0 {
		maxOut = hprof.DefaultMaxOutput(size)
	}
	f := dump
	if !raw {
		if f, err = os.CreateTemp(filepath.Dir(path), ".ddmtui-*.hprof.part"); err != nil {
			return nil, err
		}
		defer func() {
			if f != nil {
				f.Close()
				os.Remove(f.Name())
			}
		}()
		if _, err := dump.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		src := bufio.NewReaderSize(io.LimitReader(dump, size), 1<<20)
		if err := hprof.Convert(f, src, hprof.ConvertOptions{MaxOutput: max(maxOut, 0)}); err != nil {
			return nil, fmt.Errorf("converting the dump to standard HPROF: %w", err)
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if sum, err = hprof.Summarize(bufio.NewReaderSize(f, 1<<20)); err != nil {
		return nil, fmt.Errorf("the heap dump does not parse: %w", err)
	}
	if err := f.Chmod(0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return nil, err
	}
	if f != dump {
		f.Close()
		f = nil
	}
	return sum, nil
}

func hprofCommand() *cli.Command {
	return &cli.Command{
		Name:  "hprof",
		Usage: "dump a VM's heap to an HPROF file (standard HPROF, ready for desktop tools); analyse dumps",
		Description: "Asks the VM for a heap dump — streamed (HPDS) when it can, otherwise written on the device\n" +
			"(HPDU) and read back through adb; a VM that does not answer within 5s (recent Android)\n" +
			"is dumped with the device's `am dumpheap` into /data/local/tmp, pulled with adb sync and\n" +
			"deleted — and converts Android's HPROF variant to standard HPROF in-process, as\n" +
			"hprof-conv does (--android keeps the original). --analyze then analyses the file as\n" +
			"`ddmtui hprof analyze` does.",
		ArgsUsage:   " ",
		Subcommands: hprofSubcommands(),
		Flags: append(vmPickFlags(),
			// Required, but checked in Action: urfave/cli checks a
			// command's required flags before its subcommands run.
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
			// The dump goes to a temporary file beside the output as it
			// arrives (an HPDS stream is never held in memory), removed
			// unless it is complete.
			out := c.String("output")
			dump, err := os.CreateTemp(filepath.Dir(out), ".ddmtui-*.android.part")
			if err != nil {
				return err
			}
			defer func() {
				dump.Close()
				os.Remove(dump.Name()) // gone already when renamed into place (--android)
			}()
			var size int64
			err = withVM(c, c.Int("pid"), c.Duration("wait"), func(ctx context.Context, s *monitor.Session, vm monitor.VM) error {
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
				size, err = s.HeapDumpTo(dctx, dump, progress)
				if err != nil {
					return fmt.Errorf("heap dump of pid %d: %w", vm.PID, err)
				}
				return nil
			})
			if err != nil {
				return err
			}
			maxOut := int64(-1)
			if r := c.Float64("max-output-ratio"); r > 0 {
				maxOut = max(int64(r*float64(size)), 16<<20)
			}
			sum, err := finishHPROF(out, dump, size, c.Bool("android"), maxOut)
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
			if c.Bool("analyze") {
				fmt.Fprintln(c.App.Writer)
				return analyzeHeap(c, out, c.Bool("json"), c.Int("top"), openHeapViewer, isTerminal)
			}
			return nil
		},
	}
}

// requireFlags fails as urfave/cli does for required flags not set.
func requireFlags(c *cli.Context, names ...string) error {
	var missing []string
	for _, n := range names {
		if !c.IsSet(n) {
			missing = append(missing, n)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		//lint:ignore ST1005 urfave/cli's own wording, as before the subcommands
		return fmt.Errorf("Required flag %q not set", missing[0])
	}
	//lint:ignore ST1005 urfave/cli's own wording, as before the subcommands
	return fmt.Errorf("Required flags %q not set", strings.Join(missing, ", "))
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
