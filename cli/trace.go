package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/profileview"
)

func traceCommand() *cli.Command {
	return &cli.Command{
		Name:      "trace",
		Usage:     "profile a method trace (.trace from DDMS, Debug.startMethodTracing or DDM MPSE)",
		ArgsUsage: "FILE",
		Description: "Reads a dmtrace file (versions 1-3, single or dual clock, or ART's streaming format) and\n" +
			"opens its profile in the terminal, or exports it. Numbers on the first clock (thread CPU\n" +
			"for dual-clock traces) equal AOSP dmtracedump's.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the profile as JSON (with --tree: the call trees)"},
			&cli.BoolFlag{Name: "tree", Usage: "with --json: print the top-down call trees, per thread and merged"},
			&cli.BoolFlag{Name: "bottom-up", Usage: "with --tree: print the bottom-up trees instead"},
			&cli.IntFlag{Name: "tree-depth", Value: trace.DefaultTreeJSONDepth, Usage: "with --tree: cut the trees below `N` levels (-1: none; most JSON readers stop near 1,000-10,000)"},
			&cli.StringFlag{Name: "folded", Usage: "write folded stacks for flame-graph tools to `OUT` (- for standard output)"},
			&cli.StringFlag{Name: "chrome", Usage: "write Chrome trace-event JSON (Perfetto, chrome://tracing) to `OUT.json`"},
			&cli.StringFlag{Name: "dot", Usage: "write a Graphviz call graph like dmtracedump -g to `OUT.dot`"},
			&cli.StringFlag{Name: "data", Usage: "the data part when key and data are separate files (FILE is then the key)", TakesFile: true},
			&cli.StringFlag{Name: "clock", Usage: "clock for --tree, --folded and --dot, and the viewer's first: thread-cpu or wall (default: the trace's first)"},
			&cli.Float64Flag{Name: "dot-threshold", Value: 20, Usage: "leave methods under this percentage of the total out of --dot (-1: none)"},
		},
		Action: traceAction,
	}
}

func traceAction(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) != 1 {
		return badValue(c, fmt.Errorf("trace: want one FILE, got %d arguments", len(args)))
	}
	path := args[0]
	// A profile's tables are most of the heap and stay live to the end:
	// collect at half the default growth, so that the peak stays near the
	// live size (a tenth more CPU for a third less memory on large traces).
	debug.SetGCPercent(50)
	exporting := c.Bool("json") || c.String("folded") != "" || c.String("chrome") != "" || c.String("dot") != ""

	rd, closeFiles, err := openTrace(path, c.String("data"))
	if err != nil {
		return err
	}
	defer closeFiles()
	tree := c.Bool("tree") || c.Bool("bottom-up")
	if tree && !c.Bool("json") {
		return fmt.Errorf("trace: --tree and --bottom-up go with --json")
	}
	// The viewer shows call trees and a call chart; the exports build only
	// what they write.
	opt := trace.BuildOptions{CallTree: c.String("folded") != "" || tree || !exporting, CallIndex: !exporting}
	var chrome *trace.ChromeWriter
	if c.String("chrome") != "" {
		chrome = trace.NewChromeWriter(rd.Header())
		opt.OnCall = chrome.Collect
	}
	p, err := trace.Build(rd, opt)
	if err != nil {
		return wrapFor("trace", safetext.Terminal(path), err)
	}
	clock := p.Clocks.First()
	if name := c.String("clock"); name != "" {
		switch name {
		case "thread-cpu", "cpu":
			clock = trace.ClockCPU
		case "wall":
			clock = trace.ClockWall
		default:
			return fmt.Errorf("trace: --clock %q: want thread-cpu or wall", name)
		}
		if !p.Clocks.Has(clock) {
			return fmt.Errorf("trace: the trace has no %s clock (it has %s)", clock, p.Clocks)
		}
	}
	if !exporting {
		if err := profileview.Run(p, profileview.RunOptions{Title: filepath.Base(path)}); err != nil {
			return fmt.Errorf("trace: the viewer needs a terminal (or use --json, --folded, --chrome, --dot): %w", err)
		}
		reportWarnings(c.App.ErrWriter, p, false)
		return nil
	}
	if tree {
		topt := trace.TreeJSONOptions{Clock: clock, BottomUp: c.Bool("bottom-up"), MaxDepth: c.Int("tree-depth")}
		if err := trace.WriteTreeJSON(c.App.Writer, p, topt); err != nil {
			return fmt.Errorf("trace: --tree: %w", err)
		}
	} else if c.Bool("json") {
		if err := trace.WriteJSON(c.App.Writer, p); err != nil {
			return fmt.Errorf("trace: --json: %w", err)
		}
	}
	if out := c.String("folded"); out != "" {
		if err := writeOutput(c.App.Writer, out, func(w io.Writer) error { return trace.WriteFolded(w, p, clock) }); err != nil {
			return fmt.Errorf("trace: --folded: %w", err)
		}
	}
	if out := c.String("chrome"); out != "" {
		if err := writeOutput(c.App.Writer, out, func(w io.Writer) error { _, err := chrome.WriteTo(w, p); return err }); err != nil {
			return fmt.Errorf("trace: --chrome: %w", err)
		}
	}
	if out := c.String("dot"); out != "" {
		dopt := trace.DOTOptions{Clock: clock, ThresholdPercent: c.Float64("dot-threshold")}
		if err := writeOutput(c.App.Writer, out, func(w io.Writer) error { return trace.WriteDOT(w, p, dopt) }); err != nil {
			return fmt.Errorf("trace: --dot: %w", err)
		}
	}
	reportWarnings(c.App.ErrWriter, p, true)
	return nil
}

// openTrace opens a single-file trace, or a key and a data file.
func openTrace(path, dataPath string) (*trace.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, func() {}, fmt.Errorf("trace: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
		f.Close()
		return nil, func() {}, fmt.Errorf("trace: %s: empty file (no trace was written)", safetext.Terminal(path))
	}
	if dataPath == "" {
		rd, err := trace.NewReader(f, trace.Limits{})
		if err != nil {
			f.Close()
			return nil, func() {}, wrapFor("trace", safetext.Terminal(path), err)
		}
		return rd, func() { f.Close() }, nil
	}
	d, err := os.Open(dataPath)
	if err != nil {
		f.Close()
		return nil, func() {}, fmt.Errorf("trace: --data: %w", err)
	}
	closeBoth := func() { f.Close(); d.Close() }
	rd, err := trace.NewSplitReader(f, d, trace.Limits{})
	if err != nil {
		closeBoth()
		return nil, func() {}, wrapFor("trace", safetext.Terminal(path)+" + "+safetext.Terminal(dataPath), err)
	}
	return rd, closeBoth, nil
}

// reportWarnings prints a summary of the trace's warnings to stderr: counts
// by kind and, when detailed, the first few (method names in them come from
// the file and are escaped).
func reportWarnings(w io.Writer, p *trace.Profile, detailed bool) {
	total := p.Warnings.Total()
	if total == 0 {
		return
	}
	var kinds []string
	for k, n := range p.Warnings.Counts {
		if n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", trace.WarningKind(k), n))
		}
	}
	fmt.Fprintf(w, "ddmtui: trace: %d warnings (%s)\n", total, strings.Join(kinds, ", "))
	if !detailed {
		return
	}
	const shown = 5
	for i, warn := range p.Warnings.List {
		if i == shown {
			fmt.Fprintf(w, "  ... (--json lists the first %d of each kind)\n", trace.PerKindLimit)
			break
		}
		fmt.Fprintf(w, "  %s\n", safetext.Terminal(warn.String()))
	}
}
