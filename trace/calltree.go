package trace

import (
	"iter"
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"
)

// CallTree is one thread's top-down calling-context tree, in one flat
// array: a node per distinct call path from the thread's top level, so its
// memory is proportional to the distinct paths (24 bytes each), not to the
// records. Node 0 is the root and stands for the top level; nodes are
// numbered in depth-first order, so a node's subtree is the range from it
// up to its End, its first child (if any) is the next node, and the next
// sibling of a child is the child's End. Recursion is not folded (a;b;a
// is a path of its own). Every algorithm over it is iterative, so a
// 100,000-deep path needs no deep Go stack.
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
	Nodes []CallNode
	// Records that the tree could not place where they happened: exits
	// with an empty stack (entered before tracing; placed under the root
	// as calls from the trace's start) and exits of a method that was not
	// on the stack (ignored). The viewer and the JSON report them.
	FromStart, Ignored int64
	// While the tree grows, its nodes are buildNodes in pages (no copying
	// as it grows); done makes Nodes. A node's children are found by
	// walking its sibling list, most recently used first; the children of
	// a node with more than wideChildren of them are also in wide.
	build    paged[buildNode]
	building bool
	wide     indexTable // parent<<32 | method → node, for wide parents
	// big holds the inclusive times of the nodes whose sum passed 32 bits
	// (only calls from the trace's start, which overlap, can: they are
	// the root's children); their Inclusive reads 2³²−1.
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

// CallNode is one node of a CallTree: 24 bytes. Times are µs on each
// clock and fit 32 bits as the records' times do: the calls of one path do
// not overlap, so their sum is at most the thread's traced time. Calls from
// the trace's start may overlap: a sum of theirs past 32 bits reads
// 2³²−1 here and whole from CallTree.Inclusive. The self time is not
// stored: CallTree.Self derives it.
type CallNode struct {
	Parent    int32 // -1 for the root
	End       int32 // one past the last node of its subtree
	Method    int32 // profile index; TopLevel for the root
	Calls     uint32
	Inclusive [2]uint32
}

// buildNode is a node while its tree grows: 24 bytes, linked to its first
// child and next sibling (-1: none); its parent is known from the links.
type buildNode struct {
	Method, FirstChild, NextSibling int32
	Calls                           uint32
	Inclusive                       [2]uint32
}

// wideChildren is how many children a node's sibling list is walked for
// before the lookup table is asked.
const wideChildren = 16

func newCallTree() *CallTree {
	t := &CallTree{building: true}
	t.build.add(buildNode{Method: TopLevel, FirstChild: -1, NextSibling: -1})
	return t
}

