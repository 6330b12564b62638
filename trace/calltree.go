package trace

import (
	"iter"
	"slices"
)

// CallTree is one thread's top-down calling-context tree: a node per
// distinct call path from the thread's top level, so its memory is
// proportional to the distinct paths (20 bytes each), not to the records.
// Node 0 is the root and stands for the top level; nodes are numbered in
// depth-first order, so a node's subtree is the range from it up to its
// End, its first child (if any) is the next node, and the next sibling of
// a child is the child's End. Recursion is not folded (a;b;a is a path of
// its own). Every algorithm over it is iterative, so a 100,000-deep path
// needs no deep Go stack.
//
// A node's Calls are the calls that ended on its path, Inclusive their
// time, and Self (a method) the time spent on top of the stack in that
// exact path (its exclusive time). The root's Inclusive is the traced time
// (last record − first), its Self the time with an empty stack. Self
// summed over the nodes of a method equals its exclusive time in the flat
// profile, by the same rules (spec §4): a trace that starts mid-call,
// frames open at the end, unbalanced exits, unknown method ids, zero and
// backward time deltas.
//
// TreeView shows these trees merged over threads and bottom up.
type CallTree struct {
	// Records that the tree could not place where they happened: exits
	// with an empty stack (entered before tracing; placed under the root
	// as calls from the trace's start) and exits of a method that was not
	// on the stack (ignored). The viewer and the JSON report them.
	FromStart, Ignored int64
	// The nodes, in pages (no copying as the tree grows, and done lays
	// them out depth first in the same pages). While the tree grows a
	// node's children are found by walking its sibling list, most
	// recently used first; the children of a node with more than
	// wideChildren of them are also in wide.
	nodes    paged[treeNode]
	building bool
	wide     indexTable // parent<<32 | local method → node, for wide parents
	// methods maps the nodes' local method numbers to profile indexes.
	methods []int32
	// Side tables for what does not fit a node's narrow fields:
	// bigMethod holds the local method numbers from wideLocal on (the
	// node's reads wideLocal), bigCalls the call counts from 2¹⁶−1 on
	// (the node's reads 2¹⁶−1).
	bigMethod map[int32]int32
	bigCalls  map[int32]uint64
	// big holds the inclusive times of the nodes whose sum passed 32 bits
	// (only calls from the trace's start, which overlap, can: they are
	// the root's children); their node's reads 2³²−1.
	big map[int32][2]uint64
	// self holds the self times (saturated at 2³²−1) of the nodes where
	// it is not their inclusive time minus their children's. Only the root
	// and its children can be such: calls from the trace's start are the
	// root's children, they begin at time 0 and their callees are the
	// root's. Every other call is entered after the trace's first record
	// and its callees run inside it, on times that never go backwards
	// (ProfileBuilder.add), so its time is its self time plus its callees'.
	// While the tree grows, self holds the root's and its children's.
	self map[int32][2]uint32
}

// treeNode is one node of a CallTree: 20 bytes. Times are µs on each
// clock and fit 32 bits as the records' times do: the calls of one path do
// not overlap, so their sum is at most the thread's traced time. Calls from
// the trace's start may overlap: a sum of theirs past 32 bits is in
// CallTree.big. The self time is not stored: CallTree.Self derives it.
type treeNode struct {
	method uint16 // local method number (CallTree.methods); wideLocal: see bigMethod
	calls  uint16 // maxCalls: see bigCalls
	// While the tree grows: first child and next sibling (-1: none).
	// After done: the end of the node's subtree and its parent (-1 for
	// the root).
	a, b      int32
	inclusive [2]uint32
}

const (
	wideLocal = 1<<16 - 1 // treeNode.method of a local number in bigMethod
	maxCalls  = 1<<16 - 1 // treeNode.calls of a count in bigCalls
	maxTime   = 1<<32 - 1 // treeNode.inclusive of a sum in big
)

// wideChildren is how many children a node's sibling list is walked for
// before the lookup table is asked.
const wideChildren = 16

func newCallTree() *CallTree {
	t := &CallTree{building: true, methods: []int32{TopLevel}}
	t.nodes.add(treeNode{a: -1, b: -1})
	return t
}

// Len is the number of nodes, the root included.
func (t *CallTree) Len() int { return t.nodes.len() }

