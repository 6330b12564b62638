package heapdump

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"
)

// hprofFile is the HPROF reader: it indexes a file into a Heap (Open,
// Analyze) and, afterwards, reads the values of fields and arrays from the
// file's mapping when a query asks (hprof_values.go, hprof_strings.go).
type hprofFile struct {
	h      *Heap
	m      *mapping
	s      *scan
	idSize int
	offs   offsets // node -> offset of its sub-record tag

	classes  []hprofClass     // CLASS DUMPs; classes[i] is type i of the heap
	classByI map[uint64]int32 // class id -> classes (and types) index

	// The STRING records' texts as names, interned by string id: however
	// many classes, fields and heap marks name one record, its text is
	// held once (a 1 MiB name named by 65,535 fields is 1 MiB).
	namesMu sync.Mutex
	names   map[uint64]string // string id -> text
	sources map[uint64]string // string id -> the text as a class name in source form (D3)

	reads      atomic.Uint32 // see touch
	scanned    atomic.Uint64 // array elements read to find an element's index (tests)
	buildParts int
}

// hprofClass is what the reader knows of one class (a CLASS DUMP, the
// first of its id): a few thousand per file.
type hprofClass struct {
	dump    *classDump
	fields  []string // names of dump.fields
	renamed []string // names of dump.statics once renamed (nil: from the file)
	statics uint64   // shallow size of the class object (D2)
	// The class's own strong object fields (D4): their offsets in its own
	// part of the instance data, and that part's size.
	ownRefs []uint32
	ownSize int
	// next is the nearest superclass whose own part is not empty (-1 at
	// the end): a walk of the chain along next consumes a byte of instance
	// data at least each step.
	next int32
	// refOffs are the offsets of the strong object fields over the whole
	// chain, when they are few (maxFlatRefs); else walk is set and the
	// chain is walked for each instance. Flattening a long chain in each of
	// its classes would cost its length squared.
	refOffs []uint32
	walk    bool
}

// maxFlatRefs bounds the offsets a class keeps over its chain, and the
// classes looked at to find them.
const maxFlatRefs = 64

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

func analyse(m *mapping, opts Options) (*Heap, error) {
	h := &Heap{progress: opts.Progress, large: len(m.data) > 16<<20}
	r := &hprofFile{h: h, m: m, s: &scan{d: m.data}, buildParts: opts.buildParts}
	h.vals = r
	s := r.s
	if err := s.pass1(func(off int) { m.release(0, off) }, phase(h, "scan")); err != nil {
		return nil, err
	}
	r.idSize = s.idSize
	h.format, h.idSize, h.truncated, h.truncOff = s.version, s.idSize, s.truncated, s.truncOff
	// Each phase's temporary arrays are collected before the next phase
	// allocates its own (the arrays hold no pointers: a collection is
	// cheap), so the peak is one phase's, not the sum.
	r.nodes()
	collect(h)
	if err := r.build(); err != nil {
		return nil, err
	}
	m.release(0, len(m.data))
	finish(h)
	return h, nil
}

// unavailable: an HPROF file holds every value.
func (r *hprofFile) unavailable() string { return "" }

// released gives the file's pages back after a pass over it.
func (r *hprofFile) released() { r.m.release(0, len(r.m.data)) }

func (r *hprofFile) close() error {
	if r.m == nil {
		return nil
	}
	err := r.m.close()
	r.m = nil
	return err
}

// touch is called before each read of an object's bytes after Open: every
// few hundred reads it gives the file's pages back, so that queries over
// objects spread through the file never hold the whole file in memory
// (each page fault maps a neighbourhood of pages).
func (r *hprofFile) touch() {
	if r.reads.Add(1)%32 == 0 {
		r.m.release(0, len(r.m.data))
	}
}

