package heapview

import (
	"fmt"
	"strconv"

	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// maxChildrenShown bounds the children a dominator lists (a large array
// dominates every element); a row says how many more there are.
const maxChildrenShown = 500

// domTree is the dominator tree as a viewer.TreeSource: the top
// dominators (the largest maxTopDominators), and under each node the nodes
// it immediately dominates, by retained size. Node numbers are the
// analysis's; numbers from NumNodes on stand for the "… more" rows. A
// node's children are sorted the first time it is opened, and kept.
type domTree struct {
	m    *Model
	tree *viewer.Tree
	kids map[int][]int
	more map[int]moreRow
}

// moreRow stands for the children a node lists no more of.
type moreRow struct {
	count int
	bytes uint64
}

func (d *domTree) Columns() []viewer.Column {
	return []viewer.Column{
		{Title: "OBJECT", Expand: 1},
		{Title: "RETAINED", Align: tview.AlignRight},
		{Title: "% HEAP", Align: tview.AlignRight},
		{Title: "SHALLOW", Align: tview.AlignRight},
		{Title: "HEAP"},
	}
}

// Children lists a node's dominated nodes. While a filter is typed, only
// the nodes opened by hand are searched (the tree of a million objects is
// not walked on a key).
func (d *domTree) Children(parent int, q viewer.Query) []int {
	if parent >= d.m.Heap.NumNodes() {
		return nil
	}
	if parent != viewer.Root && q.Filter != "" && !d.tree.Expanded(parent) {
		return nil
	}
	if k, ok := d.kids[parent]; ok {
		return k
	}
	if d.kids == nil {
		d.kids, d.more = map[int][]int{}, map[int]moreRow{}
	}
	var out []int
	if parent == viewer.Root {
		for _, n := range d.m.top {
			out = append(out, int(n))
		}
		if all := d.count(parent); all > len(out) {
			out = d.addMore(out, all-len(out), parent)
		}
	} else {
		ks := d.m.Heap.Dominators().Children(heapdump.Node(parent))
		nodes := make([]int, len(ks))
		for i, k := range ks {
			nodes[i] = int(k)
		}
		out = nodes
		if len(nodes) > maxChildrenShown {
			out = d.addMore(nodes[:maxChildrenShown:maxChildrenShown], len(nodes)-maxChildrenShown, parent)
		}
	}
	d.kids[parent] = out
	return out
}

// addMore appends a "… more" row for the rest of parent's children.
func (d *domTree) addMore(out []int, rest int, parent int) []int {
	h := d.m.Heap
	var bytes uint64
	// The children of a node retain all it retains but itself; those of
	// the super-root, every reachable byte.
	total := d.m.reachable
	if parent != viewer.Root {
		total = h.Retained(heapdump.Node(parent)) - h.Shallow(heapdump.Node(parent))
	}
	for _, n := range out {
		bytes += h.Retained(heapdump.Node(n))
	}
	id := h.NumNodes() + len(d.more)
	d.more[id] = moreRow{count: rest, bytes: total - bytes}
	return append(out, id)
}

// count is the number of nodes parent immediately dominates.
func (d *domTree) count(parent int) int {
	return d.m.Heap.Dominators().NumChildren(heapdump.Node(parent))
}

func (d *domTree) HasChildren(n int) bool {
	return n >= 0 && n < d.m.Heap.NumNodes() && d.count(n) > 0
}

func (d *domTree) Cell(n, c int) *tview.TableCell {
	h := d.m.Heap
	if n >= h.NumNodes() {
		mr := d.more[n]
		switch c {
		case 0:
			return cell(fmt.Sprintf("… %s more", count(mr.count)))
		case 1:
			return cell(size(mr.bytes))
		case 2:
			return cell(percent(mr.bytes, d.m.reachable))
		}
		return nil
	}
	x := heapdump.Node(n)
	switch c {
	case 0:
		return cell(label(h, x))
	case 1:
		return cell(size(h.Retained(x)))
	case 2:
		return cell(percent(h.Retained(x), d.m.reachable))
	case 3:
		return cell(size(h.Shallow(x)))
	case 4:
		return cell(h.HeapName(x))
	}
	return nil
}

func (d *domTree) Key(n int) string {
	if n >= d.m.Heap.NumNodes() {
		return ""
	}
	return strconv.Itoa(n)
}

func (d *domTree) Match(n int, filter string) bool {
	if n >= d.m.Heap.NumNodes() {
		return false
	}
	return passes(label(d.m.Heap, heapdump.Node(n)), filter)
}

// HotChild follows the largest retained child (*).
func (d *domTree) HotChild(n int, q viewer.Query) int {
	k := d.Children(n, q)
	if len(k) == 0 || k[0] >= d.m.Heap.NumNodes() {
		return -1
	}
	return k[0]
}