// Method is node n's method (profile index; TopLevel for the root).
func (t *CallTree) Method(n int32) int32 { return t.methods[t.local(n)] }

// local is node n's local method number.
func (t *CallTree) local(n int32) int32 {
	if m := t.nodes.at(n).method; m != wideLocal {
		return int32(m)
	}
	return t.bigMethod[n]
}

// Calls is the number of calls that ended on node n's path.
func (t *CallTree) Calls(n int32) int64 {
	if c := t.nodes.at(n).calls; c != maxCalls {
		return int64(c)
	}
	return int64(t.bigCalls[n])
}

// End is one past the last node of node n's subtree.
func (t *CallTree) End(n int32) int32 { return t.nodes.at(n).a }

// Parent is node n's parent, -1 for the root.
func (t *CallTree) Parent(n int32) int32 { return t.nodes.at(n).b }

// child returns the child of parent for method m, adding it when it is
// new. local is m's local number: the caller numbers the methods densely
// from 1 (0 is the root's). The child found moves to the front of its
// siblings.
func (t *CallTree) child(parent, local, m int32) int32 {
	want := uint16(min(local, wideLocal))
	p := t.nodes.at(parent)
	prev, c, k := int32(-1), p.a, 0
	for ; c >= 0; k++ {
		if k == wideChildren {
			// A wide parent: all its children are in the table.
			if found := t.wide.get(wideKey(parent, local)); found >= 0 {
				return found
			}
			return t.addChild(parent, local, m, -1)
		}
		n := t.nodes.at(c)
		if n.method == want && (want != wideLocal || t.bigMethod[c] == local) {
			if prev >= 0 {
				t.nodes.at(prev).b = n.b
				n.b = p.a
				p.a = c
			}
			return c
		}
		prev, c = c, n.b
	}
	return t.addChild(parent, local, m, k)
}

// addChild adds a new first child of parent, which had siblings children
// before (-1: more than wideChildren, all in the table). When this child
// makes them more than wideChildren, all of them go into the table.
func (t *CallTree) addChild(parent, local, m int32, siblings int) int32 {
	for int(local) >= len(t.methods) {
		t.methods = append(t.methods, Unknown)
	}
	t.methods[local] = m
	k := t.nodes.add(treeNode{method: uint16(min(local, wideLocal)), a: -1, b: t.nodes.at(parent).a})
	if local >= wideLocal {
		if t.bigMethod == nil {
			t.bigMethod = map[int32]int32{}
		}
		t.bigMethod[k] = local
	}
	t.nodes.at(parent).a = k
	if siblings < 0 {
		t.wide.getOrPut(wideKey(parent, local), k)
		return k
	}
	if siblings+1 > wideChildren {
		for c := k; c >= 0; c = t.nodes.at(c).b {
			t.wide.getOrPut(wideKey(parent, t.local(c)), c)
		}
	}
	return k
}

func wideKey(parent, local int32) uint64 { return uint64(uint32(parent))<<32 | uint64(uint32(local)) }

// addSat adds d to v, saturating at 2³²−1.
func addSat(v uint32, d uint64) uint32 {
	if s := uint64(v) + d; s < 1<<32 {
		return uint32(s)
	}
	return maxTime
}

// addSelf adds d to the self time of node, while the tree grows; top says
// the node is the root or one of its children. Only theirs are kept (see
// CallTree.self).
func (t *CallTree) addSelf(node int32, top bool, d [2]uint64) {
	if !top {
		return
	}
	if t.self == nil {
		t.self = map[int32][2]uint32{}
	}
	s := t.self[node]
	t.self[node] = [2]uint32{addSat(s[0], d[0]), addSat(s[1], d[1])}
}

// addCall counts a call of el µs on node's path.
func (t *CallTree) addCall(node int32, el [2]uint64) {
	nd := t.nodes.at(node)
	if nd.calls < maxCalls-1 {
		nd.calls++
	} else {
		if t.bigCalls == nil {
			t.bigCalls = map[int32]uint64{}
		}
		if nd.calls == maxCalls-1 {
			nd.calls = maxCalls
			t.bigCalls[node] = maxCalls - 1
		}
		t.bigCalls[node]++
	}
	if s0, s1 := uint64(nd.inclusive[0])+el[0], uint64(nd.inclusive[1])+el[1]; s0 < maxTime && s1 < maxTime && nd.inclusive[0] != maxTime && nd.inclusive[1] != maxTime {
		nd.inclusive = [2]uint32{uint32(s0), uint32(s1)}
		return
	}
	t.setInclusive(node, [2]uint64{t.Inclusive(node, 0) + el[0], t.Inclusive(node, 1) + el[1]})
}

