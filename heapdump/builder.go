package heapdump

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ddmtui/ddmtui/hprof"
)

// Builder is how a reader other than HPROF's feeds the model (see the
// package comment): Type, Object and Root in any order, then Finish. A
// Builder is used by one goroutine.
type Builder struct {
	format string
	opts   Options

	types  []Type
	typeOf map[uint64]int32 // type id -> index in types

	ids []uint64 // per object, in the order given
	// objType and sizes keep 32 bits an object (a million objects: 8 MB
	// less while the reader's arrays are still held, the analysis's peak):
	// a type id or size that does not fit is held in wide, by object, with
	// wideMark in its place. sizes holds sizeOfTypeMark for SizeOfType.
	objType []uint32
	kinds   []uint8
	sizes   []uint32
	wide    map[int32]wideValues
	heapOf  []uint8
	heaps   []string
	heapIdx map[string]uint8
	classOf map[int32]uint64 // class object -> the type id it stands for

	refOff []uint32 // refs of object i: refs[refOff[i]:refOff[i+1]]
	refs   []uint64
	// Per-object field names: names[nameOff[i]:...] beside object i's
	// refs when nameOff[i] >= 0 (nameOff is nil until an object has them).
	nameOff []int32
	names   []int32 // index in fields
	fields  []fieldName
	fieldIx map[fieldName]int32

	roots []uint64
	// rootTags are the kinds RootOf gave, by index in roots (0: none;
	// shorter than roots when later roots came through Root), until Finish.
	rootTags []uint8
	err      error
}

// Type is a class of the dump as a reader gives it.
type Type struct {
	ID   uint64
	Name string // in Java source form: "com.example.Foo", "int[]", "java.lang.Object[]"
	// Super is the superclass's type id, 0 for none. A superclass that is
	// never given ends the chain.
	Super        uint64
	InstanceSize uint64 // the shallow size of its instances (D2)
	// RefFields are the names of the reference fields the class itself
	// declares, in the order an instance's Refs list them (the class's own
	// first, then its superclass's, and so on).
	RefFields []string
}

// Object is one object of the dump as a reader gives it.
type Object struct {
	ID   uint64 // not 0
	Type uint64 // its type's id (for a class object: java.lang.Class's, or a type of its own)
	Kind Kind
	Size uint64 // shallow size (D2); SizeOfType: its type's InstanceSize
	Heap string // "" is "default"
	// Refs are its reference values in field order, 0 for null.
	Refs []uint64
	// RefFields, when set, name each of Refs ("Declaring.Class.name" or a
	// plain name); when nil an instance's names come from its types and an
	// array's elements are "[i]".
	RefFields []string
	ClassOf   uint64 // for a class object: the type id it stands for
}

// SizeOfType in Object.Size takes the size from the object's type.
const SizeOfType = math.MaxUint64

const (
	wideMark       = math.MaxUint32     // objType or sizes: the value is in wide
	sizeOfTypeMark = math.MaxUint32 - 1 // sizes: SizeOfType
)

// wideValues are an object's type id and size when either does not fit
// the 32 bits of objType and sizes.
type wideValues struct{ typ, size uint64 }

// narrow stores object i's type id and size in 32 bits each, or in wide.
func (b *Builder) narrow(i int32, typ, size uint64) {
	t, z := uint32(typ), uint32(size)
	if size == SizeOfType {
		z = sizeOfTypeMark
	}
	if typ >= wideMark || size != SizeOfType && size >= sizeOfTypeMark {
		if b.wide == nil {
			b.wide = map[int32]wideValues{}
		}
		b.wide[i] = wideValues{typ: typ, size: size}
		t, z = wideMark, wideMark
	}
	b.objType = append(b.objType, t)
	b.sizes = append(b.sizes, z)
}

// typeAndSize are object x's type id and size as given.
func (b *Builder) typeAndSize(x int) (typ, size uint64) {
	t, z := b.objType[x], b.sizes[x]
	if t == wideMark {
		w := b.wide[int32(x)]
		return w.typ, w.size
	}
	if z == sizeOfTypeMark {
		return uint64(t), SizeOfType
	}
	return uint64(t), uint64(z)
}

