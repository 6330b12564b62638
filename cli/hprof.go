package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
	"github.com/ddmtui/ddmtui/savefile"
)

func hprofCommand() *cli.Command {
	return &cli.Command{
		Name:  "hprof",
		Usage: "dump a VM's heap to an HPROF file (standard HPROF, ready for desktop tools); analyse dumps",
		Description: "Asks the VM for a heap dump — streamed (HPDS) when it can, otherwise written on the device\n" +
			"(HPDU) and read back through adb; a VM on Android 11 or later (known from the API level, at\n" +
			"once), or one that does not answer within 5s, is dumped with the device's `am dumpheap` into /data/local/tmp (with -b png from Android 15,\n" +
			"so bitmaps keep their pixels), pulled with adb sync and deleted — and converts Android's\n" +
			"HPROF variant to standard HPROF in-process, as hprof-conv does (--android keeps the\n" +
			"original). The dump streams into a temporary file beside FILE, and only a complete dump\n" +
			"that parses takes FILE's name. An app that is profileable but not debuggable (Android 11+; or\n" +
			"with --format heapgraph) is dumped as a Java heap graph instead: the device's perfetto with the\n" +
			"android.java_hprof data source writes a Perfetto trace under /data/misc/perfetto-traces, pulled\n" +
			"and deleted likewise. --analyze then analyses the dump as `ddmtui hprof analyze` does:\n" +
			"the dump as the VM sent it, for conversion loses Android's heaps and turns objects Android\n" +
			"marks unreachable into GC roots (false leaks, wrong retained sizes).",
		ArgsUsage:   " ",
		Subcommands: hprofSubcommands(),
		Flags: append(vmPickFlags(),
			// Required, but checked in Action: urfave/cli runs a command's
			// checks (and Before) before its subcommands.
			&cli.IntFlag{Name: "pid", Usage: "the VM (required)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the `FILE.hprof` to write (required)"},
			&cli.BoolFlag{Name: "analyze", Usage: "then analyse the written file (as `hprof analyze`)"},
			&cli.BoolFlag{Name: "json", Usage: "with --analyze: print the analysis as JSON"},
			topFlag, mappingFlag(),
			&cli.BoolFlag{Name: "android", Usage: "keep Android's HPROF variant (JAVA PROFILE 1.0.3) instead of converting"},
			heapFormatFlag,
			maxOutputRatioFlag,
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Second, Usage: "how long to look for the VM"},
			&cli.DurationFlag{Name: "timeout", Value: 5 * time.Minute, Usage: "how long the dump may take"},
		),
		Action: func(c *cli.Context) error {
			if err := requireFlags(c, "pid", "output"); err != nil {
				return err
			}
			format, err := heapFormat(c)
			if err != nil {
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
			analyzed, label := out, out
			if c.Bool("analyze") && !c.Bool("android") {
				// The analysis reads the dump as it came (spec/hprof-analysis.md
				// D5, D15), kept beside the output until it is done.
				orig, cleanup, err := originalBeside(out)
				if err != nil {
					return err
				}
				defer cleanup()
				opts.Original, analyzed, label = orig, orig, out+" (the dump as the VM sent it)"
			}
			progress, done := savefile.ProgressLine(c.App.ErrWriter, isTerminal(c.App.ErrWriter), fmt.Sprintf("heap dump of pid %d", pid))
			opts.Progress = progress
			var graph *heapgraph.Graph
			err = withVMOrProcess(c, pid, c.Duration("wait"), func(ctx context.Context, s *monitor.Session, vm monitor.VM) error {
				if format == formatHeapGraph || format == formatAuto && monitor.HeapGraphPreferred(vm) {
					graph, err = saveHeapGraph(ctx, s, vm, out, opts.Timeout, progress)
					return err
				}
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
			if graph != nil {
				return reportHeapGraph(c, out, graph)
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
				return analyzeHeap(c, analyzed, label, c.Bool("json"), c.Int("top"), openHeapViewer, isTerminal)
			}
			return nil
		},
	}
}

// maxOutputRatioFlag bounds a conversion (`hprof`, `hprof convert`).
var maxOutputRatioFlag = &cli.Float64Flag{Name: "max-output-ratio", Value: savefile.DefaultHPROFRatio,
	Usage: "refuse a conversion whose output would pass this many times the dump's size (at least 16 MiB; 0: no bound)"}

// originalBeside names where the unconverted dump waits for the analysis:
// a private directory beside out (the rename from savefile's temporary
// file stays on one file system), under out's own name, so the viewer's
// title is the user's. cleanup removes it.
func originalBeside(out string) (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp(filepath.Dir(out), ".ddmtui-*.orig")
	if err != nil {
		return "", nil, fmt.Errorf("cannot write beside %s: %w", out, err)
	}
	return filepath.Join(dir, filepath.Base(out)), func() { os.RemoveAll(dir) }, nil
}

// hprofConvertCommand converts a saved Android dump (the dashboard's `H`,
// `hprof --android`) to standard HPROF for desktop tools, as hprof-conv
// does, through the same bounded save path as `hprof`.
func hprofConvertCommand() *cli.Command {
	return &cli.Command{
		Name:      "convert",
		Usage:     "convert an Android HPROF file to standard HPROF (for MAT, VisualVM), as hprof-conv does",
		ArgsUsage: "IN OUT",
		Description: "Writes OUT from IN, an Android heap dump (JAVA PROFILE 1.0.3), as `hprof-conv IN OUT` does,\n" +
			"through a temporary file beside OUT, renamed once complete and valid. Analyse IN rather\n" +
			"than OUT: conversion loses Android's heaps and turns ROOT UNREACHABLE into a root.",
		Flags: []cli.Flag{maxOutputRatioFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return badValue(c, fmt.Errorf("hprof convert takes IN and OUT"))
			}
			in, out := c.Args().Get(0), c.Args().Get(1)
			f, err := os.Open(in)
			if err != nil {
				return fmt.Errorf("%s: %w", safetext.Terminal(in), errors.Unwrap(err))
			}
			defer f.Close()
			var sum *hprof.Summary
			res, err := savefile.Save(c.Context, out, savefile.HPROF(false, c.Float64("max-output-ratio"), &sum), func(_ context.Context, w *savefile.Writer) error {
				_, err := io.Copy(w, f)
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s: %s, %s\n", safetext.Terminal(out), humanSize(uint64(res.Size)), sum.Header.Version)
			return nil
		},
	}
}

// humanSize formats a byte count for progress lines.
func humanSize(n uint64) string { return savefile.Size(n) }
