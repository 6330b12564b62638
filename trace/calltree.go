package trace

import (
	"iter"
	"slices"
)

// CallTree is one thread's top-down calling-context tree, in flat arrays:
// a node per distinct call path from the thread's top level, linked by
// int32 indexes (parent, first child, next sibling), so its memory is
// proportional to the distinct paths (36 bytes each), not to the records.
// Node 0 is the root and stands for the top level; nodes are numbered in
// depth-first order, so a node's subtree follows it. Recursion is not folded (a;b;a is a path of its
// own). Every algorithm over it is iterative, so a 100,000-deep path needs
// no deep Go stack.
//
// A node's Calls are the calls that ended on its path, Inclusive their
// time, and Self the time spent on top of the stack in that exact path (its
// exclusive time). The root's Inclusive is the traced time (last record −
// first), its Self the time with an empty stack. Self summed over the nodes
// of a method equals its exclusive time in the flat profile, by the same
// rules (spec §4): a trace that starts mid-call, frames open at the end,
// unbalanced exits, unknown method ids, zero and backward time deltas.
//
// TreeView shows these trees merged over threads and bottom up.
type CallTree struct {
	Nodes []CallNode
	// Records that the tree could not place where they happened: exits
	// with an empty stack (entered before tracing; placed under the root
	// as calls from the trace's start) and exits of a method that was not
	// on the stack (ignored). The viewer and the JSON report them.
	FromStart, Ignored int64
	// While the tree grows, its nodes are in pages (no copying as it
	// grows); done makes Nodes. A node's children are found by walking
	// its sibling list, most recently used first; the children of a node
	// with more than wideChildren of them are also in wide.
	build    paged[CallNode]
	building bool
	wide     indexTable // parent<<32 | method → node, for wide parents
	// big holds the inclusive times of the nodes whose sum passed 32 bits
	// (only calls from the trace's start, which overlap, can: they are
	// the root's children); their Inclusive reads 2³²−1.
	big map[int32][2]uint64
}

// CallNode is one node of a CallTree: 36 bytes. Times are µs on each
// clock and fit 32 bits as the records' times do: the calls of one path do
// not overlap, so their sum is at most the thread's traced time. Calls from
// the trace's start may overlap: a sum of theirs past 32 bits reads
// 2³²−1 here and whole from CallTree.Inclusive.
type CallNode struct {
	Parent      int32 // -1 for the root
	Method      int32 // profile index; TopLevel for the root
	FirstChild  int32 // -1: none
	NextSibling int32 // -1: none
	Calls       uint32
	Inclusive   [2]uint32
	Self        [2]uint32
}

// wideChildren is how many children a node's sibling list is walked for
// before the lookup table is asked.
const wideChildren = 16

func newCallTree() *CallTree {
	t := &CallTree{building: true}
	t.build.add(CallNode{Parent: -1, Method: TopLevel, FirstChild: -1, NextSibling: -1})
	return t
}

// node returns node i, while the tree grows or after.
func (t *CallTree) node(i int32) *CallNode {
	if t.building {
		return t.build.at(i)
	}
	return &t.Nodes[i]
}

// child returns the child of parent for method, adding it when it is new.
// The child found moves to the front of its siblings.
func (t *CallTree) child(parent, method int32) int32 {
	p := t.build.at(parent)
	prev, c := int32(-1), p.FirstChild
	for k := 0; c >= 0; k++ {
		if k == wideChildren {
			// A wide parent: all its children are in the table.
			if found := t.wide.get(wideKey(parent, method)); found >= 0 {
				return found
			}
			return t.addChild(parent, method, true)
		}
		n := t.build.at(c)
		if n.Method == method {
			if prev >= 0 {
				t.build.at(prev).NextSibling = n.NextSibling
				n.NextSibling = p.FirstChild
				p.FirstChild = c
			}
			return c
		}
		prev, c = c, n.NextSibling
	}
	return t.addChild(parent, method, false)
}

// addChild adds a new first child of parent; wide says the parent already
// has more than wideChildren children. When this child makes it so, all
// of them go into the table.
func (t *CallTree) addChild(parent, method int32, wide bool) int32 {
	p := t.build.at(parent)
	k := t.build.add(CallNode{Parent: parent, Method: method, FirstChild: -1, NextSibling: p.FirstChild})
	p = t.build.at(parent)
	p.FirstChild = k
	if wide {
		t.wide.getOrPut(wideKey(parent, method), k)
		return k
	}
	n := 0
	for c := k; c >= 0; c = t.build.at(c).NextSibling {
		n++
	}
	if n > wideChildren {
		for c := k; c >= 0; c = t.build.at(c).NextSibling {
			t.wide.getOrPut(wideKey(parent, t.build.at(c).Method), c)
		}
	}
	return k
}

