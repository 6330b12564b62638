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
// retained size descending, then shallow descending, then name.
func (h *Heap) Histogram() []ClassRow { return h.histogram(nil) }

// HistogramOfHeaps is the histogram over the nodes of the named heaps
// only (the viewer's app-heap view): a class's retained size adds the
// retained sizes of its nodes in those heaps that D9 counts.
func (h *Heap) HistogramOfHeaps(heaps ...string) []ClassRow {
	in := make([]bool, len(h.heaps))
	for i, name := range h.heaps {
		in[i] = slices.Contains(heaps, name)
	}
	return h.histogram(in)
}

func (h *Heap) histogram(inHeap []bool) []ClassRow {
	rows := make([]ClassRow, len(h.names))
	for i, name := range h.names {
		rows[i].Name = name
		if inHeap == nil {
			rows[i].Retained = h.nameRet[i]
		}
	}
	for x := range h.offs.len() {
		if inHeap != nil && !inHeap[h.heapOf[x]] {
			continue
		}
		r := &rows[h.cls[x]]
		if inHeap != nil && h.classTop[x>>6]&(1<<(x&63)) != 0 {
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

// HeapsByName returns the heaps that hold nodes, in order of their first
// HEAP DUMP INFO ("default" first when objects come before any).
func (h *Heap) HeapsByName() []HeapRow {
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

// byRetained orders nodes by retained size descending, then id ascending.
func (h *Heap) byRetained(nodes []Node) {
	slices.SortFunc(nodes, func(a, b Node) int {
		return cmp.Or(cmp.Compare(h.Retained(Node(b)), h.Retained(Node(a))), cmp.Compare(h.ID(a), h.ID(b)))
	})
}

// DominatorChildren returns the nodes n immediately dominates (SuperRoot:
// the top dominators, D10), by retained size descending, then id.
func (h *Heap) DominatorChildren(n Node) []Node {
	slot := domSlot(int32(n), h.offs.len())
	kids := h.domKids[h.domOff[slot]:h.domOff[slot+1]]
	out := make([]Node, len(kids))
	for i, k := range kids {
		out[i] = Node(k)
	}
	h.byRetained(out)
	return out
}

// TopDominators returns the first max top dominators (D10); max <= 0: all.
func (h *Heap) TopDominators(max int) []Node {
	n := h.offs.len()
	kids := h.domKids[h.domOff[n]:h.domOff[n+1]]
	if max <= 0 || len(kids) <= max {
		return h.DominatorChildren(SuperRoot)
	}
	// The max-th largest retained size bounds the candidates, so only
	// they are sorted (a dump has hundreds of thousands of roots).
	sizes := make([]uint64, len(kids))
	for i, k := range kids {
		sizes[i] = h.Retained(Node(k))
	}
	slices.Sort(sizes)
	bound := sizes[len(sizes)-max]
	var out []Node
	for _, k := range kids {
		if h.Retained(Node(k)) >= bound {
			out = append(out, Node(k))
		}
	}
	h.byRetained(out)
	return out[:max]
}

// Instances returns the nodes of a class name (D3), by retained size
// descending (unreachable ones, with none, last), then id.
func (h *Heap) Instances(className string) []Node {
	ni, ok := h.nameIdx[className]
	if !ok {
		return nil
	}
	var out []Node
	for x, c := range h.cls {
		if c == ni {
			out = append(out, Node(x))
		}
	}
	h.byRetained(out)
	return out
}

// Heaps returns the heap names in use, in order of appearance.
func (h *Heap) Heaps() []string {
	var out []string
	for _, r := range h.HeapsByName() {
		out = append(out, r.Name)
	}
	return out
}

// subclassOf reports whether class ci or a superclass is named name (D3).
func (h *Heap) subclassOf(ci int32, name string) bool {
	for steps := 0; ci >= 0 && steps <= len(h.classes); steps++ {
		if h.classes[ci].name == name {
			return true
		}
		ci = h.classes[ci].super
	}
	return false
}

// instancesOf returns the reachable instance nodes whose class satisfies
// match (asked once per class).
func (h *Heap) instancesOf(match func(ci int32) bool) []Node {
	ok := make([]bool, len(h.classes))
	want := make([]bool, len(h.names))
	found := false
	for i := range h.classes {
		if match(int32(i)) {
			ok[i], want[h.classes[i].nameIdx], found = true, true, true
		}
	}
	if !found {
		return nil
	}
	var out []Node
	seq := h.sequential()
	for x, c := range h.cls {
		if !want[c] || h.idom[x] == -2 || h.kinds[x] != subInstanceDump {
			continue
		}
		off := h.offs.at(x)
		seq.at(off)
		if ci, found := h.classByI[h.s.id(off+1+h.idSize+4)]; found && ok[ci] {
			out = append(out, Node(x))
		}
	}
	return out
}
