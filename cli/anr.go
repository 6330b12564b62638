package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/threaddump"
)

// dumpViewer shows a parsed dump in the terminal; title names its source.
type dumpViewer func(d *threaddump.Dump, title string) error

func anrCommand() *cli.Command { return newANRCommand(viewDump, isTerminal) }

// newANRCommand builds `ddmtui anr`; view is what runs without --json on
// a terminal, terminal says whether the output is one (tests pass their
// own).
func newANRCommand(view dumpViewer, terminal func(io.Writer) bool) *cli.Command {
	return &cli.Command{
		Name:      "anr",
		Usage:     "analyse a SIGQUIT / ANR thread dump (traces.txt, /data/anr/anr_*)",
		ArgsUsage: "FILE",
		Description: "Reads the thread dump Dalvik or ART writes on SIGQUIT (kill -3) or an ANR, as many\n" +
			"processes as the file holds, and opens it in the terminal: threads coloured by state, each\n" +
			"thread's stack and locks, monitor deadlocks named in a banner, where the main thread is\n" +
			"stuck. FILE - reads standard input. --json prints the parsed dump and the analysis; when the\n" +
			"output is not a terminal (anr FILE > report.txt) a text report is written instead.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the parsed dump and its analysis as JSON"},
			mappingFlag(),
		},
		Action: func(c *cli.Context) error { return anrAction(c, view, terminal) },
	}
}

func anrAction(c *cli.Context, view dumpViewer, terminal func(io.Writer) bool) error {
	args := c.Args().Slice()
	if len(args) != 1 {
		return badValue(c, fmt.Errorf("anr: want one FILE (- for standard input), got %d arguments", len(args)))
	}
	path := args[0]
	if c.Bool("json") || !terminal(c.App.Writer) {
		// A report is written and the process ends: hold the garbage the
		// JSON encoding makes to a few times the file (issue 30 #17).
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			defer limitMemory(st.Size())()
		}
	}
	d, err := readDump(c, path)
	if err != nil {
		return err
	}
	return showDump(c, "anr", d, path, view, terminal)
}

// limitMemory sets the Go runtime's soft memory limit for reporting on a
// dump of size bytes (anrMemoryFactor times it, at least anrMemoryFloor)
// and returns what restores the previous limit. The parsed dump holds about
// 2-3 times the file (threaddump's compact model); without a limit the
// collector lets garbage grow to as much again before it runs.
func limitMemory(size int64) (restore func()) {
	limit := max(anrMemoryFloor, int64(float64(size)*anrMemoryFactor))
	old := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(old) }
}

const (
	anrMemoryFactor = 3.5
	anrMemoryFloor  = 64 << 20
)

// readDump parses the file at path, or standard input for "-".
func readDump(c *cli.Context, path string) (*threaddump.Dump, error) {
	var r io.Reader
	if path == "-" {
		r = c.App.Reader
		if r == nil {
			r = os.Stdin
		}
	}
	shown := safetext.Terminal(path)
	if r == nil {
		f, err := os.Open(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is printed sanitised instead
			}
			return nil, fmt.Errorf("anr: %s: %w", shown, err)
		}
		defer f.Close()
		r = f
	}
	m, err := loadMapping(c, "anr")
	if err != nil {
		return nil, err
	}
	r, stats := apply.Reader(m, r)
	d, err := threaddump.Parse(r)
	st := stats()
	if err != nil {
		return nil, fmt.Errorf("anr: %s: %w", shown, err)
	}
	reportCoverage(c, "anr", m, st.Classes)
	if len(d.Processes) == 0 {
		return nil, fmt.Errorf("anr: %s: no thread dump found (no \"----- pid N at DATE -----\" line)", shown)
	}
	return d, nil
}
