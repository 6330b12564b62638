package heapview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// leakRows is the leaks table: each leaked Activity or Fragment (D12),
// the largest retained first, with the hop blamed.
type leakRows struct {
	m     *Model
	shown []int
	warn  tcell.Color
}

func (r *leakRows) Columns() []viewer.Column {
	return []viewer.Column{
		// At 80 columns LIKELY CAUSE must stay: the label gives way (the
		// chain below names the object in full) and the cause, last, is
		// cut at the edge rather than left out.
		{Title: "LEAKED", Expand: 1},
		{Title: "REASON"},
		{Title: "RETAINED", Align: tview.AlignRight},
		{Title: "DEPTH", Align: tview.AlignRight},
		{Title: "LIKELY CAUSE", Clip: true},
	}
}

func (r *leakRows) Update(q viewer.Query) int {
	r.shown = r.shown[:0]
	for i, l := range r.m.leaks {
		if q.Filter == "" || passes(label(r.m.Heap, l.Node)+" "+l.Kind+" "+l.Reason+" "+r.cause(i), q.Filter) {
			r.shown = append(r.shown, i)
		}
	}
	return len(r.shown)
}

// cause is the blamed hop of leak i as "Holder.field" (simple names; the
// chain below gives the full ones).
func (r *leakRows) cause(i int) string {
	l, b := r.m.leaks[i], r.m.blame[i]
	if b <= 0 || b >= len(l.Path) {
		return "a GC root itself"
	}
	h := r.m.Heap
	holder, static := h.ClassName(l.Path[b-1].Node), ""
	if of := h.ClassObjectName(l.Path[b-1].Node); of != "" {
		holder, static = of, "static "
	}
	if i := lastDot(holder); i >= 0 {
		holder = holder[i+1:]
	}
	return static + holder + "." + l.Path[b].Field
}

func (r *leakRows) Cell(i, c int) *tview.TableCell {
	k := r.shown[i]
	l := r.m.leaks[k]
	h := r.m.Heap
	switch c {
	case 0:
		return cell(shortLabel(h, l.Node)) // the chain below names the package
	case 1:
		return cell(l.Reason)
	case 2:
		return cell(size(h.Retained(l.Node)))
	case 3:
		return cell(strconv.Itoa(l.Depth))
	case 4:
		return cell(r.cause(k)).SetTextColor(r.warn)
	}
	return nil
}

func (r *leakRows) Key(i int) string { return heapdump.HexID(r.m.Heap.ID(r.m.leaks[r.shown[i]].Node)) }

// detailPane is a bordered text pane for a table's detail.
func detailPane(title string) *tview.TextView {
	d := tview.NewTextView().SetDynamicColors(true).SetWrap(false).SetScrollable(true)
	d.SetBorder(true).SetTitle(" " + title + " ")
	return d
}

// showLeakChain fills the leaks' detail pane with the selected leak's
// chain, root first, the blamed hop marked.
func (v *View) showLeakChain(i int) {
	d := v.leaks.Detail()
	if i < 0 || i >= len(v.leakRows.shown) {
		d.SetText("")
		return
	}
	k := v.leakRows.shown[i]
	d.SetText(chainText(v.m, k, v.opt.Palette))
	d.ScrollToBeginning()
}

// chainText writes leak k's path, one hop a line (tview tags; dump strings
// escaped).
func chainText(m *Model, k int, pal style.Palette) string {
	l, blame := m.leaks[k], m.blame[k]
	h := m.Heap
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s), retains %s\n\n", style.Escape(label(h, l.Node)), l.Kind, l.Reason, size(h.Retained(l.Node)))
	if l.Path == nil {
		fmt.Fprintf(&b, "   depth %d; its path is not kept: only the %d largest leaks' are (Enter finds it)\n", l.Depth, heapdump.MaxLeakPaths)
	}
	for i, st := range l.Path {
		if st.Omitted > 0 {
			fmt.Fprintf(&b, "   … %d objects left out\n", st.Omitted)
		}
		line := style.Escape(label(h, st.Node))
		if i > 0 {
			hop := "." + st.Field
			if strings.HasPrefix(st.Field, "[") {
				hop = st.Field // an array element
			}
			line = "   " + style.Escape(hop) + " → " + line
		} else {
			line = "   " + heapdump.RootLabel(h.RootKind(st.Node)) + " " + line
		}
		if i == blame && i > 0 {
			tag := "[::b]"
			if !pal.NoColor {
				tag = "[" + pal.Warning().String() + "::b]"
			}
			line = tag + "▶" + line[1:] + "  ◀ likely cause[-:-:-]" // the mark takes the first space
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// openLeak pushes the selected leak's chain as a list of openable hops.
func (v *View) openLeak() {
	i := v.leaks.Selected()
	if i < 0 || i >= len(v.leakRows.shown) {
		return
	}
	k := v.leakRows.shown[i]
	l := v.m.leaks[k]
	if l.Path == nil { // past MaxLeakPaths: the path of this one object
		v.openPath(l.Node)
		return
	}
	rows := pathRows(v.m, l.Path, v.m.blame[k], v.opt.Palette.Warning())
	v.Push(v.table(rows, viewer.TableOptions{Title: "Chain to " + shortLabel(v.m.Heap, l.Node), Scope: "objects"}))
	if t, ok := v.Current().(*viewer.Table); ok {
		t.Select(v.m.blame[k])
	}
}
