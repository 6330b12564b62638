package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/heapfile"
	"github.com/ddmtui/ddmtui/internal/memlimit"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/tui/heapview"
)

// heapViewer shows a dump to a user at a terminal: the viewer analyses
// file itself, in the background, and compares it with baseline when set.
type heapViewer func(c *cli.Context, file, baseline string) error

// heapPIDFlag chooses the dump of a Perfetto trace holding heap graphs of
// several processes.
var heapPIDFlag = &cli.IntFlag{Name: "pid", Usage: "in a Perfetto trace with heap graphs of several processes: the `PID` whose dump to read"}

// openHeapViewer is where `hprof analyze` and `hprof diff` on a terminal
// open the heap dump viewer (tui/heapview), at once: the analysis runs
// behind its first screen.
func openHeapViewer(c *cli.Context, file, baseline string) error {
	for _, f := range []string{baseline, file} {
		if f == "" {
			continue
		}
		if _, err := os.Stat(f); err != nil { // a mistyped name is a line, not a screen
			return fmt.Errorf("%s: %w", safetext.Terminal(f), errors.Unwrap(err))
		}
	}
	m, err := loadMapping(c, hprofLabel(c))
	if err != nil {
		return err
	}
	// The viewer raises the soft memory limit by each file's allowance
	// while it analyses it (heapview.LoadPID).
	debug.SetGCPercent(50)
	return heapview.Run(file, heapview.RunOptions{Baseline: baseline, Context: c.Context, PID: int32(c.Int("pid")), Mapping: m})
}

// hprofLabel names the running command for its messages: "hprof analyze",
// "hprof diff", or "hprof" itself (`hprof --pid N -o F --analyze`).
func hprofLabel(c *cli.Context) string {
	if c.Command.Name == "hprof" {
		return "hprof"
	}
	return "hprof " + c.Command.Name
}

// hprofSubcommands are `hprof analyze`, `hprof path`, `hprof diff` and
// `hprof convert`.
func hprofSubcommands() []*cli.Command {
	return []*cli.Command{newHprofAnalyzeCommand(openHeapViewer, isTerminal), hprofPathCommand(), newHprofDiffCommand(openHeapViewer, isTerminal), hprofConvertCommand()}
}

// openMappedHeap analyses a file of either form (HPROF, or a Perfetto
// trace's heap graph: heapfile sniffs which), then puts --mapping's names
// into the heap, once, whichever form it came from (apply.Heap; m from
// loadMapping, nil without the flag): the mapping's coverage comes back for
// the report (nil without a mapping). --pid chooses among a trace's
// processes, and a trace with several dumps and none chosen is a usage
// error listing them (exit status 2). The arrays of an analysis hold no
// pointers, so collecting garbage often costs little, and this one-shot
// command's peak memory stays near what the analysis holds
// (docs/PERFORMANCE.md).
func openMappedHeap(c *cli.Context, m *mapping.Mapping, file string) (*heapdump.Heap, *heapdump.MappingJSON, error) {
	limitHeapMemory(file)
	h, err := heapfile.Open(file, heapfile.Options{PID: int32(c.Int("pid"))})
	if err != nil {
		err = fmt.Errorf("%s: %w", safetext.Terminal(file), err)
		var dumps *heapfile.DumpsError
		if errors.As(err, &dumps) {
			return nil, nil, &UsageError{Command: c.Command.HelpName, Err: err}
		}
		return nil, nil, err
	}
	if m == nil {
		return h, nil, nil
	}
	cov := m.Coverage(apply.Heap(m, h))
	if cov.Suspicious() {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", hprofLabel(c), cov)
	}
	return h, &heapdump.MappingJSON{Known: cov.Known, Total: cov.Seen, Skipped: cov.Skipped, Summary: cov.String()}, nil
}

// analyzeHeap writes the analysis of file: JSON, the viewer on a
// terminal, else the text report, headed by label.
func analyzeHeap(c *cli.Context, file, label string, jsonOut bool, top int, view heapViewer, terminal func(io.Writer) bool) error {
	if !jsonOut && terminal(c.App.Writer) {
		return view(c, file, "")
	}
	m, err := loadMapping(c, hprofLabel(c))
	if err != nil {
		return err
	}
	h, cov, err := openMappedHeap(c, m, file)
	if err != nil {
		return err
	}
	defer h.Close()
	r := h.Report(top)
	r.Mapping = cov
	if jsonOut {
		return headless.WriteJSON(c.App.Writer, r)
	}
	return heapdump.WriteText(c.App.Writer, r, heapdump.TextOptions{File: label, Top: top})
}