// setInclusive sets node's inclusive times, in big when they do not fit.
func (t *CallTree) setInclusive(node int32, v [2]uint64) {
	nd := t.nodes.at(node)
	if v[0] >= maxTime || v[1] >= maxTime {
		if t.big == nil {
			t.big = map[int32][2]uint64{}
		}
		t.big[node] = v
	} else if t.big != nil {
		delete(t.big, node)
	}
	nd.inclusive = [2]uint32{uint32(min(v[0], maxTime)), uint32(min(v[1], maxTime))}
}

// Inclusive is node n's inclusive time on clock c, whole.
func (t *CallTree) Inclusive(n int32, c Clock) uint64 {
	incl := &t.nodes.at(n).inclusive
	if incl[c] == maxTime || incl[1-c] == maxTime {
		if v, ok := t.big[n]; ok {
			return v[c]
		}
	}
	return uint64(incl[c])
}

// Self is node n's self time on clock c: the time spent on top of the
// stack in its path. It is its inclusive time minus its children's,
// except where the tree keeps it (CallTree.self). It costs a step per
// child.
func (t *CallTree) Self(n int32, c Clock) uint64 {
	if s, ok := t.self[n]; ok {
		return uint64(s[c])
	}
	v := t.Inclusive(n, c)
	for k := n + 1; k < t.End(n); k = t.End(k) {
		v -= t.Inclusive(k, c)
	}
	return v
}

func (t *CallTree) swapClocks() {
	for pg := range t.nodes.pages {
		for i := range t.nodes.pages[pg] {
			n := &t.nodes.pages[pg][i]
			n.inclusive[0], n.inclusive[1] = n.inclusive[1], n.inclusive[0]
		}
	}
	for k, v := range t.big {
		t.big[k] = [2]uint64{v[1], v[0]}
	}
	for k, v := range t.self {
		t.self[k] = [2]uint32{v[1], v[0]}
	}
}

// Children yields the children of node n in order.
func (t *CallTree) Children(n int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		end := t.End(n)
		for c := n + 1; c < end; c = t.End(c) {
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
	for ; n > 0; n = t.Parent(n) {
		d++
	}
	return d
}

// Path returns the methods from the root's child down to node.
func (t *CallTree) Path(node int32) []int32 {
	rev := make([]int32, 0, 16)
	for n := node; n > 0; n = t.Parent(n) {
		rev = append(rev, t.Method(n))
	}
	slices.Reverse(rev)
	return rev
}

// Walk calls visit for every node but the root in depth-first pre-order,
// with its depth (1 for the root's children); when visit returns false the
// node's children are skipped. It needs no recursion.
func (t *CallTree) Walk(visit func(n int32, depth int) bool) {
	if t.Len() == 0 {
		return
	}
	ends := make([]int32, 0, 64) // the ends of the nodes on the path
	ends = append(ends, t.End(0))
	for n := int32(1); n < t.End(0); {
		for ends[len(ends)-1] <= n {
			ends = ends[:len(ends)-1]
		}
		if visit(n, len(ends)) {
			ends = append(ends, t.End(n))
			n++
		} else {
			n = t.End(n)
		}
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
			onPath[t.Method(path[len(path)-1])]--
			path = path[:len(path)-1]
		}
		m := t.Method(n)
		if int(m) >= methods {
			return false
		}
		s := &out[m]
		s.Calls += t.Calls(n)
		s.Exclusive[0] += t.Self(n, 0)
		s.Exclusive[1] += t.Self(n, 1)
		if onPath[m] == 0 {
			s.Inclusive[0] += t.Inclusive(n, 0)
			s.Inclusive[1] += t.Inclusive(n, 1)
		} else {
			s.RecursiveCalls += t.Calls(n)
		}
		onPath[m]++
		path = append(path, n)
		return true
	})
	return out
}
