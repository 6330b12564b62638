package trace

import (
	"cmp"
	"slices"
)

// TreeView is a call tree made from the top-down trees (CallTree) of one or
// more threads, top down (paths from the top level, merged over the
// threads) or bottom up (a node per method under the root, and under each
// node the methods that called it on that path). Its nodes are expanded on
// demand: a node keeps the source nodes it stands for until its children
// are asked for, so showing the root level of a tree costs one pass over
// the sources, and memory grows with what is expanded, not with the whole
// tree (a bottom-up tree can hold depth × paths nodes).
//
// Values: a node's Calls and Self are the sums of its source nodes. Top
// down, Inclusive is their sum too. Bottom up, the node for m ← c1 ← c2
// stands for the source nodes whose path ends c2;c1;m, and its Inclusive
// counts only the outermost of them (one inside another's subtree is
// already in that one's time), so the root's children have exactly the
// flat profile's calls, inclusive and exclusive time per method.
//
// Children are ordered by inclusive time on the view's clock, descending.
// A TreeView is not safe for concurrent use.
type TreeView struct {
	src      []*CallTree
	bottomUp bool
	clock    Clock
	Nodes    []ViewNode
	keep     [][]bool // per source node, when a filter is set
	// rootGrouped: the bottom-up root's children have their members. The
	// root level itself is summed in one pass without them; the members
	// (every source node, grouped by method) are made when the first of
	// its children is expanded.
	rootGrouped bool
}

// ViewNode is one node of a TreeView.
type ViewNode struct {
	Parent      int32 // -1 for the root
	Method      int32 // TopLevel for the root
	FirstChild  int32 // -1: none, or not expanded yet
	NextSibling int32
	Calls       int64
	Inclusive   [2]uint64
	Self        [2]uint64
	expanded    bool
	callers     bool     // bottom-up first level: some source node has a caller
	members     []member // source nodes, until expanded
}

// member is a source node n of tree src; at is the node whose children
// (top down) or whose parent (bottom up) the next level groups by method.
type member struct {
	src   int32
	n, at int32
}

// NewTopDownView merges the top-down trees (nil ones are skipped).
func NewTopDownView(trees []*CallTree, c Clock) *TreeView {
	return newTreeView(trees, false, c, nil)
}

// NewBottomUpView makes the bottom-up tree of the top-down trees.
func NewBottomUpView(trees []*CallTree, c Clock) *TreeView {
	return newTreeView(trees, true, c, nil)
}

// NewFilteredView is NewTopDownView or NewBottomUpView keeping only what
// match selects: top down, the paths through a method for which match is
// true (its callers and its callees); bottom up, the methods for which it
// is true, with all their callers.
func NewFilteredView(trees []*CallTree, bottomUp bool, c Clock, match func(method int32) bool) *TreeView {
	return newTreeView(trees, bottomUp, c, func(t *CallTree) []bool { return keepPaths(t, match, bottomUp) })
}

// NewExcludingView is NewFilteredView's inverse (a filter's leading "!"):
// top down, the nodes with no match on their path (a matching method's
// node goes, and its callees with it; its time stays in its callers'
// inclusive time); bottom up, the methods for which match is false.
func NewExcludingView(trees []*CallTree, bottomUp bool, c Clock, match func(method int32) bool) *TreeView {
	unmatched := func(m int32) bool { return !match(m) }
	return newTreeView(trees, bottomUp, c, func(t *CallTree) []bool {
		if bottomUp {
			return keepPaths(t, unmatched, true)
		}
		return keepWholePaths(t, unmatched)
	})
}

// newTreeView makes a view of trees; keep, when set, marks each tree's
// nodes the view keeps.
func newTreeView(trees []*CallTree, bottomUp bool, c Clock, keep func(*CallTree) []bool) *TreeView {
	v := &TreeView{bottomUp: bottomUp, clock: c}
	for _, t := range trees {
		if t != nil && t.Len() > 0 {
			v.src = append(v.src, t)
		}
	}
	root := ViewNode{Parent: -1, Method: TopLevel, FirstChild: -1, NextSibling: -1}
	for k, t := range v.src {
		for c := range 2 {
			root.Inclusive[c] += t.Inclusive(0, Clock(c))
			root.Self[c] += t.Self(0, Clock(c))
		}
		if !bottomUp {
			root.members = append(root.members, member{int32(k), 0, 0})
		}
	}
	if keep != nil {
		v.keep = make([][]bool, len(v.src))
		for k, t := range v.src {
			v.keep[k] = keep(t)
		}
	}
	v.Nodes = []ViewNode{root}
	return v
}

