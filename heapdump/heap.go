// Package heapdump is the model of a Java heap dump: the index that readers
// build (objects, their types, shallow sizes and heaps, strong references,
// GC roots) and the queries over it, exactly as spec/hprof-analysis.md
// (D1–D16) defines them: the class histogram of every heap with shallow and
// retained sizes (Histogram), the dominator tree and its children
// (DominatorTree), shortest strong paths from GC roots (Paths), referrers
// (Referrers), leaked Activities and Fragments (Leaks), duplicate strings
// (Strings), bitmaps (Bitmaps), and the diff of two histograms (Diff);
// Report is the `--json` document built from them, WriteText the text one.
//
// Two readers feed it. Open and Analyze read an HPROF file (Android's 1.0.3
// and standard 1.0.2, 4- or 8-byte ids, converted or not): the file is
// mapped (never copied into the Go heap on linux) and indexed in two passes,
// and the values of fields and arrays are read from the mapping when a
// query asks (hprof_*.go). Any other reader (a Perfetto heap graph, package
// perfetto) feeds a Builder:
//
//	b := heapdump.NewBuilder("perfetto heap graph", heapdump.Options{})
//	b.Type(heapdump.Type{ID: 7, Name: "com.example.Foo", Super: 3, InstanceSize: 24,
//		RefFields: []string{"next", "owner"}}) // its own reference fields, in order
//	b.Object(heapdump.Object{ID: 0x1000, Type: 7, Kind: heapdump.KindInstance,
//		Size: heapdump.SizeOfType, Heap: "app",
//		Refs: []uint64{0x1010, 0}}) // values of next, owner, then the superclass's fields
//	b.Root(0x1000)
//	h, err := b.Finish()
//
// Types may arrive after the objects that name them; everything is resolved
// in Finish. An object's Refs are its reference values in field order, 0 for
// null: for an instance, its type's RefFields, then its superclass's, up the
// chain (RefFields nil); for an object array its elements; for a class
// object or any object whose names are its own, RefFields beside Refs
// ("Declaring.Class.name", or a plain name). Class objects (KindClass) name
// the type they stand for in ClassOf and are roots (D5); the reader adds the
// other roots. A heap fed this way has no primitive values (no field
// values, strings' text or array bytes): Unavailable says so, and the
// queries that need them (duplicate strings, bitmaps, Activities' mDestroyed
// and mFinished) report it rather than guess, while those decided by
// references alone (the histogram, dominators, retained sizes, paths,
// referrers, detached Fragments) answer as for HPROF.
//
// Class and field names pass through one place each (Heap.ClassName and
// Field.Name, from the types table), so a deobfuscation mapping has one
// place to rename them.
//
// Inside, no Go value exists per object: object ids are turned into node
// indices through a sorted array; edges are one CSR array; dominators are
// computed with Lengauer–Tarjan's semi-dominators and the semi-NCA finish
// over int32 indices, holding at most four 4-byte arrays a node beside the
// model (dominate says how); retained sizes by one pass over the DFS order;
// shortest paths by a BFS on first use.
//
// A *Heap is immutable once built (the paths' parents are built once, on
// first use, under a sync.Once) and safe for concurrent use by several
// goroutines until Close. Node is a node index; most methods take one.
package heapdump

import (
	"runtime/debug"
	"slices"
	"sync"
)

// Node is the index of an object in a Heap, 0 to NumNodes()-1.
type Node int32

// SuperRoot stands for the virtual super-root in dominator answers.
const SuperRoot Node = -1

// Options tune Open and a Builder.
type Options struct {
	// Progress, when set, is called with the phase ("scan", "graph",
	// "dominators", and "strings" from Report or Strings.Duplicates) and the
	// fraction of that phase done, from the goroutine doing that phase.
	Progress func(phase string, fraction float64)

	buildParts int // pass 2's workers; 0: two for large files (tests set it)
}

