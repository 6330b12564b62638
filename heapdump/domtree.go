package heapdump

import "slices"

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
	// The max-th largest retained size bounds the candidates, so only
	// they are sorted (a dump has hundreds of thousands of roots).
	sizes := make([]uint64, len(kids))
	for i, k := range kids {
		sizes[i] = h.Retained(Node(k))
	}
	slices.Sort(sizes)
	bound := sizes[len(sizes)-max]
	var out []Node
	for _, k := range kids {
		if h.Retained(Node(k)) >= bound {
			out = append(out, Node(k))
		}
	}
	byRetained(h, out)
	return out[:max]
}
