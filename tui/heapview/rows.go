package heapview

import (
	"fmt"
	"github.com/ddmtui/ddmtui/internal/textfilter"
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// maxStringShown bounds a string value drawn in a cell.
const maxStringShown = 60

// label names a node as the viewer writes it: class@id, a class object as
// "class NAME", a String with its value. Not escaped.
func label(h *heapdump.Heap, n heapdump.Node) string {
	id := heapdump.HexID(h.ID(n))
	if of := h.ClassObjectName(n); of != "" {
		return "class " + of + "@" + id
	}
	name := h.ClassName(n)
	s := name + "@" + id
	if name == "java.lang.String" {
		if v, ok := h.Strings().Value(n); ok {
			s += " " + quote(v)
		}
	}
	return s
}

// quote quotes a string value, cut to maxStringShown characters.
func quote(v string) string {
	r := []rune(v)
	if len(r) > maxStringShown {
		return strconv.Quote(string(r[:maxStringShown])) + "…"
	}
	return strconv.Quote(v)
}

// size formats a byte count for a cell.
func size(n uint64) string { return heapdump.Size(n) }

// count formats a number with thousands separators.
func count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// signed formats a delta with its sign.
func signed(n int64, bytes bool) string {
	sign := "+"
	if n < 0 {
		sign, n = "-", -n
	}
	if n == 0 {
		return "0"
	}
	if bytes {
		return sign + size(uint64(n))
	}
	return sign + count(int(n))
}

// percent is part of whole as "12.3%".
func percent(part, whole uint64) string {
	if whole == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%%", float64(part)*100/float64(whole))
}

func cell(s string) *tview.TableCell { return tview.NewTableCell(style.Escape(s)) }

// passes applies a filter: textfilter's rule (a case-insensitive
// substring, a leading ! excludes), as every filter of ddmtui.
func passes(s, filter string) bool { return textfilter.Match(filter, s) }

// nodeItem is one object of a list: the node, what holds it (a field in
// a path, the field a referrer holds it by), and a mark (the blamed hop).
type nodeItem struct {
	node heapdump.Node
	via  string
	mark string
}

// nodeRows lists objects (a class's instances, a path, a string's
// copies): object, via, shallow and retained sizes, heap; the filter
// matches the object's label and the via.
type nodeRows struct {
	m        *Model
	items    []nodeItem
	shown    []int
	viaTitle string // "" drops the via column
	more     int    // objects not listed (a cut list)
	marks    bool
	warn     tcell.Color // the mark's colour
}

func (r *nodeRows) Columns() []viewer.Column {
	var cols []viewer.Column
	if r.viaTitle != "" {
		cols = append(cols, viewer.Column{Title: r.viaTitle, MaxWidth: 30})
	}
	cols = append(cols,
		viewer.Column{Title: "OBJECT", Expand: 1},
		viewer.Column{Title: "SHALLOW", Align: tview.AlignRight},
		viewer.Column{Title: "RETAINED", Align: tview.AlignRight},
		viewer.Column{Title: "HEAP"})
	if r.marks {
		cols = append(cols, viewer.Column{Title: ""})
	}
	return cols
}

func (r *nodeRows) Update(q viewer.Query) int {
	r.shown = r.shown[:0]
	h := r.m.Heap
	for i, it := range r.items {
		if q.Filter == "" || passes(it.via+" "+label(h, it.node), q.Filter) {
			r.shown = append(r.shown, i)
		}
	}
	n := len(r.shown)
	if r.more > 0 {
		n++
	}
	return n
}

func (r *nodeRows) Cell(i, c int) *tview.TableCell {
	if i >= len(r.shown) {
		if c == 0 {
			return cell(fmt.Sprintf("… and %s more", count(r.more)))
		}
		return nil
	}
	it := r.items[r.shown[i]]
	if r.viaTitle == "" {
		c++
	}
	h := r.m.Heap
	switch c {
	case 0:
		return cell(it.via)
	case 1:
		return cell(label(h, it.node))
	case 2:
		return cell(size(h.Shallow(it.node)))
	case 3:
		if !h.Reachable(it.node) {
			return cell("unreachable")
		}
		return cell(size(h.Retained(it.node)))
	case 4:
		return cell(h.HeapName(it.node))
	case 5:
		return cell(it.mark).SetTextColor(r.warn).SetAttributes(tcell.AttrBold)
	}
	return nil
}

func (r *nodeRows) Key(i int) string {
	if i >= len(r.shown) {
		return ""
	}
	return strconv.Itoa(r.shown[i]) // items may repeat a node (a path does not, referrer lists may)
}

// selected returns the node of row i (-1 for none).
func (r *nodeRows) selected(i int) heapdump.Node {
	if i < 0 || i >= len(r.shown) {
		return -1
	}
	return r.items[r.shown[i]].node
}