// Heap is the index of a heap dump: each node's type, shallow size, heap
// and strong edges, the roots, and what the analysis derives from them
// (dominators, retained sizes, shortest-path parents). The queries over it
// are types of their own (Histogram, DominatorTree, Paths, Referrers,
// Leaks, Strings, Bitmaps).
type Heap struct {
	vals      values // the reader's view of the objects' contents
	format    string
	idSize    int
	truncated bool
	truncOff  int64
	large     bool // collect between phases

	n         int
	index     *idIndex
	sortedPos []int32 // node -> position in the id index, when nodes are not in id order
	typ       []int32 // node -> index in types
	shallow   []uint32
	bigSize   map[int32]uint64 // shallow sizes that do not fit in 32 bits
	heapOf    []uint8
	kinds     []uint8 // node -> its Kind (HPROF's NODATA arrays keep their tag)
	heaps     []string
	roots     []uint64   // bitset: root node or class object (D5)
	rootKinds []rootKind // the root records' kinds by node (RootKind), HPROF only

	outOff []uint32 // CSR of strong edges (D4)
	outTgt []int32

	names   []string // class names (D3); types of one name share one
	nameIdx map[string]int32
	namesMu sync.Mutex // types grow while the HPROF reader's workers run
	types   []typeInfo
	classOf map[int32]int32 // class object node -> the type it stands for

	idom      []int32 // node -> immediate dominator node, -1 super-root, -2 unreachable
	retained  sizes
	bfs       shortest // node -> BFS parent, built on first use (Paths)
	domOff    []int32  // dominator tree children; slot n is the super-root
	domKids   []int32
	nameRet   []uint64 // names index -> histogram retained (D9)
	classTop  []uint64 // bitset: reachable nodes with no strict dominator of their class name
	reachable int

	rev reverse // the reverse edges, built on first use (Referrers)

	progress func(string, float64)
}

// typeInfo is one type of the dump: a class (of instances, or an array
// class), a primitive array type, or java.lang.Class.
type typeInfo struct {
	name    string
	nameIdx int32
	super   int32 // index in types of the superclass, -1 when none or not dumped
	node    int32 // the class object standing for it, -1 when none
}

// Kind is what a node is.
type Kind uint8

// The kinds of node (the values are HPROF's sub-record tags).
const (
	KindClass          Kind = subClassDump
	KindInstance       Kind = subInstanceDump
	KindObjectArray    Kind = subObjectArray
	KindPrimitiveArray Kind = subPrimitiveArray
)

// Close releases what the reader holds (an HPROF file's mapping). No
// method may be called during or after Close.
func (h *Heap) Close() error {
	if h.vals == nil {
		return nil
	}
	err := h.vals.close()
	h.vals = nil
	return err
}

// finish computes what the queries need once the reader has filled the
// index: dominators, retained sizes and the histogram's retained sizes.
// The shortest-path parents wait for the first query that needs them
// (Heap.pathParents): most analyses of a large dump never do, and their
// array would be one more of the few a node (see dominate).
func finish(h *Heap) {
	collect(h)
	dominate(h)
	histogramRetained(h)
	h.vals.released()
	collect(h)
}

// shortest holds the BFS parents of the paths (D11), computed once.
type shortest struct {
	once   sync.Once
	parent []int32 // node -> BFS parent, -1 for roots, -2 unreachable
}

// pathParents returns each node's parent on a shortest path from the
// super-root, computing them on first use.
func (h *Heap) pathParents() []int32 {
	h.bfs.once.Do(func() {
		// On a large heap, collect the query's garbage before and the
		// queue's chunks after: the BFS comes while a report is being
		// built, and its array is one more 4-byte array a node.
		collect(h)
		h.bfs.parent = shortestParents(h)
		collect(h)
	})
	return h.bfs.parent
}

// collect runs the garbage collector between phases of a large analysis
// and returns the freed memory to the system, so that one phase's
// temporary arrays are gone before the next phase allocates its own, and
// the peak is one phase's, not the sum (the arrays hold no pointers: a
// collection is cheap).
func collect(h *Heap) {
	if h.large {
		debug.FreeOSMemory()
	}
}

func phase(h *Heap, name string) func(float64) {
	if h.progress == nil {
		return nil
	}
	return func(f float64) { h.progress(name, f) }
}

// nameIndex returns the index of a class name, adding it.
func nameIndex(h *Heap, name string) int32 {
	if i, ok := h.nameIdx[name]; ok {
		return i
	}
	i := int32(len(h.names))
	h.names = append(h.names, name)
	h.nameIdx[name] = i
	return i
}

// addType appends a type and returns its index.
func addType(h *Heap, name string) int32 {
	h.types = append(h.types, typeInfo{name: name, nameIdx: nameIndex(h, name), super: -1, node: -1})
	return int32(len(h.types) - 1)
}

// NumNodes returns the number of objects (D1).
func (h *Heap) NumNodes() int { return h.n }

// IDSize returns the dump's identifier size, 4 or 8 (8 for a heap graph).
func (h *Heap) IDSize() int { return h.idSize }

// Version returns the dump's format: an HPROF header's version string, or
// what a Builder was given.
func (h *Heap) Version() string { return h.format }