func wideKey(parent, method int32) uint64 { return uint64(uint32(parent))<<32 | uint64(uint32(method)) }

// addSat adds d to v, saturating at 2³²−1.
func addSat(v uint32, d uint64) uint32 {
	if s := uint64(v) + d; s < 1<<32 {
		return uint32(s)
	}
	return 1<<32 - 1
}

func (t *CallTree) addSelf(node int32, d [2]uint64) {
	n := t.node(node)
	n.Self[0] = addSat(n.Self[0], d[0])
	n.Self[1] = addSat(n.Self[1], d[1])
}

func (t *CallTree) addCall(node int32, el [2]uint64) {
	n := t.node(node)
	if n.Calls < 1<<32-1 {
		n.Calls++
	}
	sum := [2]uint64{t.Inclusive(node, 0) + el[0], t.Inclusive(node, 1) + el[1]}
	if sum[0] >= 1<<32-1 || sum[1] >= 1<<32-1 {
		if t.big == nil {
			t.big = map[int32][2]uint64{}
		}
		t.big[node] = sum
	}
	n.Inclusive[0] = uint32(min(sum[0], 1<<32-1))
	n.Inclusive[1] = uint32(min(sum[1], 1<<32-1))
}

// Inclusive is node n's inclusive time on clock c, whole.
func (t *CallTree) Inclusive(n int32, c Clock) uint64 {
	nd := t.node(n)
	if nd.Inclusive[c] == 1<<32-1 || nd.Inclusive[1-c] == 1<<32-1 {
		if v, ok := t.big[n]; ok {
			return v[c]
		}
	}
	return uint64(nd.Inclusive[c])
}

func (t *CallTree) swapClocks() {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		n.Inclusive[0], n.Inclusive[1] = n.Inclusive[1], n.Inclusive[0]
		n.Self[0], n.Self[1] = n.Self[1], n.Self[0]
	}
	for k, v := range t.big {
		t.big[k] = [2]uint64{v[1], v[0]}
	}
}

// done ends the growth: the nodes move from their pages into Nodes, of
// exactly their number, renumbered in depth-first order (so a node's
// subtree is the nodes from it up to its end, and a walk reads memory in
// order), and the lookup table goes.
func (t *CallTree) done() {
	if !t.building {
		return
	}
	// Into one slice, each page let go once copied (the peak is the nodes
	// and one page, not twice the nodes).
	n := t.build.len()
	t.Nodes = make([]CallNode, 0, n)
	for k, pg := range t.build.pages {
		t.Nodes = append(t.Nodes, pg...)
		t.build.pages[k] = nil
	}
	t.build, t.wide, t.building = paged[CallNode]{}, indexTable{}, false
	// Depth-first numbers, then the links renumbered, then the nodes moved
	// to their numbers in place (cycle by cycle).
	newIdx := make([]int32, n)
	next := int32(0)
	stack := []int32{0}
	for len(stack) > 0 {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		newIdx[o] = next
		next++
		k := len(stack)
		for c := t.Nodes[o].FirstChild; c >= 0; c = t.Nodes[c].NextSibling {
			stack = append(stack, c)
		}
		slices.Reverse(stack[k:]) // the first child is numbered first
	}
	remap := func(i int32) int32 {
		if i < 0 {
			return i
		}
		return newIdx[i]
	}
	for i := range t.Nodes {
		nd := &t.Nodes[i]
		nd.Parent, nd.FirstChild, nd.NextSibling = remap(nd.Parent), remap(nd.FirstChild), remap(nd.NextSibling)
	}
	if len(t.big) > 0 {
		big := make(map[int32][2]uint64, len(t.big))
		for k, v := range t.big {
			big[newIdx[k]] = v
		}
		t.big = big
	}
	for i := range newIdx {
		for newIdx[i] != int32(i) {
			j := newIdx[i]
			t.Nodes[i], t.Nodes[j] = t.Nodes[j], t.Nodes[i]
			newIdx[i], newIdx[j] = newIdx[j], newIdx[i]
		}
	}
}

