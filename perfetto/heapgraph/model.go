package heapgraph

import (
	"math"
	"strconv"
	"strings"
)

// The adapter: a Graph in the terms of a heap model builder
// (spec/hprof-analysis.md D1–D16, as spec/perfetto-heapgraph.md adapts
// them). Nothing here knows the model; the builder takes these plain
// values:
//
//   - Model.Classes: one per type, with its name (D3), superclass index,
//     kind and, for a class object's synthetic type `java.lang.Class<X>`,
//     the index of X (so the builder can name the object "java.lang.Class"
//     as HPROF's D3 does, or keep the statics' own name as Perfetto does).
//   - Model.Roots (D5): the root records' objects, every class object and
//     every zygote and boot-image object, each once, in that order; ids
//     that name no object are left out.
//   - EachNode (D1, D2, D4, D15): each object once (a repeated id: the first
//     counts), its class, shallow size, heap name and its references with
//     field names as HPROF's paths give them ("mListener", "[3]", a static's
//     name), the declaring class, and Weak set on the referent of
//     java.lang.ref.Reference (not a strong edge, D4). Null references are
//     passed with To 0 where the graph has them (API 31+ instances), so a
//     builder can tell a null field (D12's detached Fragment) from a
//     missing one.
//
// What a heap graph cannot carry (primitive values: strings' text, bitmap
// pixels, an Activity's mDestroyed) is not there; the builder says so.

// ClassObjectPrefix starts the name of a class object's synthetic type.
const ClassObjectPrefix = "java.lang.Class<"

// Model is the class table and the roots of a graph.
type Model struct {
	PID       int32
	Timestamp uint64
	Classes   []ModelClass
	Roots     []ModelRoot
}

// ModelClass is one type of the graph as a class of the model.
type ModelClass struct {
	Name  string
	Super int32 // index in Model.Classes, -1 for none
	Kind  Kind
	// ClassOf is, for a class object's synthetic type, the index of the
	// class the object is (-1 otherwise, or when no type has that name).
	ClassOf     int32
	ClassObject bool
}

// ModelRoot is a GC root of the model: a root record's type, or
// RootStickyClass for a class object and RootVMInternal for a zygote or
// boot-image object when no record names them.
type ModelRoot struct {
	ID   uint64
	Type RootType
}

// Edge is one reference of a node.
type Edge struct {
	// Field is the name a path shows: the field's simple name, or "[i]"
	// for element i of an array ("" when the graph gives none).
	Field string
	// Decl is the class declaring the field ("" for an array element).
	Decl string
	To   uint64 // 0: null
	// Weak marks java.lang.ref.Reference.referent: not a strong edge.
	Weak bool
}

// Node is one object of the model.
type Node struct {
	ID      uint64
	Class   int32 // index in Model.Classes
	Shallow uint64
	Heap    string
	Edges   []Edge
}

// Model returns the graph's classes and roots.
func (g *Graph) Model() *Model {
	m := &Model{PID: g.PID, Timestamp: g.Timestamp, Classes: make([]ModelClass, len(g.Types))}
	byName := make(map[string]int32, len(g.Types))
	for i, t := range g.Types {
		if _, ok := byName[t.Name]; !ok {
			byName[t.Name] = int32(i)
		}
	}
	for i, t := range g.Types {
		c := ModelClass{Name: t.Name, Super: t.Super, Kind: t.Kind, ClassOf: -1}
		if strings.HasPrefix(t.Name, ClassObjectPrefix) && strings.HasSuffix(t.Name, ">") {
			c.ClassObject = true
			if x, ok := byName[t.Name[len(ClassObjectPrefix):len(t.Name)-1]]; ok {
				c.ClassOf = x
			}
		}
		m.Classes[i] = c
	}
	seen := newIDSet(len(g.ID))
	for i, id := range g.ID {
		if _, dup := seen.get(id); !dup {
			seen.add(id, int32(i))
		}
	}
	rooted := newIDSet(len(g.Roots))
	addRoot := func(id uint64, t RootType) {
		if _, ok := seen.get(id); !ok {
			return
		}
		if _, dup := rooted.get(id); dup {
			return
		}
		rooted.add(id, 0)
		m.Roots = append(m.Roots, ModelRoot{ID: id, Type: t})
	}
	for _, r := range g.Roots {
		addRoot(r.ID, r.Type)
	}
	// A repeated id: its first object counts (D1).
	first := func(i int, id uint64) bool { v, _ := seen.get(id); return int(v) == i }
	for i, id := range g.ID {
		if m.Classes[g.Type[i]].ClassObject && first(i, id) {
			addRoot(id, RootStickyClass)
		}
	}
	for i, id := range g.ID {
		if (g.Heap[i] == HeapZygote || g.Heap[i] == HeapBootImage) && first(i, id) {
			addRoot(id, RootVMInternal)
		}
	}
	return m
}

// EachNode calls fn for each object in file order, once per id (the first
// counts). The Node and its Edges are reused: fn copies what it keeps.
func (g *Graph) EachNode(fn func(n *Node) error) error {
	var (
		n    Node
		seen = newIDSet(len(g.ID))
		// The field names split once, by iid.
		fields = make(map[uint32][2]string, len(g.names))
		elems  []string // "[i]", made once per index
	)
	for iid, s := range g.names {
		if iid <= math.MaxUint32 {
			_, decl, name := SplitFieldName(s)
			fields[uint32(iid)] = [2]string{decl, name}
		}
	}
	for i, id := range g.ID {
		if _, dup := seen.get(id); dup {
			continue
		}
		seen.add(id, 0)
		t := &g.Types[g.Type[i]]
		n.ID, n.Class, n.Shallow, n.Heap, n.Edges = id, g.Type[i], uint64(g.Size[i]), g.Heap[i].Name(), n.Edges[:0]
		from, to := g.RefRange(i)
		for k := from; k < to; k++ {
			e := Edge{To: g.Refs[k]}
			if f := g.FieldOf[k]; f != 0 {
				dn := fields[f]
				e.Decl, e.Field = dn[0], dn[1]
				e.Weak = e.Field == "referent" && e.Decl == "java.lang.ref.Reference"
			} else if t.Kind == KindArray {
				for len(elems) <= k-from {
					elems = append(elems, "["+strconv.Itoa(len(elems))+"]")
				}
				e.Field = elems[k-from]
			}
			n.Edges = append(n.Edges, e)
		}
		if err := fn(&n); err != nil {
			return err
		}
	}
	return nil
}

// idSet is an open-addressing hash set of object ids (no per-entry
// allocation; about 12 bytes per id).
type idSet struct {
	keys []uint64
	vals []int32
	mask uint64
}

func newIDSet(n int) *idSet {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	return &idSet{keys: make([]uint64, size), vals: make([]int32, size), mask: uint64(size - 1)}
}

func (s *idSet) slot(id uint64) uint64 {
	h := (id * 0x9E3779B97F4A7C15) & s.mask
	for s.keys[h] != 0 && s.keys[h] != id {
		h = (h + 1) & s.mask
	}
	return h
}

// add inserts id (never 0: the decoder refuses object id 0).
func (s *idSet) add(id uint64, v int32) {
	h := s.slot(id)
	s.keys[h], s.vals[h] = id, v
}

func (s *idSet) get(id uint64) (int32, bool) {
	if id == 0 {
		return 0, false
	}
	h := s.slot(id)
	return s.vals[h], s.keys[h] == id
}