// Truncated reports whether the file ended inside a record, and the offset
// of the first byte that was not analysed.
func (h *Heap) Truncated() (bool, int64) { return h.truncated, h.truncOff }

// Unavailable says what the dump cannot tell ("" when it holds every
// value): a heap graph carries no primitive values.
func (h *Heap) Unavailable() string { return h.vals.unavailable() }

// Lookup returns the node of an object id.
func (h *Heap) Lookup(id uint64) (Node, bool) {
	n := h.index.lookup(id)
	return Node(n), n >= 0
}

// ID returns a node's object id.
func (h *Heap) ID(n Node) uint64 {
	if h.sortedPos != nil {
		return h.index.at(int(h.sortedPos[n]))
	}
	return h.index.at(int(n))
}

// ClassName returns the node's class name in source form (D3).
func (h *Heap) ClassName(n Node) string { return h.names[h.types[h.typ[n]].nameIdx] }

// nameOf returns the names index of the node's class.
func nameOf(h *Heap, n int) int32 { return h.types[h.typ[n]].nameIdx }

// ClassObjectName returns the name of the class a class object stands
// for, "" for other nodes.
func (h *Heap) ClassObjectName(n Node) string {
	if t, ok := h.classOf[int32(n)]; ok {
		return h.types[t].name
	}
	return ""
}

// Kind returns what the node is.
func (h *Heap) Kind(n Node) Kind {
	if k := h.kinds[n]; k != subPrimitiveNoDat {
		return Kind(k)
	}
	return KindPrimitiveArray
}

// Shallow returns the node's shallow size (D2).
func (h *Heap) Shallow(n Node) uint64 {
	if v := h.shallow[n]; v != ^uint32(0) {
		return uint64(v)
	}
	return h.bigSize[int32(n)]
}

// Reachable reports whether the node is strongly reachable (D6).
func (h *Heap) Reachable(n Node) bool { return h.idom[n] != -2 }

// ReachableCount returns the number of reachable nodes.
func (h *Heap) ReachableCount() int { return h.reachable }

// Retained returns the node's retained size (D8); 0 when unreachable.
func (h *Heap) Retained(n Node) uint64 {
	if h.retained.big != nil {
		return h.retained.big[n]
	}
	return uint64(h.retained.small[n])
}

// Dominator returns the node's immediate dominator (D7): SuperRoot for a
// root node or class object, and false when the node is unreachable.
func (h *Heap) Dominator(n Node) (Node, bool) {
	d := h.idom[n]
	return Node(d), d != -2
}

// IsRoot reports whether the node is a GC root or a class object (D5).
func (h *Heap) IsRoot(n Node) bool { return h.roots[n>>6]&(1<<(n&63)) != 0 }

// HeapName returns the name of the heap the node belongs to (D15).
func (h *Heap) HeapName(n Node) string { return h.heaps[h.heapOf[n]] }

// Outgoing returns the node's strong edges (D4) in field order; the slice
// must not be changed.
func (h *Heap) Outgoing(n Node) []int32 { return h.outTgt[h.outOff[n]:h.outOff[n+1]] }

func setRoot(h *Heap, n int32) { h.roots[n>>6] |= 1 << (n & 63) }

// subclassesOf tells for each type whether it or a superclass is named
// name (D3), each type's chain followed once (a chain of n classes costs
// n, not n² as asking each class would); a chain that loops ends there.
func subclassesOf(h *Heap, name string) []bool {
	const unknown, busy, yes, no = 0, 1, 2, 3
	state := make([]uint8, len(h.types))
	var path []int32
	for i := range h.types {
		path = path[:0]
		t := int32(i)
		for t >= 0 && state[t] == unknown {
			if h.types[t].name == name {
				state[t] = yes
				break
			}
			state[t] = busy
			path = append(path, t)
			t = h.types[t].super
		}
		answer := uint8(no)
		if t >= 0 && state[t] == yes {
			answer = yes
		}
		for _, p := range path {
			state[p] = answer
		}
	}
	out := make([]bool, len(h.types))
	for i, s := range state {
		out[i] = s == yes
	}
	return out
}

// instancesOf returns the reachable instance nodes whose type is marked
// in ok (by type index).
func instancesOf(h *Heap, ok []bool) []Node {
	if !slices.Contains(ok, true) {
		return nil
	}
	var out []Node
	for x, t := range h.typ {
		if ok[t] && h.idom[x] != -2 && h.kinds[x] == subInstanceDump {
			out = append(out, Node(x))
		}
	}
	return out
}

// sizes holds retained sizes: 32 bits each when the heap is below 4 GiB.
type sizes struct {
	small []uint32
	big   []uint64
}
