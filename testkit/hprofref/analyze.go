package hprofref

import (
	"fmt"
	"sort"
)

// superRoot stands for the virtual super-root (D5) in parent and idom maps;
// no node has id 0.
const superRoot uint64 = 0

// Analysis holds every answer for one Dump.
type Analysis struct {
	D *Dump
	// RootSet are the super-root's children (D5): root nodes and class
	// objects, in file order (roots first).
	RootSet []uint64
	// Depth of every reachable node (D6, D11); unreachable nodes are absent.
	Depth map[uint64]int
	// Parent and ParentLabel give each reachable node's BFS parent and the
	// edge's label: a shortest path read backwards (D11).
	Parent      map[uint64]uint64
	ParentLabel map[uint64]string
	// Dominators of each reachable node: its strict dominators other than
	// the super-root (D7).
	Dominators map[uint64][]uint64
	// Idom of each reachable node (superRoot = 0 for the top level).
	Idom map[uint64]uint64
	// Retained size of each reachable node (D8).
	Retained map[uint64]uint64
}

// Analyze computes reachability, depths, dominators and retained sizes.
func (d *Dump) Analyze() *Analysis {
	a := &Analysis{D: d, Depth: map[uint64]int{}, Parent: map[uint64]uint64{}, ParentLabel: map[uint64]string{},
		Dominators: map[uint64][]uint64{}, Idom: map[uint64]uint64{}, Retained: map[uint64]uint64{}}
	// D5: the super-root's children.
	seen := map[uint64]bool{}
	for _, id := range d.Roots {
		if _, ok := d.Nodes[id]; ok && !seen[id] {
			seen[id] = true
			a.RootSet = append(a.RootSet, id)
		}
	}
	for _, id := range d.Order {
		if d.Nodes[id].Kind == KindClass && !seen[id] {
			seen[id] = true
			a.RootSet = append(a.RootSet, id)
		}
	}
	// D6, D11: breadth-first search from the super-root.
	queue := []uint64{}
	for _, id := range a.RootSet {
		a.Depth[id] = 1
		a.Parent[id] = superRoot
		queue = append(queue, id)
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range d.Edges(d.Nodes[v]) {
			if _, done := a.Depth[e.To]; !done {
				a.Depth[e.To] = a.Depth[v] + 1
				a.Parent[e.To] = v
				a.ParentLabel[e.To] = e.Label
				queue = append(queue, e.To)
			}
		}
	}
	// D7: each node's strict dominators (see dominators.go).
	a.Dominators = a.dominatorSets()
	// The immediate dominator is the strict dominator that all the others
	// dominate: the one with the most dominators of its own.
	for v := range a.Depth {
		a.Idom[v] = superRoot
		best := -1
		for _, dom := range a.Dominators[v] {
			if n := len(a.Dominators[dom]); n > best {
				best = n
				a.Idom[v] = dom
			}
		}
	}
	// D8: shallow size plus the shallow sizes of every dominated node.
	for v := range a.Depth {
		a.Retained[v] += d.Shallow(d.Nodes[v])
		for _, dom := range a.Dominators[v] {
			a.Retained[dom] += d.Shallow(d.Nodes[v])
		}
	}
	return a
}

// Reachable reports whether id is a reachable node (D6).
func (a *Analysis) Reachable(id uint64) bool {
	_, ok := a.Depth[id]
	return ok
}

// Path returns a shortest path from a root node or class object to id
// (D11), or nil if id is not a reachable node.
func (a *Analysis) Path(id uint64) []Hop {
	if !a.Reachable(id) {
		return nil
	}
	var rev []Hop
	for v := id; ; v = a.Parent[v] {
		h := Hop{Class: a.D.ClassName(a.D.Nodes[v]), ID: HexID(v)}
		if a.Parent[v] != superRoot {
			label := a.ParentLabel[v]
			h.Field = &label
		}
		rev = append(rev, h)
		if a.Parent[v] == superRoot {
			break
		}
	}
	path := make([]Hop, len(rev))
	for i, h := range rev {
		path[len(rev)-1-i] = h
	}
	return path
}

