package heapdump

import (
	"bufio"
	"fmt"
	"github.com/ddmtui/ddmtui/internal/bytesize"
	"io"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// TextOptions shape WriteText.
type TextOptions struct {
	File string // shown in the heading
	Top  int    // rows per section (0: 20)
}

// WriteText writes a readable report of r: heaps, top classes by retained
// size, top dominators, each leak as a chain from its GC root, duplicate
// strings and bitmaps. Names and values from the dump are escaped for the
// terminal.
func WriteText(w io.Writer, r *Report, o TextOptions) error {
	top := o.Top
	if top <= 0 {
		top = 20
	}
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	esc := safetext.Terminal
	heading := "heap dump"
	if o.File != "" {
		heading += " " + esc(o.File)
	}
	ids := ""
	if r.IDSize > 0 {
		ids = fmt.Sprintf(", %d-byte ids", r.IDSize)
	}
	p("%s: %s%s, %d objects (%d reachable)\n", heading, esc(r.Version), ids, r.Objects, r.Reachable)
	unavailable := func(section string) {
		if why := r.Unavailable[section]; why != "" {
			p("  not in this dump: %s\n", esc(why))
		}
	}
	if r.Truncated {
		p("the file is cut short: analysed up to offset %d, the last complete record\n", r.TruncatedAt)
	}
	if r.Converted != "" {
		p("%s\n", esc(r.Converted))
	}
	if r.Mapping != nil {
		p("%s\n", esc(r.Mapping.Summary))
	}
	p("sizes are shallow sizes as the dump gives them, without object headers\n")

	p("\nHeaps\n")
	for _, hp := range r.Heaps {
		p("  %-10s %10d objects %12s\n", esc(hp.Name), hp.Objects, Size(hp.Bytes))
	}

	p("\nTop classes by retained size (of %d)\n", len(r.Classes))
	p("  %12s %12s %10s  %s\n", "retained", "shallow", "instances", "class")
	for _, c := range r.Classes[:min(top, len(r.Classes))] {
		p("  %12s %12s %10d  %s\n", Size(c.Retained), Size(c.Shallow), c.Instances, esc(c.Name))
	}

	p("\nTop dominators\n")
	p("  %12s  %s\n", "retained", "object")
	for _, d := range r.Dominators[:min(top, len(r.Dominators))] {
		p("  %12s  %s\n", Size(d.Retained), label(d.Class, d.Of, d.ID))
	}

	p("\nLeaks (%d)\n", len(r.Leaks))
	unavailable("leaks")
	if len(r.Leaks) == 0 {
		p("  no destroyed Activity or detached Fragment is reachable\n")
	}
	for _, l := range r.Leaks {
		p("  %s %s: %s %s, retains %s\n", esc(l.Class), l.ID, l.Kind, l.Reason, Size(l.Retained))
		if l.PathOmitted {
			p("    depth %d; its path is not listed (only the %d largest leaks' are)\n", l.Depth, MaxLeakPaths)
			continue
		}
		for i, s := range l.Path {
			if i == 0 {
				p("    %s (%s)\n", label(s.Class, s.Of, s.ID), RootLabel(s.Root))
				continue
			}
			if s.OmittedBefore > 0 {
				p("    %s… %d objects left out\n", strings.Repeat(" ", min(i-1, 12)), s.OmittedBefore)
			}
			blame := ""
			if i == l.Blame {
				blame = "   ← likely cause"
			}
			p("    %s└─ %s → %s%s\n", strings.Repeat(" ", min(i-1, 12)), esc(*s.Field), label(s.Class, s.Of, s.ID), blame)
		}
	}

	p("\nDuplicate strings\n")
	unavailable("duplicate_strings")
	dups := r.DuplicateStrings // wasting bytes first: the rest wastes nothing (Wasting)
	for len(dups) > 0 && dups[len(dups)-1].Wasted == 0 {
		dups = dups[:len(dups)-1]
	}
	if len(dups) == 0 && r.Unavailable["duplicate_strings"] == "" {
		p("  none\n")
	}
	for _, d := range dups[:min(top, len(dups))] {
		p("  %10s wasted %6d ×  %s\n", Size(d.Wasted), d.Count, esc(quote(d.Value, 60)))
	}

	p("\nBitmaps (%d)\n", len(r.Bitmaps))
	unavailable("bitmaps")
	for _, b := range r.Bitmaps[:min(top, len(r.Bitmaps))] {
		pixels := "pixels not in the dump"
		if b.PixelsInDump {
			pixels = fmt.Sprintf("%s of %s pixels (%s)", Size(uint64(b.PixelBytes)), b.Format, b.Source)
		}
		p("  %s %5d x %-5d %s\n", b.ID, b.Width, b.Height, pixels)
	}
	return bw.Flush()
}

// label names an object for the terminal: "class Foo 0x12" for a class
// object, else "Foo 0x12".
func label(class, of, id string) string {
	if of != "" {
		return "class " + safetext.Terminal(of) + " " + id
	}
	return safetext.Terminal(class) + " " + id
}

// quote quotes s, cut to max runes.
func quote(s string, max int) string {
	r := []rune(s)
	if len(r) > max {
		return strconv.Quote(string(r[:max])) + "…"
	}
	return strconv.Quote(s)
}

// Size formats a byte count: "512 B", "1.5 KiB", "12.0 MiB" (bytesize's rule).
func Size(n uint64) string { return bytesize.String(n) }

// WriteDiffText writes the diff (D16) as a table, the first top rows: the
// size deltas in human units (Size, signed), the count delta as a number.
func WriteDiffText(w io.Writer, rows []DiffRow, top int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%12s %10s %12s  %s\n", "shallow Δ", "count Δ", "retained Δ", "class")
	if len(rows) == 0 {
		fmt.Fprintln(bw, "  no class changed")
	}
	shown := min(max(top, 0), len(rows))
	for _, r := range rows[:shown] {
		fmt.Fprintf(bw, "%12s %10s %12s  %s\n", signedSize(r.ShallowDelta), signed(r.InstancesDelta), signedSize(r.RetainedDelta), safetext.Terminal(r.Name))
	}
	if len(rows) > shown {
		fmt.Fprintf(bw, "… %d more (--top)\n", len(rows)-shown)
	}
	return bw.Flush()
}

func signed(v int64) string {
	if v > 0 {
		return "+" + strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt(v, 10)
}

// rootText is a path's first element's note: "GC root: thread", or "GC
// root" when the dump does not say which kind.
func RootLabel(kind string) string {
	if kind == "" {
		return "GC root"
	}
	return "GC root: " + kind
}

// signedSize is Size with a sign: "+48 B", "-7.5 KiB", "0 B".
func signedSize(v int64) string {
	switch {
	case v > 0:
		return "+" + Size(uint64(v))
	case v < 0:
		return "-" + Size(uint64(-v))
	}
	return Size(0)
}

// WritePathText writes paths as chains from their GC roots.
func WritePathText(w io.Writer, ps *PathsJSON) error {
	bw := bufio.NewWriter(w)
	for _, p := range ps.Paths {
		if !p.Reachable {
			fmt.Fprintf(bw, "%s: not reachable from a GC root (garbage, or held only through Reference.referent)\n", p.ID)
			continue
		}
		fmt.Fprintf(bw, "%s: depth %d\n", p.ID, p.Depth)
		for i, s := range p.Path {
			if i == 0 {
				fmt.Fprintf(bw, "  %s (%s)\n", label(s.Class, s.Of, s.ID), RootLabel(s.Root))
				continue
			}
			if s.OmittedBefore > 0 {
				fmt.Fprintf(bw, "  %s… %d objects left out\n", strings.Repeat(" ", min(i-1, 12)), s.OmittedBefore)
			}
			fmt.Fprintf(bw, "  %s└─ %s → %s\n", strings.Repeat(" ", min(i-1, 12)), safetext.Terminal(*s.Field), label(s.Class, s.Of, s.ID))
		}
	}
	return bw.Flush()
}
