package heapdump

// DominatorTree is the query over the dominator tree (D7, D10).
type DominatorTree struct{ h *Heap }

// Dominators returns the dominator tree's query.
func (h *Heap) Dominators() DominatorTree { return DominatorTree{h} }

// kids returns the nodes n immediately dominates, in DFS order.
func (d DominatorTree) kids(n Node) []int32 {
	slot := domSlot(int32(n), d.h.n)
	return d.h.domKids[d.h.domOff[slot]:d.h.domOff[slot+1]]
}

// NumChildren returns how many nodes n immediately dominates (SuperRoot:
// the top dominators).
func (d DominatorTree) NumChildren(n Node) int { return len(d.kids(n)) }

// Children returns the nodes n immediately dominates (SuperRoot: the top
// dominators, D10), by retained size descending, then id.
func (d DominatorTree) Children(n Node) []Node {
	kids := d.kids(n)
	out := make([]Node, len(kids))
	for i, k := range kids {
		out[i] = Node(k)
	}
	byRetained(d.h, out)
	return out
}

// Top returns the first max top dominators (D10); max <= 0: all.
func (d DominatorTree) Top(max int) []Node {
	h := d.h
	kids := d.kids(SuperRoot)
	if max <= 0 || len(kids) <= max {
		return d.Children(SuperRoot)
	}
	// A dump has hundreds of thousands of roots: keep the max largest in
	// a heap whose top is the least of them, rather than sort them all.
	before := func(a, b Node) bool { // a comes before b in D10's order
		ra, rb := h.Retained(a), h.Retained(b)
		return ra > rb || ra == rb && h.ID(a) < h.ID(b)
	}
	top := make([]Node, 0, max)
	down := func(i int) {
		for {
			least, l, r := i, 2*i+1, 2*i+2
			if l < len(top) && before(top[least], top[l]) {
				least = l
			}
			if r < len(top) && before(top[least], top[r]) {
				least = r
			}
			if least == i {
				return
			}
			top[i], top[least] = top[least], top[i]
			i = least
		}
	}
	for _, k := range kids {
		x := Node(k)
		switch {
		case len(top) < max:
			top = append(top, x)
			for i := len(top) - 1; i > 0 && before(top[(i-1)/2], top[i]); i = (i - 1) / 2 {
				top[i], top[(i-1)/2] = top[(i-1)/2], top[i]
			}
		case before(x, top[0]):
			top[0] = x
			down(0)
		}
	}
	byRetained(h, top)
	return top
}
