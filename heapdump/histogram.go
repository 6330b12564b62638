package heapdump

import (
	"cmp"
	"slices"
)

// ClassRow is one row of the class histogram (D9).
type ClassRow struct {
	Name               string `json:"name"`
	Instances          int    `json:"instances"`
	Shallow            uint64 `json:"shallow"`
	Retained           uint64 `json:"retained"`
	ReachableInstances int    `json:"reachable_instances"`
	ReachableShallow   uint64 `json:"reachable_shallow"`
}

// HeapRow is one heap's totals (D15).
type HeapRow struct {
	Name    string `json:"name"`
	Objects int    `json:"objects"`
	Bytes   uint64 `json:"bytes"`
}

// Histogram returns one row per class name with at least one node, by
// retained size descending, then shallow descending, then name: over every
// heap (D9), or over the nodes of the named heaps only (the viewer's
// app-heap table), where a class's retained size adds the retained sizes
// of its nodes in those heaps that D9 counts. The JSON, the text report,
// the viewer and the diff all take their rows from here.
func (h *Heap) Histogram(heaps ...string) []ClassRow {
	var in []bool
	if len(heaps) > 0 {
		in = make([]bool, len(h.heaps))
		for i, name := range h.heaps {
			in[i] = slices.Contains(heaps, name)
		}
	}
	rows := make([]ClassRow, len(h.names))
	for i, name := range h.names {
		rows[i].Name = name
		if in == nil {
			rows[i].Retained = h.nameRet[i]
		}
	}
	for x := range h.n {
		if in != nil && !in[h.heapOf[x]] {
			continue
		}
		r := &rows[nameOf(h, x)]
		if in != nil && h.classTop[x>>6]&(1<<(x&63)) != 0 {
			r.Retained += h.Retained(Node(x))
		}
		size := h.Shallow(Node(x))
		r.Instances++
		r.Shallow += size
		if h.idom[x] != -2 {
			r.ReachableInstances++
			r.ReachableShallow += size
		}
	}
	rows = slices.DeleteFunc(rows, func(r ClassRow) bool { return r.Instances == 0 })
	slices.SortFunc(rows, func(a, b ClassRow) int {
		return cmp.Or(cmp.Compare(b.Retained, a.Retained), cmp.Compare(b.Shallow, a.Shallow), cmp.Compare(a.Name, b.Name))
	})
	return rows
}

// Heaps returns the heaps that hold nodes, in order of their first
// appearance ("default" first when objects come before any), with their
// totals (D15).
func (h *Heap) Heaps() []HeapRow {
	rows := make([]HeapRow, len(h.heaps))
	for i, name := range h.heaps {
		rows[i].Name = name
	}
	for x, hi := range h.heapOf {
		rows[hi].Objects++
		rows[hi].Bytes += h.Shallow(Node(x))
	}
	return slices.DeleteFunc(rows, func(r HeapRow) bool { return r.Objects == 0 })
}

// Instances returns the nodes of a class name (D3) in the named heap (""
// for every heap), by retained size descending (unreachable ones, with
// none, last), then id.
func (h *Heap) Instances(className, heap string) []Node {
	ni, ok := h.nameIdx[className]
	if !ok {
		return nil
	}
	hi := -1
	if heap != "" {
		hi = slices.Index(h.heaps, heap)
		if hi < 0 {
			return nil
		}
	}
	var out []Node
	for x := range h.n {
		if nameOf(h, x) == ni && (hi < 0 || int(h.heapOf[x]) == hi) {
			out = append(out, Node(x))
		}
	}
	byRetained(h, out)
	return out
}

// byRetained orders nodes by retained size descending, then id ascending.
func byRetained(h *Heap, nodes []Node) {
	slices.SortFunc(nodes, func(a, b Node) int {
		return cmp.Or(cmp.Compare(h.Retained(b), h.Retained(a)), cmp.Compare(h.ID(a), h.ID(b)))
	})
}
