package heapdump

import "sync"

// reverse is the reverse of the strong edges (CSR), built on first use.
type reverse struct {
	once sync.Once
	off  []uint32
	src  []int32
}

// Referrers returns the nodes with a strong edge to n (each once), in node
// order. The reverse edges are built on first use.
func (h *Heap) Referrers(n Node) []Node {
	h.rev.once.Do(func() { h.rev.off, h.rev.src = reverseEdges(h) })
	src := h.rev.src[h.rev.off[n]:h.rev.off[n+1]]
	out := make([]Node, 0, len(src))
	for i, v := range src {
		if i == 0 || v != src[i-1] {
			out = append(out, Node(v))
		}
	}
	return out
}

func reverseEdges(h *Heap) ([]uint32, []int32) {
	n := h.n
	off := make([]uint32, n+1)
	for _, w := range h.outTgt {
		off[w+1]++
	}
	for i := 1; i <= n; i++ {
		off[i] += off[i-1]
	}
	src := make([]int32, len(h.outTgt))
	pos := make([]uint32, n)
	copy(pos, off[:n])
	for v := range n {
		for _, w := range h.outTgt[h.outOff[v]:h.outOff[v+1]] {
			src[pos[w]] = int32(v)
			pos[w]++
		}
	}
	return off, src
}