// nodes turns pass 1's objects into nodes: the first dump of each id (D1),
// in file order, and the id index.
func (r *hprofFile) nodes() {
	s, h := r.s, r.h
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
	r.offs = offs
	h.n = offs.len()
	setIndex(h, keys, pos)
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

// name returns the text of STRING record id, interned.
func (r *hprofFile) name(id uint64) (string, bool) {
	r.namesMu.Lock()
	defer r.namesMu.Unlock()
	return r.nameLocked(id)
}

func (r *hprofFile) nameLocked(id uint64) (string, bool) {
	if s, ok := r.names[id]; ok {
		return s, true
	}
	s, ok := r.s.str(id)
	if !ok {
		return "", false
	}
	if r.names == nil {
		r.names = map[uint64]string{}
	}
	r.names[id] = s
	return s, true
}

// className returns the source-form name of class id from its LOAD CLASS,
// interned by the name's string id.
func (r *hprofFile) className(id uint64) string {
	sid, ok := r.s.loads[id]
	if !ok {
		return fmt.Sprintf(unknownClassFmt, id)
	}
	r.namesMu.Lock()
	defer r.namesMu.Unlock()
	if s, ok := r.sources[sid]; ok {
		return s
	}
	name, ok := r.nameLocked(sid)
	if !ok {
		return fmt.Sprintf(unknownClassFmt, id)
	}
	if src := SourceName(name); src != name {
		name = src
	}
	if r.sources == nil {
		r.sources = map[uint64]string{}
	}
	r.sources[sid] = name
	return name
}

// classSetup builds the class table (the first types of the heap) and the
// layout of each class's instance fields over its superclass chain.
func (r *hprofFile) classSetup() {
	s, h := r.s, r.h
	h.nameIdx = make(map[string]int32)
	r.classByI = make(map[uint64]int32, len(s.classes))
	h.classOf = make(map[int32]int32, len(s.classes))
	for i := range s.classes {
		c := &s.classes[i]
		if _, dup := r.classByI[c.id]; dup {
			continue
		}
		t := addType(h, r.className(c.id))
		h.types[t].node = h.index.lookup(c.id)
		hc := hprofClass{dump: c}
		for _, f := range c.fields {
			hc.fields = append(hc.fields, r.fieldName(f.name))
		}
		for _, sf := range c.statics {
			hc.statics += uint64(typeSize(sf.typ, r.idSize))
		}
		r.classByI[c.id] = t
		r.classes = append(r.classes, hc)
	}
	for i := range r.classes {
		c, t := &r.classes[i], &h.types[i]
		if sup, ok := r.classByI[c.dump.super]; ok && c.dump.super != 0 {
			t.super = sup
		}
		if t.node >= 0 && r.offs.at(int(t.node)) == c.dump.off {
			h.classOf[t.node] = int32(i)
		} else {
			t.node = -1
		}
	}
	for i := range r.classes {
		c := &r.classes[i]
		for k, f := range c.dump.fields {
			if isObjectType(f.typ) && !isReferent(h, int32(i), c.fields[k]) {
				c.ownRefs = append(c.ownRefs, uint32(c.ownSize))
			}
			c.ownSize += typeSize(f.typ, r.idSize)
		}
	}
	r.linkChains()
	for i := range r.classes {
		c := &r.classes[i]
		base, steps := 0, 0
		for k := int32(i); k >= 0; k = r.classes[k].next {
			kc := &r.classes[k]
			if steps++; steps > maxFlatRefs || len(c.refOffs)+len(kc.ownRefs) > maxFlatRefs {
				c.refOffs, c.walk = nil, true
				break
			}
			for _, fo := range kc.ownRefs {
				c.refOffs = append(c.refOffs, uint32(base)+fo)
			}
			base += kc.ownSize
		}
	}
}

// linkChains sets each class's next: its nearest superclass with fields of
// its own, -1 at the end of the chain or where the chain loops.
func (r *hprofFile) linkChains() {
	const unknown, busy = -2, -3
	for i := range r.classes {
		r.classes[i].next = unknown
	}
	var path []int32
	for i := range r.classes {
		// Walk up to a class whose next is known, then set the path's.
		path = path[:0]
		k := int32(i)
		for k >= 0 && r.classes[k].next == unknown {
			r.classes[k].next = busy
			path = append(path, k)
			k = r.h.types[k].super
		}
		// k is -1, a class already linked, or one on this path (a loop).
		end := int32(-1)
		if k >= 0 && r.classes[k].next != busy {
			end = k
			if r.classes[k].ownSize == 0 {
				end = r.classes[k].next
			}
		}
		for j := len(path) - 1; j >= 0; j-- {
			r.classes[path[j]].next = end
			if r.classes[path[j]].ownSize > 0 {
				end = path[j]
			}
		}
	}
}

// eachField calls fn for the instance fields of class ci and its
// superclasses in data order (the class's own first), with the declaring
// class and the field's name, until fn returns false. Superclasses
// without fields are skipped (next).
func (r *hprofFile) eachField(ci int32, fn func(decl int32, f fieldDecl, name string) bool) {
	for ; ci >= 0; ci = r.classes[ci].next {
		c := &r.classes[ci]
		for i, f := range c.dump.fields {
			if !fn(ci, f, c.fields[i]) {
				return
			}
		}
	}
}

// build is pass 2: each node's type, shallow size, heap and strong edges.
// The nodes are split in two halves built side by side, each into its own
// edge list; the lists are joined after.
func (r *hprofFile) build() error {
	h := r.h
	r.classSetup()
	n := h.n
	classType := addType(h, nameClass)
	var primType [12]int32
	for t, name := range primitiveArrayNames {
		if name != "" {
			primType[t] = addType(h, name)
		}
	}
	h.typ = make([]int32, n)
	h.shallow = make([]uint32, n)
	h.heapOf = make([]uint8, n)
	h.kinds = make([]uint8, n)
	h.roots = make([]uint64, (n+63)/64)
	h.outOff = make([]uint32, n+1)
	r.heapMarks()
	parts := r.buildParts
	if parts <= 0 {
		parts = 1
		if n >= 1<<16 {
			parts = 2
		}
	}
	workers := make([]buildWorker, parts)
	var wg sync.WaitGroup
	for k := range workers {
		w := &workers[k]
		w.r, w.lo, w.hi = r, n*k/parts, n*(k+1)/parts
		w.classType, w.primType = classType, primType
		w.tgt = make([]int32, 0, (w.hi-w.lo)*3) // capacity never written costs no memory
		w.lastCI = -1
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(k == 0)
		}()
	}
	wg.Wait()
	total := 0
	for k := range workers {
		w := &workers[k]
		if w.err != nil {
			return w.err
		}
		for i := w.lo; i < w.hi; i++ {
			h.outOff[i+1] += uint32(total)
		}
		total += len(w.tgt)
		for i, v := range w.big {
			if h.bigSize == nil {
				h.bigSize = make(map[int32]uint64)
			}
			h.bigSize[i] = v
		}
	}
	if total >= math.MaxInt32 {
		return fmt.Errorf("more than %d references: too large to analyse", math.MaxInt32)
	}
	if parts == 1 {
		h.outTgt = workers[0].tgt
	} else {
		h.outTgt = make([]int32, 0, total)
		for k := range workers {
			h.outTgt = append(h.outTgt, workers[k].tgt...)
			workers[k].tgt = nil
		}
	}
	for i, k := range h.kinds {
		if k == subClassDump {
			setRoot(h, int32(i))
		}
	}
	for i, id := range r.s.roots {
		if t := h.index.lookup(id); t >= 0 {
			setRoot(h, t)
			h.rootKinds = append(h.rootKinds, rootKind{node: t, tag: r.s.rootTag[i]})
		}
	}
	sortRootKinds(h)
	r.s.roots, r.s.rootTag = nil, nil
	return nil
}

