package viewer

import (
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/keymap"
)

// Root is the parent of a tree's top-level nodes.
const Root = -1

// TreeSource is what a tree-table shows: nodes (the source's own indices)
// with children, in columns like a Table's rows.
type TreeSource interface {
	Columns() []Column
	// Children returns the children of parent (Root: the top level), in
	// the order q asks for.
	Children(parent int, q Query) []int
	// HasChildren reports whether n can be expanded, without listing its
	// children.
	HasChildren(n int) bool
	// Cell returns n's cell in column c (peer strings escaped); the tree
	// indents column 0 by depth and marks it ▸ (collapsed) or ▾.
	Cell(n, c int) *tview.TableCell
	// Key identifies n across updates (the expanded set and the selection
	// are kept by key).
	Key(n int) string
	// Match reports whether n passes the filter: a filtered tree shows the
	// nodes that match and the path to each.
	Match(n int, filter string) bool
}

// HotPather is a TreeSource with a hot path: HotChild returns the child of
// n that * follows (the heaviest callee, the biggest retained child), or
// -1 at the end of the path.
type HotPather interface {
	HotChild(n int, q Query) int
}

type treeRow struct{ node, depth int }

// Tree lays a TreeSource out as the Rows of a Table: the expanded nodes'
// children under them, indented. NewTree returns the Table that shows it.
type Tree struct {
	src      TreeSource
	rows     []treeRow
	expanded map[string]bool
	filtered bool
	table    *Table
}

// NewTree returns a tree-table page over src. Its keys (in opt.Scope):
// →/l expands the selected node (or goes to its first child), ←/h
// collapses it (or goes to its parent), Space toggles, and * expands the
// hot path when src is a HotPather.
func NewTree(src TreeSource, opt TableOptions) (*Table, *Tree) {
	tr := &Tree{src: src, expanded: map[string]bool{}}
	t := NewTable(tr, opt)
	tr.table = t
	return t, tr
}

// Columns implements Rows.
func (tr *Tree) Columns() []Column { return tr.src.Columns() }

// Update implements Rows: the visible nodes in order. With a filter, the
// nodes that match and their ancestors are shown, expanded.
func (tr *Tree) Update(q Query) int {
	tr.rows = tr.rows[:0]
	tr.filtered = q.Filter != ""
	if !tr.filtered {
		tr.walk(q, func(n int) bool { return tr.expanded[tr.src.Key(n)] })
		return len(tr.rows)
	}
	keep := tr.matching(q)
	tr.walkKept(q, keep)
	return len(tr.rows)
}

// walk appends the nodes in depth-first order, descending into those
// open says (an explicit stack: call trees are deep).
func (tr *Tree) walk(q Query, open func(int) bool) {
	var stack []treeRow
	push := func(kids []int, depth int) {
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, treeRow{kids[i], depth})
		}
	}
	push(tr.src.Children(Root, q), 0)
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		tr.rows = append(tr.rows, it)
		if tr.src.HasChildren(it.node) && open(it.node) {
			push(tr.src.Children(it.node, q), it.depth+1)
		}
	}
}

// matching returns the nodes that match the filter or have a descendant
// that does (a post-order walk with an explicit stack).
func (tr *Tree) matching(q Query) map[int]bool {
	keep := map[int]bool{}
	type item struct {
		node int
		kids []int
		next int
	}
	stack := []item{{node: Root, kids: tr.src.Children(Root, q)}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.kids) {
			n := top.kids[top.next]
			top.next++
			var kids []int
			if tr.src.HasChildren(n) {
				kids = tr.src.Children(n, q)
			}
			stack = append(stack, item{node: n, kids: kids})
			continue
		}
		done := *top
		stack = stack[:len(stack)-1]
		if done.node == Root {
			break
		}
		if keep[done.node] || tr.src.Match(done.node, q.Filter) {
			keep[done.node] = true
			if len(stack) > 0 && stack[len(stack)-1].node != Root {
				keep[stack[len(stack)-1].node] = true
			}
		}
	}
	return keep
}

func (tr *Tree) walkKept(q Query, keep map[int]bool) {
	kept := func(kids []int) []int {
		out := kids[:0:0]
		for _, k := range kids {
			if keep[k] {
				out = append(out, k)
			}
		}
		return out
	}
	var stack []treeRow
	push := func(kids []int, depth int) {
		kids = kept(kids)
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, treeRow{kids[i], depth})
		}
	}
	push(tr.src.Children(Root, q), 0)
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		tr.rows = append(tr.rows, it)
		if tr.src.HasChildren(it.node) {
			push(tr.src.Children(it.node, q), it.depth+1)
		}
	}
}

// Cell implements Rows: column 0 indented by depth, with the node's mark.
func (tr *Tree) Cell(i, c int) *tview.TableCell {
	r := tr.rows[i]
	cell := tr.src.Cell(r.node, c)
	if c != 0 || cell == nil {
		return cell
	}
	mark := "  "
	if tr.src.HasChildren(r.node) {
		mark = "▸ "
		if tr.filtered || tr.expanded[tr.src.Key(r.node)] {
			mark = "▾ "
		}
	}
	cell.Text = indent(r.depth) + mark + cell.Text
	return cell
}