// ValidPath checks a claimed path to its last element against D11: it
// starts at a root node or class object with no field, each hop is a
// strong edge named by its field, each class is the node's (D3), and its
// length is the node's depth.
func (a *Analysis) ValidPath(path []Hop) error {
	if len(path) == 0 {
		return fmt.Errorf("empty path")
	}
	first := uint64(path[0].ID)
	isRoot := false
	for _, r := range a.RootSet {
		isRoot = isRoot || r == first
	}
	if !isRoot {
		return fmt.Errorf("path starts at %#x, which is neither a root node nor a class object", first)
	}
	if path[0].Field != nil {
		return fmt.Errorf("path's first element has field %q", *path[0].Field)
	}
	for i, h := range path {
		n := a.D.Nodes[uint64(h.ID)]
		if n == nil {
			return fmt.Errorf("hop %d: %#x is no node", i, uint64(h.ID))
		}
		if got := a.D.ClassName(n); got != h.Class {
			return fmt.Errorf("hop %d: %#x is a %s, not %s", i, uint64(h.ID), got, h.Class)
		}
		if i == 0 {
			continue
		}
		if h.Field == nil {
			return fmt.Errorf("hop %d: no field", i)
		}
		ok := false
		for _, e := range a.D.Edges(a.D.Nodes[uint64(path[i-1].ID)]) {
			ok = ok || (e.To == uint64(h.ID) && e.Label == *h.Field)
		}
		if !ok {
			return fmt.Errorf("hop %d: %#x has no strong edge %q to %#x", i, uint64(path[i-1].ID), *h.Field, uint64(h.ID))
		}
	}
	last := uint64(path[len(path)-1].ID)
	if depth := a.Depth[last]; depth != len(path) {
		return fmt.Errorf("path of %d elements to %#x, whose depth is %d", len(path), last, depth)
	}
	return nil
}

// classes is the class histogram (D9), by retained size descending, then
// name.
func (a *Analysis) classes() []Class {
	rows := map[string]*Class{}
	for _, id := range a.D.Order {
		n := a.D.Nodes[id]
		name := a.D.ClassName(n)
		row := rows[name]
		if row == nil {
			row = &Class{Name: name}
			rows[name] = row
		}
		size := a.D.Shallow(n)
		row.Instances++
		row.Shallow += size
		if !a.Reachable(id) {
			continue
		}
		row.ReachableInstances++
		row.ReachableShallow += size
		nested := false
		for _, dom := range a.Dominators[id] {
			nested = nested || a.D.ClassName(a.D.Nodes[dom]) == name
		}
		if !nested {
			row.Retained += a.Retained[id]
		}
	}
	var out []Class
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Retained != out[j].Retained {
			return out[i].Retained > out[j].Retained
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// topDominators are the super-root's children in the dominator tree (D10).
func (a *Analysis) topDominators() []Dominator {
	var out []Dominator
	for v := range a.Depth {
		if a.Idom[v] == superRoot {
			out = append(out, Dominator{ID: HexID(v), Class: a.D.ClassName(a.D.Nodes[v]), Retained: a.Retained[v]})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Retained != out[j].Retained {
			return out[i].Retained > out[j].Retained
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// heaps are the per-heap totals (D15), by name.
func (a *Analysis) heaps() []Heap {
	rows := map[string]*Heap{}
	for _, id := range a.D.Order {
		n := a.D.Nodes[id]
		if rows[n.Heap] == nil {
			rows[n.Heap] = &Heap{Name: n.Heap}
		}
		rows[n.Heap].Objects++
		rows[n.Heap].Bytes += a.D.Shallow(n)
	}
	var out []Heap
	for _, h := range rows {
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Result is the whole answer in the JSON shape of `hprof analyze --json`,
// with complete lists.
func (a *Analysis) Result() *Result {
	return &Result{Heaps: a.heaps(), Classes: a.classes(), Dominators: a.topDominators(), Leaks: a.leaks(),
		DuplicateStrings: a.duplicateStrings(), Bitmaps: a.bitmaps()}
}

// Diff compares two results by class name (D16): after minus before.
func Diff(before, after *Result) []DiffRow {
	rows := map[string]*DiffRow{}
	row := func(name string) *DiffRow {
		if rows[name] == nil {
			rows[name] = &DiffRow{Name: name}
		}
		return rows[name]
	}
	for _, c := range before.Classes {
		r := row(c.Name)
		r.InstancesDelta -= int64(c.Instances)
		r.ShallowDelta -= int64(c.Shallow)
		r.RetainedDelta -= int64(c.Retained)
	}
	for _, c := range after.Classes {
		r := row(c.Name)
		r.InstancesDelta += int64(c.Instances)
		r.ShallowDelta += int64(c.Shallow)
		r.RetainedDelta += int64(c.Retained)
	}
	var out []DiffRow
	for _, r := range rows {
		if r.InstancesDelta != 0 || r.ShallowDelta != 0 || r.RetainedDelta != 0 {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ShallowDelta != b.ShallowDelta {
			return a.ShallowDelta > b.ShallowDelta
		}
		if a.InstancesDelta != b.InstancesDelta {
			return a.InstancesDelta > b.InstancesDelta
		}
		return a.Name < b.Name
	})
	return out
}