// buildWorker builds nodes [lo, hi) of pass 2.
type buildWorker struct {
	r         *hprofFile
	lo, hi    int
	classType int32
	primType  [12]int32
	tgt       []int32          // edges, in node order
	big       map[int32]uint64 // shallow sizes past 32 bits
	lastClass uint64
	lastCI    int32
	err       error
}

func (w *buildWorker) setSize(i int, v uint64) {
	if v >= math.MaxUint32 {
		if w.big == nil {
			w.big = make(map[int32]uint64)
		}
		w.big[int32(i)] = v
		v = math.MaxUint32
	}
	w.r.h.shallow[i] = uint32(v)
}

func (w *buildWorker) edge(id uint64) {
	if id == 0 {
		return
	}
	if t := w.r.h.index.lookup(id); t >= 0 {
		w.tgt = append(w.tgt, t)
	}
}

// undumped returns the type of a class id without a CLASS DUMP (named by
// its LOAD CLASS), adding it under a lock: the workers share the type
// table (few types are added in this pass).
func (w *buildWorker) undumped(id uint64, seen map[uint64]int32) int32 {
	if t, ok := seen[id]; ok {
		return t
	}
	h := w.r.h
	name := w.r.className(id)
	h.namesMu.Lock()
	t := addType(h, name)
	h.namesMu.Unlock()
	seen[id] = t
	return t
}

// walkEdges adds an instance's edges by walking its class chain: each step
// past the first consumes a byte of data at least, so the walk is bounded
// by the instance's size.
func (w *buildWorker) walkEdges(ci int32, data []byte) {
	r := w.r
	base := 0
	for k := ci; k >= 0 && base < len(data); k = r.classes[k].next {
		c := &r.classes[k]
		for _, fo := range c.ownRefs {
			if base+int(fo)+r.idSize > len(data) {
				return
			}
			w.edge(readID(data[base+int(fo):], r.idSize))
		}
		base += c.ownSize
	}
}

