package hprofref

// Dominators (D7) two ways: dominatorSets solves the data-flow equations
// that define them, for Analyze; DominatedBy applies the definition to one
// node by taking it out of the graph. The tests check that they agree on
// every node, and both against an enumeration of every path on small
// graphs.

// graph is the strong-edge graph of the reachable nodes, over indices into
// order (breadth-first from the super-root).
type graph struct {
	order []uint64       // reachable node ids, roots first
	index map[uint64]int // id -> position in order
	roots []int          // the super-root's children
	succ  [][]int        // strong edges (D4) between reachable nodes
	pred  [][]int
}

func (a *Analysis) reachableGraph() *graph {
	g := &graph{index: map[uint64]int{}}
	// Reachable nodes in breadth-first order: by depth, then file order.
	for depth := 1; ; depth++ {
		n := len(g.order)
		for _, id := range a.D.Order {
			if a.Depth[id] == depth {
				g.index[id] = len(g.order)
				g.order = append(g.order, id)
			}
		}
		if len(g.order) == n {
			break
		}
	}
	g.succ = make([][]int, len(g.order))
	g.pred = make([][]int, len(g.order))
	for _, id := range a.RootSet {
		g.roots = append(g.roots, g.index[id])
	}
	for i, id := range g.order {
		for _, e := range a.D.Edges(a.D.Nodes[id]) {
			j := g.index[e.To] // every target of a reachable node is reachable
			g.succ[i] = append(g.succ[i], j)
			g.pred[j] = append(g.pred[j], i)
		}
	}
	return g
}

// bitset is a set of indices into graph.order.
type bitset []uint64

func newBitset(n int, full bool) bitset {
	b := make(bitset, (n+63)/64)
	if full {
		for i := range b {
			b[i] = ^uint64(0)
		}
	}
	return b
}

func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// dominatorSets returns every reachable node's strict dominators (the
// super-root left out), from the equations that define dominance:
//
//	Dom(super-root) = {super-root}
//	Dom(v) = {v} ∪ ⋂ Dom(p) over the predecessors p of v
//
// (the super-root is a predecessor of every root node and class object),
// solved from "every node" down to the greatest fixed point by repeating
// passes until nothing changes. d ∈ Dom(v) says that every path from the
// super-root to v passes through d: the definition of D7.
func (a *Analysis) dominatorSets() map[uint64][]uint64 {
	g := a.reachableGraph()
	n := len(g.order)
	isRoot := make([]bool, n)
	for _, r := range g.roots {
		isRoot[r] = true
	}
	dom := make([]bitset, n)
	for v := range dom {
		// A root's predecessors include the super-root, whose Dom holds no
		// node: Dom(root) = {root}.
		dom[v] = newBitset(n, !isRoot[v])
		dom[v].set(v)
	}
	for changed := true; changed; {
		changed = false
		for v := range n {
			if isRoot[v] {
				continue
			}
			next := newBitset(n, true)
			for _, p := range g.pred[v] {
				for w := range next {
					next[w] &= dom[p][w]
				}
			}
			next.set(v)
			for w := range next {
				if next[w] != dom[v][w] {
					changed = true
					dom[v] = next
					break
				}
			}
		}
	}
	out := map[uint64][]uint64{}
	for v := range n {
		for d := range n {
			if d != v && dom[v].has(d) {
				out[g.order[v]] = append(out[g.order[v]], g.order[d])
			}
		}
	}
	return out
}

// DominatedBy returns the nodes d dominates (d excluded) by the definition:
// those no longer reachable from the super-root once d is taken out of the
// graph. It is nil when d is not reachable.
func (a *Analysis) DominatedBy(d uint64) []uint64 {
	if !a.Reachable(d) {
		return nil
	}
	reached := map[uint64]bool{}
	var stack []uint64
	visit := func(id uint64) {
		if id != d && !reached[id] {
			reached[id] = true
			stack = append(stack, id)
		}
	}
	for _, r := range a.RootSet {
		visit(r)
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range a.D.Edges(a.D.Nodes[v]) {
			visit(e.To)
		}
	}
	var out []uint64
	for _, id := range a.D.Order {
		if a.Reachable(id) && id != d && !reached[id] {
			out = append(out, id)
		}
	}
	return out
}
