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
			"for dual-clock traces) equal AOSP dmtracedump's. A sampled profile (simpleperf report-sample\n" +
			"--protobuf, as `profile --sampler simpleperf` saves it; recognised by its content) opens the\n" +
			"same way: its clocks are samples and time (the event counts), --json prints its call trees.\n" +
			"When the output is not a terminal (trace FILE | less) the flat profile is printed as text.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the profile as JSON (with --tree: the call trees)"},
			&cli.BoolFlag{Name: "tree", Usage: "with --json: print the top-down call trees, per thread and merged"},
			&cli.BoolFlag{Name: "bottom-up", Usage: "with --tree: print the bottom-up trees instead"},
			&cli.IntFlag{Name: "tree-depth", Value: trace.DefaultTreeJSONDepth, Usage: "with --tree and --folded: cut the trees and paths below `N` levels (-1: none; most JSON readers stop near 1,000-10,000, and folded stacks grow with the square of the depth)"},
			&cli.Float64Flag{Name: "tree-min-share", Value: trace.DefaultTreeMinShare, Usage: "with --tree: keep the nodes with at least this share of their thread's time, fold the rest of each node's children into one \"(other)\" child (0: every node)"},
			&cli.StringFlag{Name: "folded", Usage: "write folded stacks for flame-graph tools to `OUT` (- for standard output)"},
			&cli.StringFlag{Name: "chrome", Usage: "write Chrome trace-event JSON (Perfetto, chrome://tracing) to `OUT.json`"},
			&cli.StringFlag{Name: "dot", Usage: "write a Graphviz call graph like dmtracedump -g to `OUT.dot`"},
			&cli.StringFlag{Name: "data", Usage: "the data part when key and data are separate files (FILE is then the key)", TakesFile: true},
			&cli.StringFlag{Name: "clock", Usage: "clock for --tree, --folded and --dot, and the viewer's first: thread-cpu or wall (default: the trace's first)"},
			&cli.StringFlag{Name: "pprof", Usage: "a sampled profile: write it as a gzipped pprof profile to `OUT.pb.gz`"},
			&cli.BoolFlag{Name: "java-only", Usage: "a sampled profile: keep only Java frames (native ones count to their Java caller)"},
			&cli.Float64Flag{Name: "dot-threshold", Value: 20, Usage: "leave methods under this percentage of the total out of --dot (-1: none)"},
			mappingFlag(),
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
	if isSampledFile(path) {
		return sampledTraceAction(c, path)
	}
	if c.String("pprof") != "" || c.Bool("java-only") {
		return fmt.Errorf("trace: --pprof and --java-only are for sampled profiles (simpleperf report-sample --protobuf)")
	}
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
	viewer := !exporting && isTerminal(c.App.Writer)
	opt := trace.BuildOptions{CallTree: c.String("folded") != "" || tree || viewer, CallIndex: viewer}
	var chrome *trace.ChromeWriter
	if c.String("chrome") != "" {
		chrome = trace.NewChromeWriter(rd.Header())
		opt.OnCall = chrome.Collect
	}
	p, err := trace.Build(rd, opt)
	if err != nil {
		return wrapFor("trace", safetext.Terminal(path), err)
	}
	if err := deobfuscateProfile(c, "trace", p); err != nil {
		return err
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
	if !exporting && !isTerminal(c.App.Writer) {
		// Piped or redirected (trace FILE | less): the flat profile as
		// text, as hprof analyze and anr do.
		if err := trace.WriteText(c.App.Writer, p, clock); err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		reportWarnings(c.App.ErrWriter, p, false)
		return nil
	}
	if !exporting {
		title := filepath.Base(path)
		if c.String("mapping") != "" {
			title += mappingNote
		}
		if err := profileview.Run(p, profileview.RunOptions{Title: title}); err != nil {
			return fmt.Errorf("trace: the viewer needs a terminal (or use --json, --folded, --chrome, --dot): %w", err)
		}
		reportWarnings(c.App.ErrWriter, p, false)
		return nil
	}
	if tree {
		if err := writeTreeJSON(c, p, clock, "--tree"); err != nil {
			return err
		}
	} else if c.Bool("json") {
		if err := trace.WriteJSON(safetext.JSON(c.App.Writer), p); err != nil {
			return fmt.Errorf("trace: --json: %w", err)
		}
	}
	if out := c.String("folded"); out != "" {
		var cut trace.TreeCut
		fopt := trace.FoldedOptions{Clock: clock, MaxDepth: c.Int("tree-depth"), Cut: &cut}
		if err := writeOutput(c.App.Writer, out, func(w io.Writer) error { return trace.WriteFoldedOptions(w, p, fopt) }); err != nil {
			return fmt.Errorf("trace: --folded: %w", err)
		}
		if cut.Truncated > 0 {
			fmt.Fprintf(c.App.ErrWriter, "ddmtui: trace: --folded: %d paths cut at %d frames (the time below each is on a %q frame; --tree-depth -1 prints every level)\n", cut.Truncated, c.Int("tree-depth"), trace.TruncatedFrame)
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

// writeTreeJSON prints p's call trees (`--tree --json`, and a sampled
// profile's `--json`) with --tree-min-share and --tree-depth, and says on
// stderr what they left out.
func writeTreeJSON(c *cli.Context, p *trace.Profile, clock trace.Clock, flag string) error {
	share := c.Float64("tree-min-share")
	if share < 0 || share >= 1 || share != share {
		return fmt.Errorf("trace: --tree-min-share %g: want 0 (every node) up to below 1", share)
	}
	var cut trace.TreeCut
	topt := trace.TreeJSONOptions{Clock: clock, BottomUp: c.Bool("bottom-up"), MaxDepth: c.Int("tree-depth"), MinShare: share, Cut: &cut}
	if err := trace.WriteTreeJSON(safetext.JSON(c.App.Writer), p, topt); err != nil {
		return fmt.Errorf("trace: %s: %w", flag, err)
	}
	if cut.Folded > 0 {
		fmt.Fprintf(c.App.ErrWriter, "ddmtui: trace: %s: %d nodes under %g%% of their tree's time folded into %d %q nodes (--tree-min-share 0 prints every node)\n", flag, cut.Folded, 100*share, cut.Others, trace.OtherName)
	}
	if cut.Truncated > 0 {
		fmt.Fprintf(c.App.ErrWriter, "ddmtui: trace: %s: %d nodes cut at depth %d (\"truncated\" nodes; --tree-depth -1 prints every level)\n", flag, cut.Truncated, c.Int("tree-depth"))
	}
	return nil
}