// subtreeEnds returns, for each node, one past the last node of its
// subtree (Nodes are in depth-first order).
func (t *CallTree) subtreeEnds() []int32 {
	end := make([]int32, len(t.Nodes))
	for n := len(t.Nodes) - 1; n >= 0; n-- {
		end[n] = max(end[n], int32(n)+1)
		if p := t.Nodes[n].Parent; p >= 0 {
			end[p] = max(end[p], end[n])
		}
	}
	return end
}

// Children yields the children of node n in sibling order.
func (t *CallTree) Children(n int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for c := t.Nodes[n].FirstChild; c >= 0; c = t.Nodes[c].NextSibling {
			if !yield(c) {
				return
			}
		}
	}
}

// Depth is the number of nodes from the root's child down to n (0 for
// the root).
func (t *CallTree) Depth(n int32) int {
	d := 0
	for ; n > 0; n = t.Nodes[n].Parent {
		d++
	}
	return d
}

// Path returns the methods from the root's child down to node.
func (t *CallTree) Path(node int32) []int32 {
	rev := make([]int32, 0, 16)
	for n := node; n > 0; n = t.Nodes[n].Parent {
		rev = append(rev, t.Nodes[n].Method)
	}
	slices.Reverse(rev)
	return rev
}

// SortChildren orders every node's children by cmp (relinking the
// siblings), in O(n log n) over the tree.
func (t *CallTree) SortChildren(cmp func(a, b *CallNode) int) {
	var kids []int32
	for p := range t.Nodes {
		if t.Nodes[p].FirstChild < 0 {
			continue
		}
		kids = kids[:0]
		for c := t.Nodes[p].FirstChild; c >= 0; c = t.Nodes[c].NextSibling {
			kids = append(kids, c)
		}
		slices.SortStableFunc(kids, func(a, b int32) int { return cmp(&t.Nodes[a], &t.Nodes[b]) })
		t.Nodes[p].FirstChild = kids[0]
		for i, c := range kids {
			next := int32(-1)
			if i+1 < len(kids) {
				next = kids[i+1]
			}
			t.Nodes[c].NextSibling = next
		}
	}
}

// ByInclusive orders nodes by inclusive time on c, descending, then by
// method index: the order of the viewer and the JSON.
func ByInclusive(c Clock) func(a, b *CallNode) int {
	return func(a, b *CallNode) int {
		switch {
		case a.Inclusive[c] > b.Inclusive[c]:
			return -1
		case a.Inclusive[c] < b.Inclusive[c]:
			return 1
		}
		return int(a.Method) - int(b.Method)
	}
}

// Walk calls visit for every node but the root in depth-first pre-order,
// with its depth (1 for the root's children); when visit returns false the
// node's children are skipped. It needs no recursion.
func (t *CallTree) Walk(visit func(n int32, depth int) bool) {
	if len(t.Nodes) == 0 {
		return
	}
	n, depth := t.Nodes[0].FirstChild, 1
	for n >= 0 {
		if visit(n, depth) && t.Nodes[n].FirstChild >= 0 {
			n = t.Nodes[n].FirstChild
			depth++
			continue
		}
		for n > 0 && t.Nodes[n].NextSibling < 0 {
			n = t.Nodes[n].Parent
			depth--
		}
		if n <= 0 {
			return
		}
		n = t.Nodes[n].NextSibling
	}
}

// MethodTotals sums a tree's nodes per method: Self (the exclusive time),
// Calls, and Inclusive for the outermost nodes of each method only (as the
// flat profile counts it), RecursiveCalls for the others. The result is
// indexed by profile method index, with room for methods methods.
func (t *CallTree) MethodTotals(methods int) []Stats {
	out := make([]Stats, methods)
	onPath := make([]int32, methods) // nodes of each method on the walk's path
	var path []int32
	t.Walk(func(n int32, depth int) bool {
		for len(path) >= depth {
			onPath[t.Nodes[path[len(path)-1]].Method]--
			path = path[:len(path)-1]
		}
		nd := &t.Nodes[n]
		if int(nd.Method) >= methods {
			return false
		}
		s := &out[nd.Method]
		s.Calls += int64(nd.Calls)
		s.Exclusive[0] += uint64(nd.Self[0])
		s.Exclusive[1] += uint64(nd.Self[1])
		if onPath[nd.Method] == 0 {
			s.Inclusive[0] += t.Inclusive(n, 0)
			s.Inclusive[1] += t.Inclusive(n, 1)
		} else {
			s.RecursiveCalls += int64(nd.Calls)
		}
		onPath[nd.Method]++
		path = append(path, n)
		return true
	})
	return out
}
