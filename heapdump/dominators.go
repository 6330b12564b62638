package heapdump

import (
	"math/bits"
	"slices"
)

// dominate computes the immediate dominator and the retained size of every
// reachable node (D6–D8) with Lengauer–Tarjan's semi-dominators and the
// semi-NCA finish, over depth-first numbers: 0 is the super-root, whose
// successors are the root nodes and class objects in node order.
//
// Memory is the point of its shape: a dense dump (one linked list of
// 21-byte records) has as many nodes as the file has 21-byte runs, and
// every array here is 4 bytes a node. No more than four of them are held
// at once beside the model, and the joins' predecessors and semi-dominators:
//   - A node with exactly one incoming edge that is not a root (most of a
//     heap: a list, a tree) has its DFS parent as its only predecessor,
//     and so as its semi-dominator and its immediate dominator; only the
//     other nodes (joins) keep their predecessors and semi-dominators.
//   - The forest's labels are kept as the least semi-dominator on each
//     compressed path, not as nodes, so they need no semi-dominator array
//     beside them.
//   - The depth-first walk keeps each node's next edge in an array that is
//     later reused for the in-degrees, not on a stack of its own.
func dominate(h *Heap) {
	n := h.n
	progress := phase(h, "dominators")
	cnt := make([]uint32, n+1) // the walk's edge cursors, then in-degrees
	pre, vertex, parent := depthFirst(h, cnt)
	R := len(vertex)
	h.reachable = R - 1
	if progress != nil {
		progress(0.2)
	}

	// In-degrees by DFS number, over the edges of reachable nodes.
	clear(cnt)
	for v := 1; v < R; v++ {
		x := vertex[v]
		for _, w := range h.outTgt[h.outOff[x]:h.outOff[x+1]] {
			cnt[pre[w]]++
		}
	}
	root, join := newBitset(R), newBitset(R)
	for v := 1; v < R; v++ {
		switch {
		case h.IsRoot(Node(vertex[v])):
			root.set(v)
		case cnt[v] >= 2:
			join.set(v)
		}
	}
	join.count()
	J := join.rank(R)
	// Predecessors of the joins, in DFS numbers; predOff is indexed by a
	// join's rank among the joins.
	predOff := make([]uint32, J+1)
	for v, k := 1, 0; v < R; v++ {
		if join.has(v) {
			predOff[k+1] = predOff[k] + cnt[v]
			k++
		}
	}
	cnt = nil
	predSrc := make([]int32, predOff[J])
	// predOff[k] is join k's cursor while filling; it ends at k+1's start.
	for v := 1; v < R; v++ {
		x := vertex[v]
		for _, w := range h.outTgt[h.outOff[x]:h.outOff[x+1]] {
			if pw := int(pre[w]); join.has(pw) {
				k := join.rank(pw)
				predSrc[predOff[k]] = int32(v)
				predOff[k]++
			}
		}
	}
	copy(predOff[1:], predOff[:J])
	predOff[0] = 0
	pre = nil
	collect(h)
	if progress != nil {
		progress(0.4)
	}

	// The semi-dominators, from the last DFS number to the first. The
	// forest's label of a node is kept as the least semi-dominator on its
	// compressed path (best), which is all that is ever read of it; a
	// node's own semi-dominator is then 0 for a root, its parent for a
	// node of one incoming edge, and kept only for the joins (semiJ).
	best := make([]int32, R)
	ancestor := make([]int32, R)
	for i := range R {
		best[i], ancestor[i] = int32(i), -1
	}
	semiJ := make([]int32, J)
	var path []int32
	eval := func(v int32) int32 {
		if ancestor[v] < 0 {
			return best[v] // not yet in the forest: its own number
		}
		// Compress the path from v to the root of its tree in the forest.
		path = path[:0]
		for u := v; ancestor[ancestor[u]] >= 0; u = ancestor[u] {
			path = append(path, u)
		}
		for k := len(path) - 1; k >= 0; k-- {
			x := path[k]
			a := ancestor[x]
			if best[a] < best[x] {
				best[x] = best[a]
			}
			ancestor[x] = ancestor[a]
		}
		return best[v]
	}
	for w := R - 1; w >= 1; w-- {
		var s int32
		switch {
		case root.has(w):
			s = 0 // the super-root is a predecessor
		case join.has(w):
			s = int32(w)
			k := join.rank(w)
			for _, v := range predSrc[predOff[k]:predOff[k+1]] {
				if b := eval(v); b < s {
					s = b
				}
			}
			semiJ[k] = s
		default:
			s = parent[w] // its only predecessor, not yet in the forest
		}
		best[w] = s
		ancestor[w] = parent[w]
	}
	predOff, predSrc, best, ancestor, path = nil, nil, nil, nil, nil
	idom := parent // reused: starts as the DFS parent
	for w := 1; w < R; w++ {
		var s int32 // w's semi-dominator; a tree node's is its parent, idom[w] already
		switch {
		case root.has(w):
			s = 0
		case join.has(w):
			s = semiJ[join.rank(w)]
		default:
			continue
		}
		for idom[w] > s {
			idom[w] = idom[idom[w]]
		}
	}
	semiJ = nil
	collect(h)
	if progress != nil {
		progress(0.6)
	}

	h.idom = make([]int32, n) // node -> dominator node
	for x := range h.idom {
		h.idom[x] = -2
	}
	for w := 1; w < R; w++ {
		h.idom[vertex[w]] = vertex[idom[w]] // vertex[0] is -1, the super-root
	}
	if progress != nil {
		progress(0.7)
	}

	// Retained sizes bottom-up over DFS numbers (a dominator has a smaller
	// number than the nodes it dominates).
	// 32 bits a size when the whole heap's shallow sizes fit.
	var total uint64
	for x := range n {
		total += h.Shallow(Node(x))
	}
	if total < 1<<32 {
		ret := make([]uint32, n)
		for w := R - 1; w >= 1; w-- {
			x := vertex[w]
			ret[x] += uint32(h.Shallow(Node(x)))
			if d := idom[w]; d > 0 {
				ret[vertex[d]] += ret[x]
			}
		}
		h.retained.small = ret
	} else {
		ret := make([]uint64, n)
		for w := R - 1; w >= 1; w-- {
			x := vertex[w]
			ret[x] += h.Shallow(Node(x))
			if d := idom[w]; d > 0 {
				ret[vertex[d]] += ret[x]
			}
		}
		h.retained.big = ret
	}
	vertex, idom, parent = nil, nil, nil
	collect(h)

	// Dominator tree children, CSR, each node's in node order; index n is
	// the super-root.
	off := make([]int32, n+2)
	for x := range n {
		if d := h.idom[x]; d != -2 {
			off[domSlot(d, n)+1]++
		}
	}
	for i := 1; i <= n+1; i++ {
		off[i] += off[i-1]
	}
	kids := make([]int32, off[n+1])
	// off[s] is slot s's cursor while filling; it ends at s+1's start.
	for x := range n {
		if d := h.idom[x]; d != -2 {
			s := domSlot(d, n)
			kids[off[s]] = int32(x)
			off[s]++
		}
	}
	copy(off[1:], off[:n+1])
	off[0] = 0
	h.domOff, h.domKids = off, kids
	if progress != nil {
		progress(1)
	}
}

