package heapdump

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
)

// classInfo is what the analysis knows of one class (a CLASS DUMP, the first
// of its id): a few thousand per file.
type classInfo struct {
	dump    *classDump
	node    int32
	name    string
	nameIdx int32
	super   int32    // classes index of the superclass, -1 when not dumped
	refOffs []uint32 // offsets of strong object fields in instance data (D4)
	fields  []string // names of dump.fields
	dataLen int      // bytes of instance data the field chain describes
	statics uint64   // shallow size of the class object (D2)
}

func (h *Heap) nameIndex(name string) int32 {
	if i, ok := h.nameIdx[name]; ok {
		return i
	}
	i := int32(len(h.names))
	h.names = append(h.names, name)
	h.nameIdx[name] = i
	return i
}

// className returns the source-form name of class id from its LOAD CLASS.
func (h *Heap) className(id uint64) string {
	if sid, ok := h.s.loads[id]; ok {
		if name, ok := h.s.str(sid); ok {
			return SourceName(name)
		}
	}
	return fmt.Sprintf(unknownClassFmt, id)
}

// classSetup builds the class table and the layout of each class's
// instance fields over its superclass chain.
func (h *Heap) classSetup() {
	s := h.s
	h.nameIdx = make(map[string]int32)
	h.classByI = make(map[uint64]int32, len(s.classes))
	h.classOf = make(map[int32]int32, len(s.classes))
	for i := range s.classes {
		c := &s.classes[i]
		if _, dup := h.classByI[c.id]; dup {
			continue
		}
		node := h.index.lookup(c.id)
		ci := classInfo{dump: c, node: node, name: h.className(c.id), super: -1}
		for _, f := range c.fields {
			ci.fields = append(ci.fields, h.fieldName(f.name))
		}
		ci.nameIdx = h.nameIndex(ci.name)
		for _, sf := range c.statics {
			ci.statics += uint64(typeSize(sf.typ, h.idSize))
		}
		h.classByI[c.id] = int32(len(h.classes))
		h.classes = append(h.classes, ci)
	}
	for i := range h.classes {
		c := &h.classes[i]
		if sup, ok := h.classByI[c.dump.super]; ok && c.dump.super != 0 {
			c.super = sup
		}
		if c.node >= 0 && h.offs.at(int(c.node)) == c.dump.off {
			h.classOf[c.node] = int32(i)
		}
	}
	for i := range h.classes {
		c := &h.classes[i]
		off := 0
		h.eachField(int32(i), func(ci int32, f fieldDecl, name string) bool {
			size := typeSize(f.typ, h.idSize)
			if isObjectType(f.typ) && !h.isReferent(ci, name) {
				c.refOffs = append(c.refOffs, uint32(off))
			}
			off += size
			return true
		})
		c.dataLen = off
	}
}

// eachField calls fn for the instance fields of class ci and its
// superclasses in data order (the class's own first), with the declaring
// class and the field's name, until fn returns false.
func (h *Heap) eachField(ci int32, fn func(decl int32, f fieldDecl, name string) bool) {
	for steps := 0; ci >= 0 && steps <= len(h.classes); steps++ {
		c := &h.classes[ci]
		for i, f := range c.dump.fields {
			if !fn(ci, f, c.fields[i]) {
				return
			}
		}
		ci = c.super
	}
}

// isReferent reports whether a field named name, declared by class ci, is
// the excluded java.lang.ref.Reference.referent (D4).
func (h *Heap) isReferent(ci int32, name string) bool {
	return name == fieldReferent && h.classes[ci].name == nameReference
}

// build is pass 2: each node's class, shallow size, heap and strong edges.
// The nodes are split in two halves built side by side, each into its own
// edge list; the lists are joined after.
func (h *Heap) build() error {
	h.classSetup()
	n := h.offs.len()
	h.classIdx = h.nameIndex(nameClass)
	for t, name := range primitiveArrayNames {
		if name != "" {
			h.primIdx[t] = h.nameIndex(name)
		}
	}
	h.cls = make([]int32, n)
	h.shallow = make([]uint32, n)
	h.heapOf = make([]uint8, n)
	h.kinds = make([]uint8, n)
	h.roots = make([]uint64, (n+63)/64)
	h.outOff = make([]uint32, n+1)
	h.heapMarks()
	parts := h.buildParts
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
		w.h, w.lo, w.hi = h, n*k/parts, n*(k+1)/parts
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
			h.setRoot(int32(i))
		}
	}
	for _, id := range h.s.roots {
		if t := h.index.lookup(id); t >= 0 {
			h.setRoot(t)
		}
	}
	h.s.roots = nil
	return nil
}