// fieldName is a reference field: its declaring class's name ("" when
// the declarer is the object's own class) and its name.
type fieldName struct {
	decl, name string
}

// NewBuilder starts a heap dump of the given format (Heap.Version).
func NewBuilder(format string, opts Options) *Builder {
	return &Builder{format: format, opts: opts, typeOf: map[uint64]int32{}, heapIdx: map[string]uint8{},
		classOf: map[int32]uint64{}, fieldIx: map[fieldName]int32{}, refOff: []uint32{0}}
}

// Grow makes room for about objects more objects with refs references in
// all, and roots more roots, so that a reader knowing its counts (a
// decoded heap graph) does not make the builder's arrays grow by doubling.
func (b *Builder) Grow(objects, refs, roots int) {
	if objects < 0 || refs < 0 || roots < 0 {
		return
	}
	b.roots = slices.Grow(b.roots, roots)
	b.ids = slices.Grow(b.ids, objects)
	b.objType = slices.Grow(b.objType, objects)
	b.kinds = slices.Grow(b.kinds, objects)
	b.sizes = slices.Grow(b.sizes, objects)
	b.heapOf = slices.Grow(b.heapOf, objects)
	b.refOff = slices.Grow(b.refOff, objects)
	b.refs = slices.Grow(b.refs, refs)
}

// Reuse gives an empty Builder arrays to keep its ids and references in:
// a reader's own, which it gives up (a decoded heap graph's). Objects then
// given in the same order with the same ids and references are written
// onto themselves, and no copy is made. The arrays' contents are
// overwritten as objects arrive, so a reader may use Reuse only when it
// never gives more ids or references than it has read from them.
func (b *Builder) Reuse(ids, refs []uint64) {
	if len(b.ids) == 0 && len(b.refs) == 0 {
		b.ids, b.refs = ids[:0], refs[:0]
	}
}

func (b *Builder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

// Type adds a type; a type id given twice is an error.
func (b *Builder) Type(t Type) {
	if _, dup := b.typeOf[t.ID]; dup {
		b.fail("type %#x (%s) is given twice", t.ID, t.Name)
		return
	}
	b.typeOf[t.ID] = int32(len(b.types))
	b.types = append(b.types, t)
}

// Object adds an object; the id must not repeat (Finish says so).
func (b *Builder) Object(o Object) {
	switch {
	case o.ID == 0:
		b.fail("object %d has id 0", len(b.ids))
		return
	case o.RefFields != nil && len(o.RefFields) != len(o.Refs):
		b.fail("object %#x: %d field names for %d references", o.ID, len(o.RefFields), len(o.Refs))
		return
	case o.Kind != KindInstance && o.Kind != KindObjectArray && o.Kind != KindPrimitiveArray && o.Kind != KindClass:
		b.fail("object %#x: kind %#x", o.ID, o.Kind)
		return
	case len(b.ids) >= math.MaxInt32-1 || uint64(len(b.refs))+uint64(len(o.Refs)) >= math.MaxUint32:
		b.fail("more than %d objects or %d references: too large to analyse", math.MaxInt32-1, uint32(math.MaxUint32))
		return
	}
	i := int32(len(b.ids))
	b.ids = append(b.ids, o.ID)
	b.narrow(i, o.Type, o.Size)
	b.kinds = append(b.kinds, uint8(o.Kind))
	heap := o.Heap
	if heap == "" {
		heap = "default"
	}
	b.heapOf = append(b.heapOf, heapIndex(&b.heaps, b.heapIdx, heap))
	if o.Kind == KindClass && o.ClassOf != 0 {
		b.classOf[i] = o.ClassOf
	}
	if o.RefFields != nil && b.nameOff == nil {
		b.nameOff = make([]int32, i, cap(b.ids))
		for k := range b.nameOff {
			b.nameOff[k] = -1
		}
	}
	if b.nameOff != nil {
		if o.RefFields == nil {
			b.nameOff = append(b.nameOff, -1)
		} else {
			b.nameOff = append(b.nameOff, int32(len(b.names)))
			for _, f := range o.RefFields {
				b.names = append(b.names, b.field(f))
			}
		}
	}
	b.refs = append(b.refs, o.Refs...)
	b.refOff = append(b.refOff, uint32(len(b.refs)))
}

// field returns the index of a per-object field name.
func (b *Builder) field(s string) int32 {
	f := fieldName{name: s}
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		f = fieldName{decl: s[:i], name: s[i+1:]}
	}
	if i, ok := b.fieldIx[f]; ok {
		return i
	}
	i := int32(len(b.fields))
	b.fields = append(b.fields, f)
	b.fieldIx[f] = i
	return i
}