// keepPaths marks the nodes a filter keeps: top down, those with a match
// on their path or in their subtree; bottom up, the matching nodes.
func keepPaths(t *CallTree, match func(int32) bool, bottomUp bool) []bool {
	keep := make([]bool, t.Len())
	matched := make([]bool, t.Len())
	for n := int32(1); int(n) < t.Len(); n++ {
		matched[n] = match(t.Method(n))
	}
	if bottomUp {
		return matched
	}
	below := make([]bool, t.Len()) // a match in the subtree, itself included
	for n := int32(t.Len() - 1); n > 0; n-- {
		below[n] = below[n] || matched[n]
		if below[n] {
			below[t.Parent(n)] = true
		}
	}
	above := make([]bool, t.Len()) // a match on the path, itself included
	for n := int32(1); int(n) < t.Len(); n++ {
		above[n] = above[t.Parent(n)] || matched[n]
		keep[n] = above[n] || below[n]
	}
	keep[0] = true
	return keep
}

// keepWholePaths marks the top-down nodes whose whole path matches: a
// node that does not is left out with its subtree.
func keepWholePaths(t *CallTree, match func(int32) bool) []bool {
	keep := make([]bool, t.Len())
	keep[0] = true
	for n := int32(1); int(n) < t.Len(); n++ {
		keep[n] = keep[t.Parent(n)] && match(t.Method(n))
	}
	return keep
}

// BottomUp says whether the view is bottom up.
func (v *TreeView) BottomUp() bool { return v.bottomUp }

// Clock is the clock the children are ordered by.
func (v *TreeView) Clock() Clock { return v.clock }

// Children yields the children of node n, expanding it first.
func (v *TreeView) Children(n int32) func(yield func(int32) bool) {
	v.Expand(n)
	return func(yield func(int32) bool) {
		for c := v.Nodes[n].FirstChild; c >= 0; c = v.Nodes[c].NextSibling {
			if !yield(c) {
				return
			}
		}
	}
}

// HasChildren says whether node n has children (expanding it).
func (v *TreeView) HasChildren(n int32) bool {
	if nd := &v.Nodes[n]; v.bottomUp && nd.Parent == 0 && !nd.expanded {
		return nd.callers // known without grouping the members
	}
	v.Expand(n)
	return v.Nodes[n].FirstChild >= 0
}

// Expand makes the children of node n, once: the next level of its source
// nodes (their children top down, their callers bottom up) grouped by
// method. It costs O(k log k) for k source nodes.
func (v *TreeView) Expand(n int32) {
	if v.Nodes[n].expanded {
		return
	}
	if v.bottomUp {
		if n == 0 {
			v.expandBottomUpRoot()
			return
		}
		if v.Nodes[n].Parent == 0 && !v.rootGrouped {
			v.groupRoot()
		}
	}
	v.Nodes[n].expanded = true
	members := v.Nodes[n].members
	v.Nodes[n].members = nil
	var next []member
	for _, m := range members {
		t := v.src[m.src]
		if v.bottomUp {
			if p := t.Parent(m.at); p > 0 {
				next = append(next, member{m.src, m.n, p})
			}
			continue
		}
		for c := range t.Children(m.at) {
			if v.keep == nil || v.keep[m.src][c] {
				next = append(next, member{m.src, c, c})
			}
		}
	}
	// Group by method; stable, so bottom-up members stay in depth-first
	// order per source.
	next = v.groupByMethod(next)
	first := len(v.Nodes)
	for i := 0; i < len(next); {
		method := v.methodAt(next[i])
		j := i + 1
		for j < len(next) && v.methodAt(next[j]) == method {
			j++
		}
		v.Nodes = append(v.Nodes, v.group(n, method, next[i:j]))
		i = j
	}
	v.linkChildren(n, first)
}

// linkChildren links the nodes from first on as the children of n, by
// inclusive time on the view's clock, descending.
func (v *TreeView) linkChildren(n int32, first int) {
	kids := make([]int32, 0, len(v.Nodes)-first)
	for k := first; k < len(v.Nodes); k++ {
		kids = append(kids, int32(k))
	}
	c := v.clock
	slices.SortStableFunc(kids, func(a, b int32) int {
		if r := cmp.Compare(v.Nodes[b].Inclusive[c], v.Nodes[a].Inclusive[c]); r != 0 {
			return r
		}
		return cmp.Compare(v.Nodes[a].Method, v.Nodes[b].Method)
	})
	for i, k := range kids {
		if i == 0 {
			v.Nodes[n].FirstChild = k
		}
		v.Nodes[k].NextSibling = -1
		if i+1 < len(kids) {
			v.Nodes[k].NextSibling = kids[i+1]
		}
	}
}

func (v *TreeView) methodAt(m member) int32 { return v.src[m.src].Method(m.at) }