// buildWorker builds nodes [lo, hi) of pass 2.
type buildWorker struct {
	h         *Heap
	lo, hi    int
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
	w.h.shallow[i] = uint32(v)
}

func (w *buildWorker) edge(id uint64) {
	if id == 0 {
		return
	}
	if t := w.h.index.lookup(id); t >= 0 {
		w.tgt = append(w.tgt, t)
	}
}

// name returns the name index of class id, adding it under a lock: the
// workers share the name table (few names are added in this pass).
func (w *buildWorker) name(id uint64) int32 {
	w.h.namesMu.Lock()
	defer w.h.namesMu.Unlock()
	return w.h.nameIndex(w.h.className(id))
}

func (w *buildWorker) run(reportProgress bool) {
	h := w.h
	s, d, idSize := h.s, h.s.d, h.idSize
	var progress func(float64)
	if reportProgress {
		progress = h.phase("graph")
	}
	arrayNames := make(map[uint64]int32)
	lastRelease := 0
	if w.lo < w.hi {
		lastRelease = h.offs.at(w.lo)
	}
	for i := w.lo; i < w.hi; i++ {
		off := h.offs.at(i)
		p := off + 1 + idSize + 4
		h.kinds[i] = d[off]
		switch d[off] {
		case subInstanceDump:
			cid := s.id(p)
			if cid != w.lastClass || w.lastCI < 0 {
				w.lastClass = cid
				ci, ok := h.classByI[cid]
				if !ok {
					ci = -1
				}
				w.lastCI = ci
			}
			length := int(binary.BigEndian.Uint32(d[p+idSize:]))
			data := d[p+idSize+4 : p+idSize+4+length]
			if w.lastCI < 0 {
				h.cls[i] = w.name(cid)
				w.setSize(i, uint64(length))
				break
			}
			c := &h.classes[w.lastCI]
			h.cls[i] = c.nameIdx
			w.setSize(i, uint64(c.dump.instSize))
			for _, fo := range c.refOffs {
				if int(fo)+idSize > len(data) {
					break
				}
				w.edge(readID(data[fo:], idSize))
			}
		case subObjectArray:
			count := int(binary.BigEndian.Uint32(d[p:]))
			acid := s.id(p + 4)
			ni, ok := arrayNames[acid]
			if !ok {
				ni = w.name(acid)
				arrayNames[acid] = ni
			}
			h.cls[i] = ni
			w.setSize(i, uint64(count)*uint64(idSize))
			el := p + 4 + idSize
			for k := range count {
				w.edge(readID(d[el+k*idSize:], idSize))
			}
		case subPrimitiveArray, subPrimitiveNoDat:
			count := uint64(binary.BigEndian.Uint32(d[p:]))
			t := d[p+4]
			h.cls[i] = h.primIdx[t]
			w.setSize(i, count*uint64(typeSize(t, idSize)))
		case subClassDump:
			h.cls[i] = h.classIdx
			ci, ok := h.classOf[int32(i)]
			if !ok { // a later CLASS DUMP of an id dumped as a class before
				break
			}
			c := &h.classes[ci]
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
			h.m.release(lastRelease, off)
			lastRelease = off
			if progress != nil {
				progress(float64(i-w.lo) / float64(w.hi-w.lo))
			}
		}
	}
}

func (h *Heap) setRoot(n int32) { h.roots[n>>6] |= 1 << (n & 63) }

// heapMarks assigns each node its heap (D15).
func (h *Heap) heapMarks() {
	h.heaps = []string{"default"}
	idx := map[string]uint8{"default": 0}
	marks := h.s.heaps
	cur := uint8(0)
	for k, mk := range marks {
		name, ok := h.s.str(mk.name)
		if !ok {
			name = heapNameByID(mk.heap)
		}
		hi, ok := idx[name]
		if !ok {
			if len(h.heaps) == 256 {
				hi = 255 // more heap names than any VM writes: the rest share the last
			} else {
				hi = uint8(len(h.heaps))
				h.heaps = append(h.heaps, name)
				idx[name] = hi
			}
		}
		end := h.offs.len()
		if k+1 < len(marks) {
			end = min(marks[k+1].pos, end)
		}
		start := min(mk.pos, h.offs.len())
		if k == 0 {
			for i := 0; i < start; i++ {
				h.heapOf[i] = cur
			}
		}
		for i := start; i < end; i++ {
			h.heapOf[i] = hi
		}
	}
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