// counts returns node i's calls and inclusive times, while the tree grows
// or after.
func (t *CallTree) counts(i int32) (*uint32, *[2]uint32) {
	if t.building {
		n := t.build.at(i)
		return &n.Calls, &n.Inclusive
	}
	n := &t.Nodes[i]
	return &n.Calls, &n.Inclusive
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
	k := t.build.add(buildNode{Method: method, FirstChild: -1, NextSibling: t.build.at(parent).FirstChild})
	t.build.at(parent).FirstChild = k
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

func (t *CallTree) addCall(node int32, el [2]uint64) {
	calls, incl := t.counts(node)
	if *calls < 1<<32-1 {
		*calls++
	}
	sum := [2]uint64{t.Inclusive(node, 0) + el[0], t.Inclusive(node, 1) + el[1]}
	if sum[0] >= 1<<32-1 || sum[1] >= 1<<32-1 {
		if t.big == nil {
			t.big = map[int32][2]uint64{}
		}
		t.big[node] = sum
	}
	incl[0] = uint32(min(sum[0], 1<<32-1))
	incl[1] = uint32(min(sum[1], 1<<32-1))
}

// Inclusive is node n's inclusive time on clock c, whole.
func (t *CallTree) Inclusive(n int32, c Clock) uint64 {
	_, incl := t.counts(n)
	if incl[c] == 1<<32-1 || incl[1-c] == 1<<32-1 {
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
	for k := n + 1; k < t.Nodes[n].End; k = t.Nodes[k].End {
		v -= t.Inclusive(k, c)
	}
	return v
}

func (t *CallTree) swapClocks() {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		n.Inclusive[0], n.Inclusive[1] = n.Inclusive[1], n.Inclusive[0]
	}
	for k, v := range t.big {
		t.big[k] = [2]uint64{v[1], v[0]}
	}
	for k, v := range t.self {
		t.self[k] = [2]uint32{v[1], v[0]}
	}
}

// done ends the growth: the nodes go from their pages into Nodes, of
// exactly their number, numbered in depth-first order (so a node's subtree
// is the nodes from it up to its End, and a walk reads memory in order);
// the self times are kept only where the children's inclusive times do
// not give them, and the lookup table goes.
func (t *CallTree) done() {
	if !t.building {
		return
	}
	// Of the root's and its children's self times, keep those their
	// children's inclusive times do not give.
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
	// Depth first along the sibling lists, each node written at its
	// number with its parent's; then the ends, children before parents.
	t.Nodes = make([]CallNode, t.build.len())
	big, self := t.big, t.self
	t.big, t.self = nil, nil
	if len(big) > 0 {
		t.big = make(map[int32][2]uint64, len(big))
	}
	if len(self) > 0 {
		t.self = make(map[int32][2]uint32, len(self))
	}
	type item struct{ old, parent int32 }
	stack := []item{{0, -1}}
	for next := int32(0); len(stack) > 0; next++ {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		b := t.build.at(it.old)
		t.Nodes[next] = CallNode{Parent: it.parent, End: next + 1, Method: b.Method, Calls: b.Calls, Inclusive: b.Inclusive}
		if v, ok := big[it.old]; ok {
			t.big[next] = v
		}
		if v, ok := self[it.old]; ok {
			t.self[next] = v
		}
		k := len(stack)
		for c := b.FirstChild; c >= 0; c = t.build.at(c).NextSibling {
			stack = append(stack, item{c, next})
		}
		slices.Reverse(stack[k:]) // the first child is numbered first
	}
	t.build, t.wide, t.building = paged[buildNode]{}, indexTable{}, false
	for i := len(t.Nodes) - 1; i > 0; i-- {
		p := &t.Nodes[t.Nodes[i].Parent]
		p.End = max(p.End, t.Nodes[i].End)
	}
	collectPages(int64(len(t.Nodes)) * int64(unsafe.Sizeof(buildNode{})))
}

// pagesLetGo counts the bytes of build pages let go since the last
// collection collectPages asked for.
var pagesLetGo atomic.Int64

// collectGrain is how many bytes of build pages are let go between
// collections.
const collectGrain = 1 << 20

// collectPages notes that a finished tree let go of its build pages and,
// once collectGrain bytes of them are garbage, collects, so that the next
// trees' Nodes reuse that memory instead of growing the heap: all of a
// profile's trees finish one after the other, each making an array as
// large as the pages it lets go. The pages hold no pointers, so a
// collection costs little beside the profile's parse (about 30 MiB of peak
// RSS less on the anchor trace of docs/PERFORMANCE.md, no measurable CPU).
func collectPages(bytes int64) {
	if pagesLetGo.Add(bytes) >= collectGrain {
		pagesLetGo.Store(0)
		runtime.GC()
	}
}

// childrenWhileBuilding lists the children of node i while the tree grows.
func (t *CallTree) childrenWhileBuilding(i int32) []int32 {
	var out []int32
	for c := t.build.at(i).FirstChild; c >= 0; c = t.build.at(c).NextSibling {
		out = append(out, c)
	}
	return out
}

// derives says whether self is incl minus the children's sum, as Self
// computes it.
func derives(incl, children uint64, self uint32) bool {
	return children <= incl && incl-children == uint64(self) && self != 1<<32-1
}

// Children yields the children of node n in order.
func (t *CallTree) Children(n int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for c := n + 1; c < t.Nodes[n].End; c = t.Nodes[c].End {
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

// Walk calls visit for every node but the root in depth-first pre-order,
// with its depth (1 for the root's children); when visit returns false the
// node's children are skipped. It needs no recursion.
func (t *CallTree) Walk(visit func(n int32, depth int) bool) {
	if len(t.Nodes) == 0 {
		return
	}
	ends := make([]int32, 0, 64) // the ends of the nodes on the path
	ends = append(ends, t.Nodes[0].End)
	for n := int32(1); n < t.Nodes[0].End; {
		for ends[len(ends)-1] <= n {
			ends = ends[:len(ends)-1]
		}
		if visit(n, len(ends)) {
			ends = append(ends, t.Nodes[n].End)
			n++
		} else {
			n = t.Nodes[n].End
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
			onPath[t.Nodes[path[len(path)-1]].Method]--
			path = path[:len(path)-1]
		}
		nd := &t.Nodes[n]
		if int(nd.Method) >= methods {
			return false
		}
		s := &out[nd.Method]
		s.Calls += int64(nd.Calls)
		s.Exclusive[0] += t.Self(n, 0)
		s.Exclusive[1] += t.Self(n, 1)
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