// groupByMethod orders ms by the method of their at node, keeping the
// order within a method: a counting sort for many members (the bottom-up
// root level holds every source node), else a stable sort on the keys.
func (v *TreeView) groupByMethod(ms []member) []member {
	if len(ms) < 2 {
		return slices.Clone(ms)
	}
	keys := make([]int32, len(ms))
	maxKey := int32(0)
	for i, m := range ms {
		keys[i] = v.methodAt(m)
		maxKey = max(maxKey, keys[i])
	}
	out := make([]member, len(ms))
	if len(ms) >= 256 && int(maxKey) < 4*len(ms) {
		pos := make([]int, maxKey+2)
		for _, k := range keys {
			pos[k+1]++
		}
		for k := 1; k < len(pos); k++ {
			pos[k] += pos[k-1]
		}
		for i, m := range ms {
			out[pos[keys[i]]] = m
			pos[keys[i]]++
		}
		return out
	}
	idx := make([]int32, len(ms))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
	for i, k := range idx {
		out[i] = ms[k]
	}
	return out
}

// kept says whether the filter keeps node n of source k.
func (v *TreeView) kept(k int, n int32) bool { return v.keep == nil || v.keep[k][n] }

// groupRoot gives the bottom-up root's children their members: every
// (kept) source node, in depth-first order, grouped by method.
func (v *TreeView) groupRoot() {
	v.rootGrouped = true
	var all []member
	for k, t := range v.src {
		for n := int32(1); int(n) < t.Len(); n++ {
			if v.kept(k, n) {
				all = append(all, member{int32(k), n, n})
			}
		}
	}
	all = v.groupByMethod(all)
	byMethod := map[int32]int32{}
	for c := v.Nodes[0].FirstChild; c >= 0; c = v.Nodes[c].NextSibling {
		byMethod[v.Nodes[c].Method] = c
	}
	for i := 0; i < len(all); {
		m := v.methodAt(all[i])
		j := i + 1
		for j < len(all) && v.methodAt(all[j]) == m {
			j++
		}
		if c, ok := byMethod[m]; ok && !v.Nodes[c].expanded {
			v.Nodes[c].members = all[i:j]
		}
		i = j
	}
}

// group makes the node under parent for method from its source members.
func (v *TreeView) group(parent, method int32, ms []member) ViewNode {
	nd := ViewNode{Parent: parent, Method: method, FirstChild: -1, NextSibling: -1}
	nd.members = ms // a part of groupByMethod's new array
	lastSrc, lastEnd := int32(-1), int32(0)
	for _, m := range ms {
		t := v.src[m.src]
		nd.Calls += t.Calls(m.n)
		nd.Self[0] += t.Self(m.n, 0)
		nd.Self[1] += t.Self(m.n, 1)
		if v.bottomUp {
			// Members are in depth-first order per source: skip one
			// inside the subtree of the last one counted.
			if m.src == lastSrc && m.n < lastEnd {
				continue
			}
			lastSrc, lastEnd = m.src, t.End(m.n)
		}
		nd.Inclusive[0] += t.Inclusive(m.n, 0)
		nd.Inclusive[1] += t.Inclusive(m.n, 1)
	}
	return nd
}

// Depth is the number of nodes from the root's child down to n.
func (v *TreeView) Depth(n int32) int {
	d := 0
	for ; n > 0; n = v.Nodes[n].Parent {
		d++
	}
	return d
}

// Walk visits the nodes in depth-first pre-order (expanding them) down to
// maxDepth levels (0: no limit), with their depth (1 for the root's
// children); when visit returns false the node's children are skipped.
func (v *TreeView) Walk(maxDepth int, visit func(n int32, depth int) bool) {
	n, depth := v.firstChild(0), 1
	for n >= 0 {
		if visit(n, depth) && (maxDepth <= 0 || depth < maxDepth) && v.firstChild(n) >= 0 {
			n = v.Nodes[n].FirstChild
			depth++
			continue
		}
		for n > 0 && v.Nodes[n].NextSibling < 0 {
			n = v.Nodes[n].Parent
			depth--
		}
		if n <= 0 {
			return
		}
		n = v.Nodes[n].NextSibling
	}
}

func (v *TreeView) firstChild(n int32) int32 {
	v.Expand(n)
	return v.Nodes[n].FirstChild
}

// HotPath returns the path from n down its children of largest inclusive
// time, at most maxLen nodes below n, expanding them.
func (v *TreeView) HotPath(n int32, maxLen int) []int32 {
	var path []int32
	for len(path) < maxLen {
		c := v.firstChild(n) // children are ordered by inclusive time
		if c < 0 {
			break
		}
		path = append(path, c)
		n = c
	}
	return path
}

// trimTo lets go of the nodes from index keep on (the subtrees of finished
// top-level nodes, in a walk that does not come back to them), and marks
// top-level node n as having no children any more.
func (v *TreeView) trimTo(keep int, n int32) {
	clear(v.Nodes[keep:])
	v.Nodes = v.Nodes[:keep]
	v.Nodes[n].FirstChild = -1
}