// limitHeapMemory sets what a one-shot command (the analysis, the
// standalone viewer) needs to keep the analysis of file within its
// allowance (heapfile.MemoryAllowance): a collector that runs at half the
// live heap's growth, and a soft limit raised by the file's allowance for
// the rest of the command (`hprof diff` opens two heaps, each with its
// allowance).
func limitHeapMemory(file string) {
	debug.SetGCPercent(50)
	memlimit.Raise(heapfile.MemoryAllowance(file))
}

var topFlag = &cli.IntFlag{Name: "top", Usage: "list the `N` largest dominators and duplicate strings (JSON default 100, text 20)"}

func newHprofAnalyzeCommand(view heapViewer, terminal func(io.Writer) bool) *cli.Command {
	return &cli.Command{
		Name:      "analyze",
		Usage:     "analyse a heap dump: what holds the memory, leaked Activities and Fragments",
		ArgsUsage: "FILE",
		Description: "Reads an HPROF file (Android's or standard, converted or not) or a Perfetto trace holding a\n" +
			"Java heap graph (--pid chooses among several processes' dumps), told apart by content, and reports its heaps, the\n" +
			"classes by retained size, the top dominators, leaked Activities and Fragments with their\n" +
			"paths from a GC root, duplicate strings and bitmaps (definitions: docs/ARCHITECTURE.md,\n" +
			"heapdump). A heap graph holds references only: duplicate strings, bitmaps and destroyed\n" +
			"Activities are said unavailable, detached Fragments are found. --mapping names an R8 or\n" +
			"ProGuard build's classes and fields as in its source (the coverage goes in the report).\n" +
			"--json prints the whole analysis; a terminal opens the viewer.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the analysis as JSON"}, topFlag, heapPIDFlag, mappingFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return badValue(c, fmt.Errorf("hprof analyze takes one FILE"))
			}
			return analyzeHeap(c, c.Args().First(), c.Args().First(), c.Bool("json"), c.Int("top"), view, terminal)
		},
	}
}

// parseObjectID reads an object id: hex with 0x, or decimal.
func parseObjectID(s string) (uint64, error) {
	v, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), 16, 64)
	if !strings.HasPrefix(strings.ToLower(s), "0x") {
		v, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, fmt.Errorf("object id %s: want hex (0x12c0a1b0) or decimal", safetext.Terminal(s))
	}
	return v, nil
}

func hprofPathCommand() *cli.Command {
	return &cli.Command{
		Name:      "path",
		Usage:     "the shortest strong path from a GC root to objects of a heap dump",
		ArgsUsage: "FILE ID...",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: `print {"paths": [{"id", "path"}]}`}, heapPIDFlag, mappingFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return badValue(c, fmt.Errorf("hprof path takes a FILE and one or more object IDs"))
			}
			var ids []uint64
			for _, a := range c.Args().Slice()[1:] {
				id, err := parseObjectID(a)
				if err != nil {
					return badValue(c, err)
				}
				ids = append(ids, id)
			}
			m, err := loadMapping(c, "hprof path")
			if err != nil {
				return err
			}
			h, _, err := openMappedHeap(c, m, c.Args().First())
			if err != nil {
				return err
			}
			defer h.Close()
			ps, err := h.Paths().Of(ids)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return headless.WriteJSON(c.App.Writer, ps)
			}
			return heapdump.WritePathText(c.App.Writer, ps)
		},
	}
}

func newHprofDiffCommand(view heapViewer, terminal func(io.Writer) bool) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "what grew between two heap dumps of an app, by class",
		ArgsUsage: "OLD NEW",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: `print {"diff": [{"name", "instances_delta", "shallow_delta", "retained_delta"}]}`},
			&cli.IntFlag{Name: "top", Value: 40, Usage: "text: list the first `N` rows"}, heapPIDFlag, mappingFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return badValue(c, fmt.Errorf("hprof diff takes two files, OLD and NEW"))
			}
			if !c.Bool("json") && terminal(c.App.Writer) {
				return view(c, c.Args().Get(1), c.Args().Get(0))
			}
			m, err := loadMapping(c, "hprof diff")
			if err != nil {
				return err
			}
			var hist [2][]heapdump.ClassRow
			for i, file := range c.Args().Slice() {
				h, _, err := openMappedHeap(c, m, file)
				if err != nil {
					return err
				}
				hist[i] = h.Histogram()
				h.Close() // one dump mapped at a time
			}
			rows := heapdump.Diff(hist[0], hist[1])
			if c.Bool("json") {
				return headless.WriteJSON(c.App.Writer, heapdump.DiffJSON{Diff: rows})
			}
			return heapdump.WriteDiffText(c.App.Writer, rows, c.Int("top"))
		},
	}
}
