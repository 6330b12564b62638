package heapdump

import (
	"slices"
	"strconv"
)

// PathStep is one element of a path from a GC root (D11): the node, and
// the field of the previous element that holds it (empty for the first).
type PathStep struct {
	Node  Node
	Field string
}

// Depth returns the number of nodes on a shortest strong path from the
// super-root to n (1 for a root node or class object), 0 when unreachable.
func (h *Heap) Depth(n Node) int {
	if h.bfsParent[n] == -2 {
		return 0
	}
	d := 0
	for x := int32(n); x >= 0; x = h.bfsParent[x] {
		d++
	}
	return d
}

// PathToRoot returns a shortest strong path from a root node or class
// object to n, root first; nil when n is unreachable.
func (h *Heap) PathToRoot(n Node) []PathStep {
	if h.bfsParent[n] == -2 {
		return nil
	}
	var nodes []int32
	for x := int32(n); x >= 0; x = h.bfsParent[x] {
		nodes = append(nodes, x)
	}
	slices.Reverse(nodes)
	out := make([]PathStep, len(nodes))
	for i, x := range nodes {
		out[i].Node = Node(x)
		if i > 0 {
			out[i].Field = h.RefName(Node(nodes[i-1]), Node(x))
		}
	}
	return out
}

// RefName names what in a holds b (a strong edge a -> b): an instance field
// name, a static field name, or "[i]" for an array element; "" when a does
// not hold b.
func (h *Heap) RefName(a, b Node) string {
	id := h.ID(b)
	h.touch()
	off := h.offs.at(int(a))
	switch h.s.d[off] {
	case subObjectArray:
		count, _ := h.ArrayLength(a)
		p := off + 1 + h.idSize + 8 + h.idSize
		for i := range count {
			if readID(h.s.d[p+i*h.idSize:], h.idSize) == id {
				return "[" + strconv.Itoa(i) + "]"
			}
		}
		return ""
	}
	for _, f := range h.Fields(a) {
		if f.Strong && f.Bits == id {
			return f.Name
		}
	}
	return ""
}
