// Package analysis computes what holds the memory in an HPROF heap dump:
// the class histogram with shallow and retained sizes, the dominator tree,
// shortest strong paths from GC roots, leaked Activities and Fragments,
// duplicate strings, bitmaps, heaps, and the diff of two dumps, exactly as
// spec/hprof-analysis.md (D1–D16) defines them. It reads Android (1.0.3)
// and standard (1.0.2) files with 4- or 8-byte ids, converted or not.
//
// Open maps the file (it is never copied into the Go heap on linux) and
// indexes it in two passes: pass 1 collects strings, class dumps and the id
// and offset of every object; pass 2 derives each node's class, shallow size
// and heap, and its strong edges in CSR form. Object ids are turned into
// node indices through a sorted array; dominators are computed with
// Lengauer–Tarjan's semi-dominators and the semi-NCA finish over int32
// indices; retained sizes by one pass over the dominator tree; shortest
// paths by a BFS. No Go value exists per object.
//
// A *Heap is immutable after Open and safe for concurrent use by several
// goroutines until Close. Node is a node index; most methods take one.
package heapdump

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Node is the index of an object in a Heap, 0 to NumNodes()-1.
type Node int32

// SuperRoot stands for the virtual super-root in dominator answers.
const SuperRoot Node = -1

// Options tune Open.
type Options struct {
	// Progress, when set, is called with the phase ("scan", "graph",
	// "dominators", and "strings" from Report or DuplicateStrings) and the
	// fraction of that phase done, from the goroutine doing that phase.
	Progress func(phase string, fraction float64)

	buildParts int // pass 2's workers; 0: two for large files (tests set it)
}

// Heap is an analysed heap dump.
type Heap struct {
	m       *mapping
	s       *scan
	idSize  int
	version string

	offs    offsets // node -> offset of its sub-record tag
	index   *idIndex
	cls     []int32 // node -> index in names
	shallow []uint32
	bigSize map[int32]uint64 // shallow sizes that do not fit in 32 bits
	heapOf  []uint8
	kinds   []uint8 // node -> its sub-record tag
	// sortedPos is node -> position in the id index, when nodes are not
	// in id order.
	sortedPos []int32
	heaps     []string
	roots     []uint64 // bitset: root node or class object (D5)

	outOff []uint32 // CSR of strong edges (D4)
	outTgt []int32

	names    []string
	nameIdx  map[string]int32
	namesMu  sync.Mutex // names grow while pass 2's workers run
	classIdx int32      // names index of java.lang.Class
	primIdx  [12]int32  // names index of each primitive array type
	classes  []classInfo
	classByI map[uint64]int32 // class id -> classes index
	classOf  map[int32]int32  // class object node -> classes index

	idom      []int32 // node -> immediate dominator node, -1 super-root, -2 unreachable
	retained  sizes
	bfsParent []int32 // node -> BFS parent, -1 for roots, -2 unreachable
	domOff    []int32 // dominator tree children; node len(offs) is the super-root
	domKids   []int32
	nameRet   []uint64 // names index -> histogram retained (D9)
	classTop  []uint64 // bitset: reachable nodes with no strict dominator of their class name
	reachable int

	reads   atomic.Uint32 // see touch
	revOnce sync.Once
	revOff  []uint32
	revSrc  []int32

	progress   func(string, float64)
	buildParts int
}

// Open analyses the HPROF file at path. A file cut short is analysed up to
// its last complete record (see Truncated); malformed input gives a
// *FormatError with the byte offset.
func Open(path string, opts Options) (*Heap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	m, err := mapFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	h, err := analyse(m, opts)
	if err != nil {
		m.close()
		return nil, err
	}
	return h, nil
}

// Analyze analyses an HPROF file held in memory. The Heap refers to data,
// which must not change.
func Analyze(data []byte, opts Options) (*Heap, error) {
	return analyse(&mapping{data: data}, opts)
}

// Close releases the file mapping. No method may be called during or after
// Close.
func (h *Heap) Close() error {
	if h.m == nil {
		return nil
	}
	err := h.m.close()
	h.m = nil
	return err
}

func analyse(m *mapping, opts Options) (*Heap, error) {
	h := &Heap{m: m, progress: opts.Progress, buildParts: opts.buildParts}
	s := &scan{d: m.data}
	h.s = s
	if err := s.pass1(func(off int) { m.release(0, off) }, h.phase("scan")); err != nil {
		return nil, err
	}
	h.idSize, h.version = s.idSize, s.version
	// Each phase's temporary arrays are collected before the next phase
	// allocates its own (the arrays hold no pointers: a collection is
	// cheap), so the peak is one phase's, not the sum.
	collect := h.collect
	h.nodes()
	collect()
	if err := h.build(); err != nil {
		return nil, err
	}
	m.release(0, len(m.data))
	collect()
	// The BFS for paths needs only the edges: it runs beside the
	// dominators, on the other core.
	bfs := make(chan struct{})
	go func() {
		h.paths()
		close(bfs)
	}()
	h.dominate()
	h.histogramRetained()
	<-bfs
	m.release(0, len(m.data))
	collect()
	return h, nil
}