// depthFirst numbers the reachable nodes in depth-first preorder from the
// super-root (0), whose successors are the root nodes and class objects in
// node order: pre maps a node to its number (0: unreachable), vertex a
// number to its node (vertex[0] is -1), parent a number to its DFS
// parent's. cursor, at least as long as the reachable nodes, holds the
// next edge of each node on the current path (whose numbers parent gives).
func depthFirst(h *Heap, cursor []uint32) (pre, vertex, parent []int32) {
	n := h.n
	pre = make([]int32, n)
	vertex = make([]int32, 1, n+1)
	vertex[0] = -1
	parent = make([]int32, 1, n+1)
	for r := range n {
		if !h.IsRoot(Node(r)) || pre[r] != 0 {
			continue
		}
		cur := int32(len(vertex)) // the path's end
		pre[r] = cur
		vertex = append(vertex, int32(r))
		parent = append(parent, 0)
		depth := 1
		cursor[0] = h.outOff[r]
		for depth > 0 {
			e := cursor[depth-1]
			if e == h.outOff[vertex[cur]+1] {
				depth--
				cur = parent[cur]
				continue
			}
			cursor[depth-1] = e + 1
			w := h.outTgt[e]
			if pre[w] != 0 {
				continue
			}
			next := int32(len(vertex))
			pre[w] = next
			vertex = append(vertex, w)
			parent = append(parent, cur)
			cursor[depth] = h.outOff[w]
			depth++
			cur = next
		}
	}
	return pre, vertex, parent
}

// bitset is a set of small integers with the rank of each (how many set
// before it) once counted.
type bitset struct {
	words  []uint64
	before []int32 // set bits in the words before each word
}

