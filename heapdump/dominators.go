package heapdump

// dominate computes the immediate dominator and the retained size of every
// reachable node (D6–D8) with Lengauer–Tarjan's semi-dominators and the
// semi-NCA finish, over depth-first numbers: 0 is the super-root, whose
// successors are the root nodes and class objects in node order.
// semiDone, called once, is told when the semi-dominators are known and
// the arrays that found them are given back.
func dominate(h *Heap, semiDone func()) {
	n := h.n
	progress := phase(h, "dominators")
	pre := make([]int32, n) // node -> DFS number, 0 unvisited
	vertex := make([]int32, 1, n+1)
	vertex[0] = -1
	parent := make([]int32, 1, n+1)
	// Iterative DFS; the stack holds a node and its next edge.
	stackNode := make([]int32, 0, 1024)
	stackEdge := make([]uint32, 0, 1024)
	// The DFS sees every edge of the reachable nodes once: it counts the
	// predecessors on the way.
	indeg := make([]uint32, n)
	for r := range n {
		if !h.IsRoot(Node(r)) || pre[r] != 0 {
			continue
		}
		pre[r] = int32(len(vertex))
		vertex = append(vertex, int32(r))
		parent = append(parent, 0)
		stackNode = append(stackNode[:0], int32(r))
		stackEdge = append(stackEdge[:0], h.outOff[r])
		for len(stackNode) > 0 {
			top := len(stackNode) - 1
			v, e := stackNode[top], stackEdge[top]
			if e == h.outOff[v+1] {
				stackNode, stackEdge = stackNode[:top], stackEdge[:top]
				continue
			}
			stackEdge[top]++
			w := h.outTgt[e]
			indeg[w]++
			if pre[w] != 0 {
				continue
			}
			pre[w] = int32(len(vertex))
			vertex = append(vertex, w)
			parent = append(parent, pre[v])
			stackNode = append(stackNode, w)
			stackEdge = append(stackEdge, h.outOff[w])
		}
	}
	stackNode, stackEdge = nil, nil
	R := len(vertex)
	h.reachable = R - 1
	if progress != nil {
		progress(0.3)
	}

	// Predecessors in DFS numbers (the super-root's edges are implied by
	// IsRoot).
	predOff := make([]uint32, R+1)
	for v := 1; v < R; v++ {
		predOff[v+1] = predOff[v] + indeg[vertex[v]]
	}
	indeg = nil
	predSrc := make([]int32, predOff[R])
	// predOff[w] is w's cursor while filling; it ends at w+1's start.
	for v := 1; v < R; v++ {
		x := vertex[v]
		for _, w := range h.outTgt[h.outOff[x]:h.outOff[x+1]] {
			pw := pre[w]
			predSrc[predOff[pw]] = int32(v)
			predOff[pw]++
		}
	}
	copy(predOff[1:], predOff[:R])
	predOff[0] = 0
	if progress != nil {
		progress(0.5)
	}

	semi := make([]int32, R)
	label := make([]int32, R)
	ancestor := make([]int32, R)
	for i := range R {
		semi[i], label[i], ancestor[i] = int32(i), int32(i), -1
	}
	var path []int32
	eval := func(v int32) int32 {
		if ancestor[v] < 0 {
			return v
		}
		// Compress the path from v to the root of its tree in the forest.
		path = path[:0]
		for u := v; ancestor[ancestor[u]] >= 0; u = ancestor[u] {
			path = append(path, u)
		}
		for k := len(path) - 1; k >= 0; k-- {
			x := path[k]
			a := ancestor[x]
			if semi[label[a]] < semi[label[x]] {
				label[x] = label[a]
			}
			ancestor[x] = ancestor[a]
		}
		return label[v]
	}
	for w := R - 1; w >= 1; w-- {
		s := semi[w]
		if h.IsRoot(Node(vertex[w])) {
			s = 0
		} else {
			for _, v := range predSrc[predOff[w]:predOff[w+1]] {
				if u := eval(v); semi[u] < s {
					s = semi[u]
				}
			}
		}
		semi[w] = s
		ancestor[w] = parent[w]
	}
	predOff, predSrc, label, ancestor = nil, nil, nil, nil
	idom := parent // reused: starts as the DFS parent
	for w := 1; w < R; w++ {
		for idom[w] > semi[w] {
			idom[w] = idom[idom[w]]
		}
	}
	semi = nil
	collect(h)
	semiDone()
	if progress != nil {
		progress(0.8)
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
	h.idom = pre // reused: node -> dominator node
	for x := range n {
		if p := pre[x]; p == 0 {
			h.idom[x] = -2
		} else {
			h.idom[x] = vertex[idom[p]] // vertex[0] is -1, the super-root
		}
	}
	// Dominator tree children, CSR; index n is the super-root.
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
	pos := make([]int32, n+1)
	copy(pos, off[:n+1])
	for w := 1; w < R; w++ { // DFS order: deterministic
		x := vertex[w]
		slot := domSlot(h.idom[x], n)
		kids[pos[slot]] = x
		pos[slot]++
	}
	h.domOff, h.domKids = off, kids
	if progress != nil {
		progress(1)
	}
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
// classes on the current path.
func histogramRetained(h *Heap) {
	n := h.n
	h.nameRet = make([]uint64, len(h.names))
	h.classTop = make([]uint64, (n+63)/64)
	onPath := make([]int32, len(h.names))
	type frame struct {
		node int32
		next int32
	}
	stack := []frame{{node: int32(n), next: h.domOff[n]}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next == h.domOff[top.node+1] {
			if top.node != int32(n) {
				onPath[nameOf(h, int(top.node))]--
			}
			stack = stack[:len(stack)-1]
			continue
		}
		x := h.domKids[top.next]
		top.next++
		c := nameOf(h, int(x))
		if onPath[c] == 0 {
			h.nameRet[c] += h.Retained(Node(x))
			h.classTop[x>>6] |= 1 << (x & 63)
		}
		onPath[c]++
		stack = append(stack, frame{node: x, next: h.domOff[x]})
	}
}

// shortestParents runs a BFS from the super-root over strong edges (D11),
// giving each reachable node's parent on a shortest path.
func shortestParents(h *Heap) []int32 {
	n := h.n
	par := make([]int32, n)
	for i := range par {
		par[i] = -2
	}
	queue := make([]int32, 0, n)
	for r := range n {
		if h.IsRoot(Node(r)) {
			par[r] = -1
			queue = append(queue, int32(r))
		}
	}
	for q := 0; q < len(queue); q++ {
		v := queue[q]
		for _, w := range h.outTgt[h.outOff[v]:h.outOff[v+1]] {
			if par[w] == -2 {
				par[w] = v
				queue = append(queue, w)
			}
		}
	}
	return par
}
