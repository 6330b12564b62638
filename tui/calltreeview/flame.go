package calltreeview

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
)

// flameChart draws the top-down tree of what the model shows as a flame
// chart: the zoomed node (at first the top level) is the bottom row across
// the whole width, and each node's callees stand on it, as wide as their
// share of its inclusive time, widest first. Only frames at least one
// column wide and within the rows on screen are laid out, so a redraw
// costs O(columns × rows) whatever the tree.
type flameChart struct {
	*tview.Box
	m        *Model
	pal      style.Palette
	zoom     int32 // node of the model's top-down tree at the bottom
	sel      int32
	boxes    []flameBox // the last layout, in depth-first order
	onSelect func()
	tree     *trace.TreeView // the tree zoom and sel belong to
}

type flameBox struct {
	node   int32
	x0, x1 int // columns, relative to the chart
	row    int // 0: the bottom row (the zoomed node)
}

func newFlameChart(m *Model, pal style.Palette) *flameChart {
	f := &flameChart{Box: tview.NewBox(), m: m, pal: pal}
	return f
}

// sync starts over when the model's tree changed (thread, clock, range).
func (f *flameChart) sync() *trace.TreeView {
	t := f.m.TopDown()
	if t != f.tree {
		f.tree, f.zoom, f.sel, f.boxes = t, 0, 0, nil
	}
	return t
}

// layout places the frames in a w × h area.
func (f *flameChart) layout(w, h int) {
	t := f.sync()
	c := t.Clock()
	f.boxes = f.boxes[:0]
	if w <= 0 || h <= 0 {
		return
	}
	total := t.Nodes[f.zoom].Inclusive[c]
	f.boxes = append(f.boxes, flameBox{node: f.zoom, x0: 0, x1: w, row: 0})
	if total == 0 {
		return
	}
	scale := float64(w) / float64(total)
	// An explicit stack of (node, first column as a float, row).
	type item struct {
		node int32
		x    float64
		end  int
		row  int
	}
	stack := []item{{f.zoom, 0, w, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.row+1 >= h {
			continue
		}
		x := it.x
		var kids []item
		for k := range t.Children(it.node) {
			width := float64(t.Nodes[k].Inclusive[c]) * scale
			x0, x1 := int(x+0.5), int(x+width+0.5)
			if x1 > it.end {
				x1 = it.end
			}
			if x1-x0 < 1 {
				break // children come widest first: the rest are narrower
			}
			f.boxes = append(f.boxes, flameBox{node: k, x0: x0, x1: x1, row: it.row + 1})
			kids = append(kids, item{k, x, x1, it.row + 1})
			x += width
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
}

func (f *flameChart) Draw(s tcell.Screen) {
	f.Box.DrawForSubclass(s, f)
	x, y, w, h := f.GetInnerRect()
	f.layout(w, h)
	t := f.tree
	paint := newBarPainter(f.pal)
	for _, b := range f.boxes {
		nd := &t.Nodes[b.node]
		name := f.m.Name(nd.Method)
		if b.node == 0 {
			name = f.m.ThreadLabel()
		}
		hl := nd.Method == f.m.Selected && f.m.Selected != trace.TopLevel
		drawBar(s, x+b.x0, x+b.x1, y+h-1-b.row, name, paint.style(nd.Method, hl, b.node == f.sel))
	}
}

// find returns the index in boxes of node n, or -1.
func (f *flameChart) find(n int32) int {
	for i, b := range f.boxes {
		if b.node == n {
			return i
		}
	}
	return -1
}

func (f *flameChart) ensureLayout() {
	f.sync()
	if len(f.boxes) == 0 {
		_, _, w, h := f.GetInnerRect()
		f.layout(max(w, 80), max(h, 20))
	}
}

// up selects the widest callee of the selected frame; down its caller.
func (f *flameChart) up() {
	f.ensureLayout()
	for _, b := range f.boxes {
		if b.node != 0 && f.tree.Nodes[b.node].Parent == f.sel {
			f.selectNode(b.node)
			return
		}
	}
}

func (f *flameChart) down() {
	f.ensureLayout()
	if f.sel != f.zoom && f.sel > 0 {
		f.selectNode(f.tree.Nodes[f.sel].Parent)
	}
}

// side selects the nearest frame on the same row to the left (dir < 0)
// or to the right.
func (f *flameChart) side(dir int) {
	f.ensureLayout()
	i := f.find(f.sel)
	if i < 0 {
		return
	}
	cur := f.boxes[i]
	best, bestDist := int32(-1), 1<<30
	for _, b := range f.boxes {
		if b.row != cur.row || b.node == cur.node {
			continue
		}
		d := b.x0 - cur.x0
		if dir < 0 {
			d = -d
		}
		if d > 0 && d < bestDist {
			best, bestDist = b.node, d
		}
	}
	if best >= 0 {
		f.selectNode(best)
	}
}

func (f *flameChart) selectNode(n int32) {
	f.sel = n
	if n > 0 {
		f.m.Selected = f.tree.Nodes[n].Method
	}
	if f.onSelect != nil {
		f.onSelect()
	}
}

// zoomIn shows the selected frame across the whole width.
func (f *flameChart) zoomIn() {
	f.sync()
	f.zoom = f.sel
	f.boxes = f.boxes[:0]
	if f.onSelect != nil {
		f.onSelect()
	}
}

// zoomOut goes back to the zoomed frame's caller; false at the top.
func (f *flameChart) zoomOut() bool {
	f.sync()
	if f.zoom <= 0 {
		return false
	}
	f.sel = f.zoom
	f.zoom = f.tree.Nodes[f.zoom].Parent
	f.boxes = f.boxes[:0]
	if f.onSelect != nil {
		f.onSelect()
	}
	return true
}

// Status describes the selected frame.
func (f *flameChart) Status() string {
	t := f.sync()
	c := t.Clock()
	nd := &t.Nodes[f.sel]
	name := f.m.ThreadLabel()
	if f.sel > 0 {
		name = f.m.Name(nd.Method)
	}
	total := t.Nodes[0].Inclusive[c]
	return style.Escape(name) + "  incl " + usec(nd.Inclusive[c]) + " (" + percent(nd.Inclusive[c], total) + f.m.ShareLabel() + ")  self " +
		usec(nd.Self[c]) + "  calls " + itoa(nd.Calls) + "  depth " + itoa(int64(t.Depth(f.sel)))
}

// InputHandler: ←/→ move along the row, Enter zooms in. (↑/↓ come as the
// page's movement; Backspace is bound in the page's scope.)
func (f *flameChart) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return f.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		switch ev.Key() {
		case tcell.KeyLeft:
			f.side(-1)
		case tcell.KeyRight:
			f.side(1)
		case tcell.KeyEnter:
			f.zoomIn()
		}
	})
}
