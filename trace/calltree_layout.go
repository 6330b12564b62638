package trace

import "slices"

// done ends the growth: the nodes are renumbered in depth-first order in
// their own pages (so a node's subtree is the nodes from it up to its End,
// and a walk reads memory in order), their links become their subtree's
// end and their parent, the self times are kept only where the children's
// inclusive times do not give them, and the lookup table goes. Nothing as
// large as the nodes is allocated: they move through a window of at most
// 1/32 of them (layout), in buf (grown as needed and handed back for the
// next tree; nil for none).
func (t *CallTree) done(buf *layoutBuffer) {
	if !t.building {
		return
	}
	t.keepUnderivedSelf()
	n := int32(t.nodes.len())
	// 1. Number the nodes depth first along the sibling lists. Once a node
	// is numbered its links are spent (its children are on the stack, and
	// its next sibling was read when its parent was numbered), so they
	// take its new number (a) and its parent's (b).
	stack := []int32{0}
	t.nodes.at(0).b = -1
	for next := int32(0); len(stack) > 0; next++ {
		old := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := t.nodes.at(old)
		first := nd.a
		nd.a = next
		k := len(stack)
		for c := first; c >= 0; {
			cn := t.nodes.at(c)
			stack = append(stack, c)
			c, cn.b = cn.b, next
		}
		slices.Reverse(stack[k:]) // the first child is numbered first
	}
	// 2. The side tables follow their nodes.
	renumber(t.nodes, &t.big)
	renumber(t.nodes, &t.self)
	renumber(t.nodes, &t.bigCalls)
	renumber(t.nodes, &t.bigMethod)
	// 3. Move every node to its number.
	if buf == nil {
		buf = &layoutBuffer{}
	}
	t.layout(n, buf)
	// 4. Each node's end: one past itself, or past its last descendant
	// (children come after their parent, so one backward pass sets them).
	for i := n - 1; i >= 0; i-- {
		nd := t.nodes.at(i)
		nd.a = max(nd.a, i+1)
		if i > 0 {
			p := t.nodes.at(nd.b)
			p.a = max(p.a, nd.a)
		}
	}
	t.wide, t.building = indexTable{}, false
}

// layoutWindow is the fewest nodes layout moves at a time.
var layoutWindow int32 = 1 << 16

// layoutBuffer is layout's working memory, kept from one tree to the next.
type layoutBuffer struct {
	nodes []treeNode
	holes []int32
}

// layout moves every node to its number (its a link), window by window of
// numbers, each window w = max(layoutWindow, n/32) nodes: the nodes of the
// window are gathered from where they are into the buffer, the nodes
// sitting in the window's places but numbered past it go to the places the
// gathered ones left, and the buffer is copied into the window. The
// windows before are in place, so each pass reads only the nodes after
// them, in order: about n²/2w reads in all, at most 16 passes over the
// nodes, with memory reads in order instead of one cache miss per node.
func (t *CallTree) layout(n int32, buf *layoutBuffer) {
	w := max(layoutWindow, (n+31)/32)
	if int32(cap(buf.nodes)) < min(w, n) {
		buf.nodes = make([]treeNode, min(w, n))
	}
	win := buf.nodes[:cap(buf.nodes)]
	for lo := int32(0); lo < n; lo += w {
		hi := min(lo+w, n)
		holes := buf.holes[:0]
		for p := lo; p < n; {
			pg, first := t.nodes.pageOf(p)
			for k := range pg[first:] {
				if nd := &pg[first+k]; nd.a < hi {
					win[nd.a-lo] = *nd
					if p+int32(k) >= hi {
						holes = append(holes, p+int32(k))
					}
				}
			}
			p += int32(len(pg) - first)
		}
		k := 0
		for p := lo; p < hi; p++ {
			if nd := t.nodes.at(p); nd.a >= hi {
				*t.nodes.at(holes[k]) = *nd
				k++
			}
		}
		rest := win[:hi-lo]
		for p := lo; p < hi; {
			pg, first := t.nodes.pageOf(p)
			c := copy(pg[first:], rest)
			rest = rest[c:]
			p += int32(c)
		}
		buf.holes = holes
	}
}

// renumber moves the keys of a side table from the nodes' old numbers to
// their new ones (in their a links, between steps 1 and 3 of done).
func renumber[V any](nodes paged[treeNode], m *map[int32]V) {
	if len(*m) == 0 {
		*m = nil
		return
	}
	out := make(map[int32]V, len(*m))
	for k, v := range *m {
		out[nodes.at(k).a] = v
	}
	*m = out
}

// keepUnderivedSelf keeps, of the root's and its children's self times,
// those their children's inclusive times do not give.
func (t *CallTree) keepUnderivedSelf() {
	if t.self == nil {
		t.self = map[int32][2]uint32{}
	}
	for _, i := range append([]int32{0}, t.childrenWhileBuilding(0)...) {
		var sum [2]uint64
		for _, c := range t.childrenWhileBuilding(i) {
			sum[0] += t.Inclusive(c, 0)
			sum[1] += t.Inclusive(c, 1)
		}
		self := t.self[i]
		if derives(t.Inclusive(i, 0), sum[0], self[0]) && derives(t.Inclusive(i, 1), sum[1], self[1]) {
			delete(t.self, i)
		} else {
			t.self[i] = self
		}
	}
}

// childrenWhileBuilding lists the children of node i while the tree grows.
func (t *CallTree) childrenWhileBuilding(i int32) []int32 {
	var out []int32
	for c := t.nodes.at(i).a; c >= 0; c = t.nodes.at(c).b {
		out = append(out, c)
	}
	return out
}

// derives says whether self is incl minus the children's sum, as Self
// computes it.
func derives(incl, children uint64, self uint32) bool {
	return children <= incl && incl-children == uint64(self) && self != maxTime
}
