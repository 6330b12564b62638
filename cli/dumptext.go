package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/tui/dumpview"
)

// showDump prints d as JSON (--json), as a text report when the output is
// not a terminal (`anr FILE > report.txt`), or opens the viewer. cmd
// labels errors.
func showDump(c *cli.Context, cmd string, d *threaddump.Dump, title string, view dumpViewer, terminal func(io.Writer) bool) error {
	if c.Bool("json") {
		// Streamed: the JSON of a large dump is several times the dump.
		return threaddump.NewStreamingReport(d).WriteJSON(safetext.JSON(c.App.Writer))
	}
	if !terminal(c.App.Writer) {
		return writeDumpText(c.App.Writer, threaddump.NewReport(d))
	}
	if c.String("mapping") != "" {
		title += mappingNote
	}
	if err := view(d, title); err != nil {
		return fmt.Errorf("%s: cannot show the dump in this terminal (%w); use --json, or redirect the output for a text report", cmd, err)
	}
	return nil
}

// writeDumpText writes the analysis as plain text: per process, the main
// thread, deadlocks, threads by state, the busiest threads, then every
// thread's stack.
func writeDumpText(out io.Writer, r *threaddump.Report) error {
	w := bufio.NewWriter(out)
	s := safetext.Terminal
	if r.Truncated {
		fmt.Fprintln(w, "note: the dump is truncated")
	}
	for _, p := range r.Processes {
		fmt.Fprintf(w, "process %d  %s  %s  %s\n", p.PID, s(p.CmdLine), s(p.Date), s(p.VM))
		if m := p.MainThread; m != nil {
			fmt.Fprintf(w, "  main thread: %s\n", s(m.Summary))
		}
		for i, cycle := range p.Deadlocks {
			fmt.Fprintf(w, "  DEADLOCK %d:\n", i+1)
			for _, e := range cycle {
				fmt.Fprintf(w, "    %q (tid %d) waits for %s held by %q (tid %d)\n", s(e.Name), e.TID, s(e.WaitingToLock), s(e.HeldByName), e.HeldByTID)
			}
		}
		var states []string
		for _, g := range p.States {
			for _, st := range g.States {
				states = append(states, fmt.Sprintf("%s %d", s(st.State), st.Count))
			}
		}
		fmt.Fprintf(w, "  threads: %d (%s)\n", len(p.Threads), strings.Join(states, ", "))
		if len(p.CPURanking) > 0 {
			fmt.Fprintln(w, "  busiest threads (utm+stm jiffies):")
			for i, t := range p.CPURanking {
				if i == 5 {
					break
				}
				fmt.Fprintf(w, "    %6d  %s (tid %d)\n", t.Jiffies, s(t.Name), t.TID)
			}
		}
		for _, t := range p.Threads {
			fmt.Fprintf(w, "\n  %q tid=%d %s — %s\n", s(t.Name), t.TID, s(t.State), s(t.Explanation))
			for _, f := range t.Frames {
				fmt.Fprintf(w, "    %s\n", s(f.Text))
				for _, l := range f.Locks {
					fmt.Fprintf(w, "      - %s %s\n", s(l.Kind), s(l.Object))
				}
			}
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}

// viewDump runs the terminal viewer.
func viewDump(d *threaddump.Dump, title string) error {
	return dumpview.Run(d, dumpview.RunOptions{Title: title})
}
