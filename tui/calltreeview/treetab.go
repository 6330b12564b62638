package calltreeview

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// treeSource shows a trace.TreeView as a viewer tree-table: method,
// inclusive and exclusive time with their share of the total, and calls.
// Nodes are the view's node indexes. With a filter, the rows are the
// filtered tree's (every path through a matching method, top down; the
// matching methods, bottom up), so the frame's filter walk only visits
// what is kept.
type treeSource struct {
	m        *Model
	bottomUp bool
	pal      style.Palette
	filter   string
	// table is the page that shows the tree: its width bounds the method
	// column so that the numbers stay on screen.
	table *viewer.Table
	// cur is the tree the rows were laid out from: the table asks for the
	// old rows' keys after the model has changed, before the new layout.
	cur *trace.TreeView
	// keys caches each node's path hash for the tree keysOf.
	keys   []uint64
	keysOf *trace.TreeView
}

func (s *treeSource) view() *trace.TreeView {
	if s.cur == nil {
		s.cur = s.m.Filtered(s.bottomUp, s.filter)
	}
	return s.cur
}

func (s *treeSource) Columns() []viewer.Column {
	c := clockLabel(s.m.p, s.m.treeClock())
	return []viewer.Column{
		{Title: "Method", Expand: 1},
		{Title: "Incl " + c, Align: tview.AlignRight},
		{Title: "Incl %", Align: tview.AlignRight},
		{Title: "Self " + c, Align: tview.AlignRight},
		{Title: "Self %", Align: tview.AlignRight},
		{Title: "Calls", Align: tview.AlignRight},
	}
}

// clockLabel is a values column's clock and unit: "CPU ms", "wall ms";
// "samples" and "time ms" for a sampled profile.
func clockLabel(p *trace.Profile, c trace.Clock) string {
	if p.ValueUnit(c) != "" {
		return p.ValueUnit(c)
	}
	if p != nil && p.Sampling != nil {
		return "time ms"
	}
	if c == trace.ClockWall {
		return "wall ms"
	}
	return "CPU ms"
}

// Children lists node parent's children (by inclusive time, descending).
func (s *treeSource) Children(parent int, q viewer.Query) []int {
	if parent == viewer.Root { // a new layout: the model's tree now
		s.filter = q.Filter
		s.cur = s.m.Filtered(s.bottomUp, s.filter)
		parent = 0
	}
	v := s.view()
	var out []int
	for c := range v.Children(int32(parent)) {
		out = append(out, int(c))
	}
	if q.Reverse {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// HasChildren: bottom-up trees are cut at the root level while filtered
// (the frame's filter walk would otherwise open every caller chain).
func (s *treeSource) HasChildren(n int) bool {
	if s.filter != "" && s.bottomUp {
		return false
	}
	return s.view().HasChildren(int32(n))
}

// HotChild follows the child of largest inclusive time.
func (s *treeSource) HotChild(n int, _ viewer.Query) int {
	v := s.view()
	for c := range v.Children(int32(n)) {
		return int(c)
	}
	return -1
}

func (s *treeSource) Cell(n, col int) *tview.TableCell {
	v := s.view()
	nd := &v.Nodes[n]
	c := v.Clock()
	total := v.Nodes[0].Inclusive[c]
	var text string
	switch col {
	case 0:
		text = style.Escape(s.m.Name(nd.Method))
	case 1:
		text = s.m.p.FormatValue(c, nd.Inclusive[c])
	case 2:
		text = percent(nd.Inclusive[c], total)
	case 3:
		text = s.m.p.FormatValue(c, nd.Self[c])
	case 4:
		text = percent(nd.Self[c], total)
	case 5:
		text = strconv.FormatInt(nd.Calls, 10)
	}
	cell := tview.NewTableCell(text)
	if col == 0 && s.table != nil {
		// The five number columns take about 52 columns.
		if _, _, w, _ := s.table.Widget().GetInnerRect(); w > 0 {
			cell.SetMaxWidth(max(20, w-54))
		}
	}
	if nd.Method == s.m.Selected && s.m.Selected != trace.TopLevel {
		cell.SetTextColor(s.pal.Accent()).SetAttributes(tcell.AttrBold)
	}
	return cell
}

// Key identifies a node by its path of methods (a 64-bit hash of it), so
// expansions and the selection survive the thread, clock and range changes
// that rebuild the tree. Each node's hash is its parent's mixed with its
// method, kept per node: O(1) a row even 100,000 levels deep.
func (s *treeSource) Key(n int) string {
	v := s.view()
	if s.keysOf != v {
		s.keysOf, s.keys = v, s.keys[:0]
	}
	if len(s.keys) < len(v.Nodes) {
		s.keys = append(s.keys, make([]uint64, len(v.Nodes)-len(s.keys))...)
	}
	// Walk up to the first node with a hash, then fill the path down.
	var up []int32
	x := int32(n)
	for x > 0 && s.keys[x] == 0 {
		up = append(up, x)
		x = v.Nodes[x].Parent
	}
	h := uint64(14695981039346656037) // FNV-1a offset basis for the root
	if x > 0 {
		h = s.keys[x]
	}
	for i := len(up) - 1; i >= 0; i-- {
		m := uint64(uint32(v.Nodes[up[i]].Method))
		h = (h ^ m) * 1099511628211
		h = (h ^ (m >> 16) ^ 0x9e37) * 1099511628211
		if h == 0 {
			h = 1
		}
		s.keys[up[i]] = h
	}
	return strconv.FormatUint(h, 36)
}

// Match: every row of the filtered tree is kept.
func (s *treeSource) Match(n int, filter string) bool { return true }

// method returns the method of node n.
func (s *treeSource) method(n int) int32 {
	if n < 0 {
		return trace.TopLevel
	}
	return s.view().Nodes[n].Method
}