// collect runs the garbage collector between phases of a large analysis
// and returns the freed memory to the system, so that one phase's
// temporary arrays are gone before the next phase allocates its own, and
// the peak is one phase's, not the sum (the arrays hold no pointers: a
// collection is cheap).
func (h *Heap) collect() {
	if len(h.s.d) > 16<<20 {
		debug.FreeOSMemory()
	}
}

// touch is called before each read of an object's bytes after Open: every
// few hundred reads it gives the file's pages back, so that queries over
// objects spread through the file never hold the whole file in memory
// (each page fault maps a neighbourhood of pages).
func (h *Heap) touch() {
	if h.reads.Add(1)%32 == 0 {
		h.m.release(0, len(h.m.data))
	}
}

func (h *Heap) phase(name string) func(float64) {
	if h.progress == nil {
		return nil
	}
	return func(f float64) { h.progress(name, f) }
}

// nodes turns pass 1's objects into nodes: the first dump of each id (D1),
// in file order, and the id index.
func (h *Heap) nodes() {
	s := h.s
	n := len(s.objIDs)
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	keys, pos := radixSort(s.objIDs, pos) // objIDs is not needed after this
	// Drop later dumps of an id: they are marked dead in file order.
	var dead []int32
	u := 0
	for i := range keys {
		if i > 0 && keys[i] == keys[u-1] {
			dead = append(dead, pos[i])
			continue
		}
		keys[u], pos[u] = keys[i], pos[i]
		u++
	}
	keys, pos = keys[:u], pos[:u]
	offs := s.objOffs
	if len(dead) > 0 {
		radixSortInt32(dead)
		// node = file position minus the dead positions before it.
		offs = newOffsets(len(s.d), u)
		j := 0
		for i := range s.objOffs.len() {
			if j < len(dead) && dead[j] == int32(i) {
				j++
				continue
			}
			offs.add(s.objOffs.at(i))
		}
		for i, p := range pos {
			pos[i] = p - int32(countBelow(dead, p))
		}
		// Heap marks count file positions too.
		for i := range s.heaps {
			s.heaps[i].pos -= countBelow(dead, int32(s.heaps[i].pos))
		}
	}
	identity := true
	for i, p := range pos {
		if p != int32(i) {
			identity = false
			break
		}
	}
	if identity {
		pos = nil
	}
	h.offs = offs
	if pos != nil {
		h.sortedPos = make([]int32, len(pos))
		for i, p := range pos {
			h.sortedPos[p] = int32(i)
		}
	}
	h.index = newIDIndex(keys, pos)
	s.objIDs, s.objOffs = nil, offsets{}
}

// countBelow returns how many of the sorted values are below v.
func countBelow(sorted []int32, v int32) int {
	lo, hi := 0, len(sorted)
	for lo < hi {
		m := (lo + hi) / 2
		if sorted[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func radixSortInt32(v []int32) {
	keys := make([]uint64, len(v))
	for i, x := range v {
		keys[i] = uint64(uint32(x))
	}
	_, out := radixSort(keys, v)
	copy(v, out)
}

// NumNodes returns the number of objects (D1).
func (h *Heap) NumNodes() int { return h.offs.len() }

// IDSize returns the file's identifier size, 4 or 8.
func (h *Heap) IDSize() int { return h.idSize }

// Version returns the file's header version string.
func (h *Heap) Version() string { return h.version }

// Truncated reports whether the file ended inside a record, and the offset
// of the first byte that was not analysed.
func (h *Heap) Truncated() (bool, int64) { return h.s.truncated, h.s.truncOff }

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
func (h *Heap) ClassName(n Node) string { return h.names[h.cls[n]] }

// ClassObjectName returns the name of the class a class object stands
// for, "" for other nodes.
func (h *Heap) ClassObjectName(n Node) string {
	if ci, ok := h.classOf[int32(n)]; ok {
		return h.classes[ci].name
	}
	return ""
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

// ReachableCount returns the number of reachable nodes.
func (h *Heap) ReachableCount() int { return h.reachable }

// kind returns the sub-record tag of the node's dump.
func (h *Heap) kind(n Node) byte { return h.kinds[n] }

// offsets holds file offsets compactly: 32 bits each below 4 GiB.
type offsets struct {
	small []uint32
	big   []int64
}

func newOffsets(fileSize, capacity int) offsets {
	if uint64(fileSize) <= 1<<32 {
		return offsets{small: make([]uint32, 0, capacity)}
	}
	return offsets{big: make([]int64, 0, capacity)}
}

func (o *offsets) add(off int) {
	if o.big == nil && uint64(off) < 1<<32 {
		o.small = append(o.small, uint32(off))
		return
	}
	if o.big == nil { // past 4 GiB: widen
		o.big = make([]int64, len(o.small), len(o.small)+1)
		for i, v := range o.small {
			o.big[i] = int64(v)
		}
		o.small = nil
	}
	o.big = append(o.big, int64(off))
}

func (o *offsets) at(i int) int {
	if o.big != nil {
		return int(o.big[i])
	}
	return int(o.small[i])
}

func (o *offsets) len() int {
	if o.big != nil {
		return len(o.big)
	}
	return len(o.small)
}

// sizes holds retained sizes: 32 bits each when the heap is below 4 GiB.
type sizes struct {
	small []uint32
	big   []uint64
}
