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
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/tui/heapview"
)

// heapViewer shows a dump to a user at a terminal: the viewer analyses
// file itself, in the background, and compares it with baseline when set.
type heapViewer func(c *cli.Context, file, baseline string) error

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
	m, err := loadMapping(c, "hprof "+c.Command.Name)
	if err != nil {
		return err
	}
	return heapview.Run(file, heapview.RunOptions{Baseline: baseline, Context: c.Context, Mapping: m})
}

// hprofSubcommands are `hprof analyze`, `hprof path`, `hprof diff` and
// `hprof convert`.
func hprofSubcommands() []*cli.Command {
	return []*cli.Command{newHprofAnalyzeCommand(openHeapViewer, isTerminal), hprofPathCommand(), newHprofDiffCommand(openHeapViewer, isTerminal), hprofConvertCommand()}
}

// openHeap analyses a file. The arrays of an analysis hold no pointers,
// so collecting garbage often costs little, and this one-shot command's
// peak memory stays near what the analysis holds (docs/PERFORMANCE.md).
func openHeap(file string) (*heapdump.Heap, error) {
	debug.SetGCPercent(50)
	h, err := heapdump.Open(file, heapdump.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", safetext.Terminal(file), err)
	}
	return h, nil
}

// openMappedHeap is openHeap, then --mapping's names put into the heap
// (apply.Heap; m from loadMapping, nil without the flag): its coverage
// comes back for the report (nil without a mapping).
func openMappedHeap(c *cli.Context, m *mapping.Mapping, file string) (*heapdump.Heap, *heapdump.MappingJSON, error) {
	cmd := "hprof " + c.Command.Name
	h, err := openHeap(file)
	if err != nil || m == nil {
		return h, nil, err
	}
	cov := m.Coverage(apply.Heap(m, h))
	if cov.Suspicious() {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", cmd, cov)
	}
	return h, &heapdump.MappingJSON{Known: cov.Known, Total: cov.Seen, Skipped: cov.Skipped, Summary: cov.String()}, nil
}

// analyzeHeap writes the analysis of file: JSON, the viewer on a
// terminal, else the text report, headed by label.
func analyzeHeap(c *cli.Context, file, label string, jsonOut bool, top int, view heapViewer, terminal func(io.Writer) bool) error {
	if !jsonOut && terminal(c.App.Writer) {
		return view(c, file, "")
	}
	m, err := loadMapping(c, "hprof "+c.Command.Name)
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

var topFlag = &cli.IntFlag{Name: "top", Usage: "list the `N` largest dominators and duplicate strings (JSON default 100, text 20)"}

func newHprofAnalyzeCommand(view heapViewer, terminal func(io.Writer) bool) *cli.Command {
	return &cli.Command{
		Name:      "analyze",
		Usage:     "analyse a heap dump: what holds the memory, leaked Activities and Fragments",
		ArgsUsage: "FILE",
		Description: "Reads an HPROF file (Android's or standard, converted or not) and reports its heaps, the\n" +
			"classes by retained size, the top dominators, leaked Activities and Fragments with their\n" +
			"paths from a GC root, duplicate strings and bitmaps (definitions: docs/ARCHITECTURE.md,\n" +
			"heapdump). --json prints the whole analysis; a terminal opens the viewer.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the analysis as JSON"}, topFlag, mappingFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("hprof analyze takes one FILE")
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
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: `print {"paths": [{"id", "path"}]}`}, mappingFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return fmt.Errorf("hprof path takes a FILE and one or more object IDs")
			}
			var ids []uint64
			for _, a := range c.Args().Slice()[1:] {
				id, err := parseObjectID(a)
				if err != nil {
					return err
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
			&cli.IntFlag{Name: "top", Value: 40, Usage: "text: list the first `N` rows"}, mappingFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return fmt.Errorf("hprof diff takes two files, OLD and NEW")
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