func (w *buildWorker) run(reportProgress bool) {
	r := w.r
	h := r.h
	s, d, idSize := r.s, r.s.d, r.idSize
	var progress func(float64)
	if reportProgress {
		progress = phase(h, "graph")
	}
	seen := make(map[uint64]int32) // class ids without a CLASS DUMP -> type
	lastRelease := 0
	if w.lo < w.hi {
		lastRelease = r.offs.at(w.lo)
	}
	for i := w.lo; i < w.hi; i++ {
		off := r.offs.at(i)
		p := off + 1 + idSize + 4
		h.kinds[i] = d[off]
		switch d[off] {
		case subInstanceDump:
			cid := s.id(p)
			if cid != w.lastClass || w.lastCI < 0 {
				w.lastClass = cid
				ci, ok := r.classByI[cid]
				if !ok {
					ci = -1
				}
				w.lastCI = ci
			}
			length := int(binary.BigEndian.Uint32(d[p+idSize:]))
			data := d[p+idSize+4 : p+idSize+4+length]
			if w.lastCI < 0 {
				h.typ[i] = w.undumped(cid, seen)
				w.setSize(i, uint64(length))
				break
			}
			c := &r.classes[w.lastCI]
			h.typ[i] = w.lastCI
			w.setSize(i, uint64(c.dump.instSize))
			if c.walk {
				w.walkEdges(w.lastCI, data)
				break
			}
			for _, fo := range c.refOffs {
				if int(fo)+idSize > len(data) {
					break
				}
				w.edge(readID(data[fo:], idSize))
			}
		case subObjectArray:
			count := int(binary.BigEndian.Uint32(d[p:]))
			acid := s.id(p + 4)
			t, ok := r.classByI[acid]
			if !ok {
				t = w.undumped(acid, seen)
			}
			h.typ[i] = t
			w.setSize(i, uint64(count)*uint64(idSize))
			el := p + 4 + idSize
			for k := range count {
				w.edge(readID(d[el+k*idSize:], idSize))
			}
		case subPrimitiveArray, subPrimitiveNoDat:
			count := uint64(binary.BigEndian.Uint32(d[p:]))
			t := d[p+4]
			h.typ[i] = w.primType[t]
			w.setSize(i, count*uint64(typeSize(t, idSize)))
		case subClassDump:
			h.typ[i] = w.classType
			ci, ok := h.classOf[int32(i)]
			if !ok { // a later CLASS DUMP of an id dumped as a class before
				break
			}
			c := &r.classes[ci]
			w.setSize(i, c.statics)
			for _, sf := range c.dump.statics {
				if isObjectType(sf.typ) {
					w.edge(sf.value)
				}
			}
		}
		if len(w.tgt) >= math.MaxInt32 {
			w.err = fmt.Errorf("more than %d references: too large to analyse", math.MaxInt32)
			return
		}
		h.outOff[i+1] = uint32(len(w.tgt))
		if off-lastRelease > 8<<20 {
			r.m.release(lastRelease, off)
			lastRelease = off
			if progress != nil {
				progress(float64(i-w.lo) / float64(w.hi-w.lo))
			}
		}
	}
}

// heapMarks assigns each node its heap (D15).
func (r *hprofFile) heapMarks() {
	h := r.h
	h.heaps = []string{"default"}
	idx := map[string]uint8{"default": 0}
	marks := r.s.heaps
	for k, mk := range marks {
		name, ok := r.name(mk.name)
		if !ok {
			name = heapNameByID(mk.heap)
		}
		hi := heapIndex(&h.heaps, idx, name)
		end := h.n
		if k+1 < len(marks) {
			end = min(marks[k+1].pos, end)
		}
		start := min(mk.pos, h.n)
		for i := start; i < end; i++ {
			h.heapOf[i] = hi
		}
	}
}

// heapIndex returns the index of a heap name in heaps, adding it.
func heapIndex(heaps *[]string, idx map[string]uint8, name string) uint8 {
	hi, ok := idx[name]
	if ok {
		return hi
	}
	if len(*heaps) == 256 {
		return 255 // more heap names than any VM writes: the rest share the last
	}
	hi = uint8(len(*heaps))
	*heaps = append(*heaps, name)
	idx[name] = hi
	return hi
}

func heapNameByID(id uint32) string {
	switch id {
	case 'A':
		return "app"
	case 'Z':
		return "zygote"
	case 'I':
		return "image"
	case 0:
		return "default"
	}
	return fmt.Sprintf("heap %d", id)
}

func readID(b []byte, idSize int) uint64 {
	if idSize == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}