// maxIndent is the deepest indentation drawn, in levels. A deeper row is
// drawn at it with its depth written out ("‹1234› "): a row of a 1 M-deep
// call path indented by depth would start off screen, and measuring and
// drawing its 2 MB of spaces cost seconds a key (issue 37 #14).
const maxIndent = 32

// indent is the text before a row's mark at depth.
func indent(depth int) string {
	if depth <= maxIndent {
		return strings.Repeat("  ", depth)
	}
	return strings.Repeat("  ", maxIndent-4) + "‹" + strconv.Itoa(depth) + "› "
}

// Key implements Rows.
func (tr *Tree) Key(i int) string { return tr.src.Key(tr.rows[i].node) }

// Node returns the node of row i (-1 when out of range), and Depth its
// depth.
func (tr *Tree) Node(i int) int {
	if i < 0 || i >= len(tr.rows) {
		return -1
	}
	return tr.rows[i].node
}

// Depth returns the depth of row i (0 for the top level).
func (tr *Tree) Depth(i int) int {
	if i < 0 || i >= len(tr.rows) {
		return 0
	}
	return tr.rows[i].depth
}

// Expanded reports whether node n is expanded.
func (tr *Tree) Expanded(n int) bool { return tr.expanded[tr.src.Key(n)] }

// SetExpanded expands or collapses node n and lays the rows out again.
func (tr *Tree) SetExpanded(n int, on bool) {
	if on {
		tr.expanded[tr.src.Key(n)] = true
	} else {
		delete(tr.expanded, tr.src.Key(n))
	}
	tr.table.Refresh()
}

// ExpandHotPath expands n and, from it, each HotChild in turn, and selects
// the last node of the path.
func (tr *Tree) ExpandHotPath(n int) {
	hp, ok := tr.src.(HotPather)
	if !ok || n < 0 {
		return
	}
	q := tr.table.Query()
	last := n
	for depth := 0; n >= 0 && tr.src.HasChildren(n) && depth < 1<<16; depth++ {
		tr.expanded[tr.src.Key(n)] = true
		next := hp.HotChild(n, q)
		if next < 0 {
			break
		}
		last, n = next, next
	}
	tr.table.Refresh()
	tr.table.SelectKey(tr.src.Key(last))
}

func (tr *Tree) selected() int { return tr.Node(tr.table.Selected()) }

// expand: a collapsed node opens; an open one gives the selection to its
// first child.
func (tr *Tree) expand() {
	n := tr.selected()
	switch {
	case n < 0 || !tr.src.HasChildren(n):
	case !tr.Expanded(n) && !tr.filtered:
		tr.SetExpanded(n, true)
	default:
		tr.table.Move(1)
	}
}

// collapse: an open node closes; a closed one or a leaf gives the
// selection to its parent.
func (tr *Tree) collapse() {
	i := tr.table.Selected()
	n := tr.Node(i)
	if n < 0 {
		return
	}
	if tr.src.HasChildren(n) && tr.Expanded(n) && !tr.filtered {
		tr.SetExpanded(n, false)
		return
	}
	for j := i - 1; j >= 0; j-- {
		if tr.rows[j].depth < tr.rows[i].depth {
			tr.table.Select(j)
			return
		}
	}
}

func (tr *Tree) toggle() {
	if n := tr.selected(); n >= 0 && tr.src.HasChildren(n) && !tr.filtered {
		tr.SetExpanded(n, !tr.Expanded(n))
	}
}

// treeOf returns the Tree shown by the frame's current page, if any.
func treeOf(f *Frame) *Tree {
	if t, ok := f.Current().(*Table); ok {
		if tr, ok := t.rows.(*Tree); ok {
			return tr
		}
	}
	return nil
}

// treeKeys are the tree's keys in its table's scope.
func (tr *Tree) treeKeys(f *Frame, scope string) []keymap.Binding {
	on := func(fn func(*Tree)) func() {
		return func() {
			if scope == "" {
				fn(tr)
			} else if c := treeOf(f); c != nil {
				fn(c)
			}
		}
	}
	g := "Tree"
	expand, collapse := on((*Tree).expand), on((*Tree).collapse)
	bs := []keymap.Binding{
		keymap.Bind(tcell.KeyRight, 0, "→/l", "expand (or go to the first child)", g, expand).As("expand").In(scope),
		keymap.Alias(tcell.KeyRune, 'l', expand).As("expand").In(scope),
		keymap.Bind(tcell.KeyLeft, 0, "←/h", "collapse (or go to the parent)", g, collapse).As("collapse").In(scope),
		keymap.Alias(tcell.KeyRune, 'h', collapse).As("collapse").In(scope),
		keymap.Bind(tcell.KeyRune, ' ', "Space", "expand / collapse", g, on((*Tree).toggle)).As("toggle").In(scope),
	}
	if _, ok := tr.src.(HotPather); ok {
		bs = append(bs, keymap.Bind(tcell.KeyRune, '*', "*", "expand the hot path below the selected node", g,
			on(func(c *Tree) { c.ExpandHotPath(c.selected()) })).As("hot-path").In(scope))
	}
	return bs
}
