package trace

import "slices"

// done ends the growth: the nodes are renumbered in depth-first order in
// their own pages (so a node's subtree is the nodes from it up to its End,
// and a walk reads memory in order), their links become their subtree's
// end and their parent, the self times are kept only where the children's
// inclusive times do not give them, and the lookup table goes. Nothing as
// large as the nodes is kept: they move through buf (grown as needed and
// handed back for the next tree; nil for none) or, past layoutBufferNodes,
// in place.
func (t *CallTree) done(buf *[]treeNode) {
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
	// 3. Move every node to its number, and set each node's end: one
	// past itself, or past its last descendant (children come after
	// their parent, so one backward pass sets them).
	if int(n) <= layoutBufferNodes {
		if buf == nil {
			buf = new([]treeNode)
		}
		t.layoutThroughBuffer(n, buf)
	} else {
		t.layoutInPlace(n)
	}
	t.wide, t.building = indexTable{}, false
}

// layoutBufferNodes is the largest tree laid out through a buffer of its
// own size (a few MiB for most threads: the writes land in cache); a larger
// one is laid out in place, more slowly but with no second copy.
var layoutBufferNodes = 1 << 20

// layoutThroughBuffer writes each node at its number in *bp, sets the
// ends there and copies the buffer back over the pages in order.
func (t *CallTree) layoutThroughBuffer(n int32, bp *[]treeNode) {
	if cap(*bp) < int(n) {
		*bp = make([]treeNode, n, max(n, 1<<12))
	}
	buf := (*bp)[:n]
	for _, pg := range t.nodes.pages {
		for k := range pg {
			buf[pg[k].a] = pg[k]
		}
	}
	for i := n - 1; i >= 0; i-- {
		nd := &buf[i]
		nd.a = max(nd.a, i+1)
		if i > 0 {
			p := &buf[nd.b]
			p.a = max(p.a, nd.a)
		}
	}
	rest := buf
	for _, pg := range t.nodes.pages {
		rest = rest[copy(pg, rest):]
	}
}

// layoutInPlace moves the nodes to their numbers along the permutation's
// cycles (each swap puts one node in its place for good), then sets the
// ends.
func (t *CallTree) layoutInPlace(n int32) {
	for i := range n {
		for {
			a := t.nodes.at(i)
			d := a.a
			if d == i {
				break
			}
			b := t.nodes.at(d)
			*a, *b = *b, *a
		}
	}
	for i := n - 1; i >= 0; i-- {
		nd := t.nodes.at(i)
		nd.a = max(nd.a, i+1)
		if i > 0 {
			p := t.nodes.at(nd.b)
			p.a = max(p.a, nd.a)
		}
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