// Root makes the object id a GC root (D5); an id that names no object is
// ignored.
func (b *Builder) Root(id uint64) { b.roots = append(b.roots, id) }

// RootOf makes the object id a GC root of the given kind (an HPROF root
// sub-record tag), which paths name (Heap.RootKind).
func (b *Builder) RootOf(id uint64, kind hprof.SubTag) {
	for len(b.rootTags) < len(b.roots) {
		b.rootTags = append(b.rootTags, 0)
	}
	b.Root(id)
	b.rootTags = append(b.rootTags, uint8(kind))
}

// Finish resolves the types and references and analyses the heap. An
// object id given twice, or an object of a type never given, is an error.
func (b *Builder) Finish() (*Heap, error) {
	if b.err != nil {
		return nil, b.err
	}
	n := len(b.ids)
	h := &Heap{vals: &graphValues{}, format: b.format, n: n, progress: b.opts.Progress, large: n > 1<<18,
		nameIdx: map[string]int32{}, classOf: map[int32]int32{}, heaps: b.heaps}
	if len(h.heaps) == 0 {
		h.heaps = []string{"default"}
	}
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	keys, pos := radixSort(append([]uint64(nil), b.ids...), pos)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return nil, fmt.Errorf("object id %#x is given twice", keys[i])
		}
	}
	setIndex(h, keys, pos)
	keys, pos = nil, nil
	for _, t := range b.types {
		addType(h, t.Name)
	}
	for i, t := range b.types {
		if s, ok := b.typeOf[t.Super]; ok && t.Super != 0 {
			h.types[i].super = s
		}
	}
	h.typ = make([]int32, n)
	h.shallow = make([]uint32, n)
	h.kinds = b.kinds
	h.heapOf = b.heapOf
	h.roots = make([]uint64, (n+63)/64)
	for x := range n {
		typ, size := b.typeAndSize(x)
		t, ok := b.typeOf[typ]
		if !ok {
			return nil, fmt.Errorf("object %#x is of type %#x, which is not given", b.ids[x], typ)
		}
		h.typ[x] = t
		if size == SizeOfType {
			size = b.types[t].InstanceSize
		}
		if size >= math.MaxUint32 {
			if h.bigSize == nil {
				h.bigSize = map[int32]uint64{}
			}
			h.bigSize[int32(x)] = size
			size = math.MaxUint32
		}
		h.shallow[x] = uint32(size)
		if h.kinds[x] == subClassDump {
			setRoot(h, int32(x))
		}
	}
	for x, tid := range b.classOf {
		if t, ok := b.typeOf[tid]; ok {
			h.classOf[x] = t
			if h.types[t].node < 0 {
				h.types[t].node = x
			}
		}
	}
	if len(b.rootTags) > 0 {
		h.rootKinds = make([]rootKind, 0, len(b.rootTags))
	}
	for i, id := range b.roots {
		if x := h.index.lookup(id); x >= 0 {
			setRoot(h, x)
			if i < len(b.rootTags) && b.rootTags[i] != 0 {
				h.rootKinds = append(h.rootKinds, rootKind{node: x, tag: b.rootTags[i]})
			}
		}
	}
	sortRootKinds(h)
	b.rootTags = nil
	b.ids, b.objType, b.sizes, b.wide = nil, nil, nil, nil
	g := newGraphValues(h, b)
	h.vals = g
	if err := g.edges(); err != nil {
		return nil, err
	}
	finish(h)
	return h, nil
}