func newBitset(n int) bitset { return bitset{words: make([]uint64, (n+63)/64)} }

func (b bitset) set(i int)      { b.words[i>>6] |= 1 << (i & 63) }
func (b bitset) has(i int) bool { return b.words[i>>6]&(1<<(i&63)) != 0 }

// count prepares rank; the set must not change after it.
func (b *bitset) count() {
	b.before = make([]int32, len(b.words)+1)
	for i, w := range b.words {
		b.before[i+1] = b.before[i] + int32(bits.OnesCount64(w))
	}
}

// rank returns how many members are below i (i may be the set's size).
func (b bitset) rank(i int) int {
	w := i >> 6
	if w == len(b.words) {
		return int(b.before[w])
	}
	return int(b.before[w]) + bits.OnesCount64(b.words[w]&(1<<(i&63)-1))
}

func domSlot(d int32, n int) int {
	if d == -1 {
		return n
	}
	return int(d)
}

// histogramRetained computes the histogram's retained size per class name
// (D9): the retained sizes of reachable nodes that have no strict dominator
// of the same class name, by a walk of the dominator tree that counts the
// classes on the current path. The walk keeps no stack (a list of a
// million objects is a dominator tree a million deep): a node's next
// sibling follows it in domKids, and a parent's place among its own
// siblings is found by binary search (each group is in node order).
func histogramRetained(h *Heap) {
	n := h.n
	h.nameRet = make([]uint64, len(h.names))
	h.classTop = make([]uint64, (n+63)/64)
	onPath := make([]int32, len(h.names))
	off, kids := h.domOff, h.domKids
	i := off[n] // the place in kids of the node entered
	if i == off[n+1] {
		return
	}
	for {
		x := kids[i]
		c := nameOf(h, int(x))
		if onPath[c] == 0 {
			h.nameRet[c] += h.Retained(Node(x))
			h.classTop[x>>6] |= 1 << (x & 63)
		}
		onPath[c]++
		if off[x] < off[x+1] {
			i = off[x]
			continue
		}
		// Leave x, and each ancestor whose last child was just left.
		for {
			onPath[nameOf(h, int(x))]--
			s := domSlot(h.idom[x], n)
			if i+1 < off[s+1] {
				i++
				break
			}
			if s == n {
				return
			}
			x = int32(s)
			g := domSlot(h.idom[x], n)
			k, _ := slices.BinarySearch(kids[off[g]:off[g+1]], x)
			i = off[g] + int32(k)
		}
	}
}

// shortestParents runs a BFS from the super-root over strong edges (D11),
// giving each reachable node's parent on a shortest path. Its queue is
// kept in fixed chunks, so it holds the frontier (not every node, and no
// copies of a queue grown by doubling).
func shortestParents(h *Heap) []int32 {
	n := h.n
	par := make([]int32, n)
	for i := range par {
		par[i] = -2
	}
	var q chunkQueue
	for r := range n {
		if h.IsRoot(Node(r)) {
			par[r] = -1
			q.push(int32(r))
		}
	}
	for !q.empty() {
		v := q.pop()
		for _, w := range h.outTgt[h.outOff[v]:h.outOff[v+1]] {
			if par[w] == -2 {
				par[w] = v
				q.push(w)
			}
		}
	}
	return par
}

// queueChunk is the number of nodes in each of a chunkQueue's chunks.
const queueChunk = 1 << 14

// chunkQueue is a FIFO of nodes in fixed chunks; a chunk emptied at the
// front is reused at the back.
type chunkQueue struct {
	chunks [][]int32
	head   int // the next node's place in chunks[0]
	spare  []int32
}

func (q *chunkQueue) empty() bool {
	return len(q.chunks) == 0 || q.head == len(q.chunks[0])
}

func (q *chunkQueue) push(v int32) {
	if k := len(q.chunks); k == 0 || len(q.chunks[k-1]) == queueChunk {
		c := q.spare
		q.spare = nil
		if c == nil {
			c = make([]int32, 0, queueChunk)
		}
		q.chunks = append(q.chunks, c[:0])
	}
	last := &q.chunks[len(q.chunks)-1]
	*last = append(*last, v)
}

func (q *chunkQueue) pop() int32 {
	c := q.chunks[0]
	v := c[q.head]
	q.head++
	if q.head == len(c) {
		q.head = 0
		if len(q.chunks) == 1 { // the back one too: empty it in place
			q.chunks[0] = c[:0]
			return v
		}
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.spare = c
	}
	return v
}
