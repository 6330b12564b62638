package heapgraph

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/ddmtui/ddmtui/hprof"
)

// FromHPROF writes the heap of an Android HPROF dump (JAVA PROFILE 1.0.3,
// source-form class names) as a heap graph in the encoding of opts.API,
// the way ART's perfetto_hprof would have written the same heap, so tests
// and benchmarks can have one heap in both forms:
//
//   - every CLASS DUMP is a type (its name from LOAD CLASS, instance size,
//     superclass, class loader, kind from its name and superclasses, its
//     own reference fields) written when its class object comes, and the
//     class object an object of the synthetic type `java.lang.Class<X>`
//     whose object_size is its statics' size (spec/hprof-analysis.md D2)
//     and whose references are its object statics;
//   - instances, object arrays and primitive arrays (typed `byte[]`, … as
//     HPROF names them) are objects of the same id, size (D2) and heap;
//     classes with a LOAD CLASS but no CLASS DUMP, and primitive array
//     types, are written after the objects (an object may name a type that
//     comes later);
//   - root records are roots of the same object (ROOT UNREACHABLE, not a
//     root, is left out), written first.
//
// Object ids are the HPROF ids, not divided by the object alignment as ART
// divides addresses, so the answers known for the HPROF (hprof/scene's
// Expect) name the same objects in both forms. Primitive values are left
// behind, as a heap graph has none. src is read twice (classes and roots,
// then objects); memory grows with the classes and roots, not the objects.
func FromHPROF(src io.ReadSeeker, dst io.Writer, opts WriterOptions) error {
	c := &converter{classes: map[hprof.ID]*convClass{}, strs: map[hprof.ID]string{}, loads: map[hprof.ID]hprof.ID{}}
	if err := c.scan(src); err != nil {
		return err
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	pre := c.preNames()
	c.w = NewWriter(dst, opts)
	for _, s := range pre {
		c.w.FieldID(s) // the layout's names keep their iids
	}
	return c.write(src)
}

// convClass is one class of the dump being converted.
type convClass struct {
	id         hprof.ID
	name       string
	dump       *hprof.ClassDump // nil: a LOAD CLASS without CLASS DUMP
	heap       HeapType
	super      *convClass
	typeID     uint64
	classType  uint64 // the synthetic java.lang.Class<…> type
	written    bool
	refFields  []uint32  // own reference fields' iids
	layout     []refSlot // reference fields over the chain, in data order
	dataLen    int
	kind       Kind
	staticSize uint64
}

type refSlot struct {
	off   int
	field uint32
}

type converter struct {
	w       *Writer
	idSize  int
	classes map[hprof.ID]*convClass
	order   []*convClass
	strs    map[hprof.ID]string
	loads   map[hprof.ID]hprof.ID // class id -> name string id
	roots   map[RootType][]uint64
	rootOrd []RootType
	prims   map[hprof.Type]*convClass
	nextTID uint64
}

var rootTypes = map[hprof.SubTag]RootType{
	hprof.SubRootUnknown: RootUnknown, hprof.SubRootJNIGlobal: RootJNIGlobal, hprof.SubRootJNILocal: RootJNILocal,
	hprof.SubRootJavaFrame: RootJavaFrame, hprof.SubRootNativeStack: RootNativeStack, hprof.SubRootStickyClass: RootStickyClass,
	hprof.SubRootThreadBlock: RootThreadBlock, hprof.SubRootMonitorUsed: RootMonitorUsed, hprof.SubRootThreadObject: RootThreadObject,
	hprof.SubRootInternedString: RootInternedString, hprof.SubRootFinalizing: RootFinalizing, hprof.SubRootDebugger: RootDebugger,
	hprof.SubRootReferenceCleanup: RootReferenceCleanup, hprof.SubRootVMInternal: RootVMInternal, hprof.SubRootJNIMonitor: RootJNIMonitor,
}

// HprofTag is the HPROF root sub-record of t's kind (ROOT UNKNOWN for a
// kind HPROF has no record for).
func (t RootType) HprofTag() hprof.SubTag {
	for tag, rt := range rootTypes {
		if rt == t {
			return tag
		}
	}
	return hprof.SubRootUnknown
}

func heapOf(id uint32) HeapType {
	switch id {
	case hprof.HeapApp:
		return HeapApp
	case hprof.HeapZygote:
		return HeapZygote
	case hprof.HeapImage:
		return HeapBootImage
	}
	return HeapUnknown
}

// scan reads the strings, classes and roots.
func (c *converter) scan(src io.Reader) error {
	r, err := hprof.NewReader(src)
	if err != nil {
		return err
	}
	if !r.Header().Android() {
		return fmt.Errorf("heapgraph: %s is not Android's HPROF (want %s)", r.Header().Version, hprof.VersionAndroid)
	}
	c.idSize = r.Header().IDSize
	c.roots = map[RootType][]uint64{}
	heap := HeapUnknown
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch x := rec.(type) {
		case *hprof.UTF8:
			c.strs[x.ID] = x.Text
		case *hprof.LoadClass:
			c.loads[x.Class] = x.Name
		case *hprof.HeapDumpInfo:
			heap = heapOf(x.Heap)
		case *hprof.ClassDump:
			if c.classes[x.Class] != nil {
				continue // the first dump counts (D1)
			}
			d := *x
			d.Statics = append([]hprof.StaticField(nil), x.Statics...)
			d.Fields = append([]hprof.Field(nil), x.Fields...)
			d.Constants = nil
			cl := &convClass{id: x.Class, dump: &d, heap: heap}
			c.classes[x.Class] = cl
			c.order = append(c.order, cl)
		case *hprof.Root:
			t, ok := rootTypes[x.Kind]
			if !ok {
				continue
			}
			if _, seen := c.roots[t]; !seen {
				c.rootOrd = append(c.rootOrd, t)
			}
			c.roots[t] = append(c.roots[t], uint64(x.Object))
		}
	}
	return c.layOut()
}

// layOut names the classes, numbers their types and works out each
// class's reference fields.
func (c *converter) layOut() error {
	for id := range c.loads {
		if c.classes[id] == nil {
			cl := &convClass{id: id}
			c.classes[id] = cl
		}
	}
	for _, cl := range c.classes {
		cl.name = c.strs[c.loads[cl.id]]
		if cl.name == "" {
			cl.name = fmt.Sprintf("class@%#x", uint64(cl.id))
		}
		if cl.dump != nil && cl.dump.Super != 0 {
			cl.super = c.classes[cl.dump.Super]
		}
	}
	// Types in file order of their CLASS DUMPs, then the classes without.
	for _, cl := range c.order {
		c.nextTID++
		cl.typeID = c.nextTID
		c.nextTID++
		cl.classType = c.nextTID
	}
	for _, cl := range c.sortedRest() {
		c.nextTID++
		cl.typeID = c.nextTID
	}
	for _, cl := range c.classes {
		if err := c.fieldsOf(cl); err != nil {
			return err
		}
		cl.kind = c.kindOf(cl)
	}
	return nil
}

// sortedRest returns the classes without a CLASS DUMP, by id.
func (c *converter) sortedRest() []*convClass {
	var out []*convClass
	for _, cl := range c.classes {
		if cl.dump == nil {
			out = append(out, cl)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].id < out[j-1].id; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// fieldsOf fills a class's own reference fields, its layout over the
// chain and its statics' size.
func (c *converter) fieldsOf(cl *convClass) error {
	if cl.dump == nil {
		return nil
	}
	for _, s := range cl.dump.Statics {
		cl.staticSize += uint64(s.Type.Size(c.idSize))
	}
	for _, f := range cl.dump.Fields {
		if f.Type == hprof.TypeObject {
			cl.refFields = append(cl.refFields, c.fieldName(cl, f.Name))
		}
	}
	steps := 0
	for k := cl; k != nil && k.dump != nil; k = k.super {
		if steps++; steps > len(c.classes) {
			return fmt.Errorf("heapgraph: the superclass chain of %s is a cycle", cl.name)
		}
		for _, f := range k.dump.Fields {
			size := f.Type.Size(c.idSize)
			if size == 0 {
				return fmt.Errorf("heapgraph: class %s: field of %v", k.name, f.Type)
			}
			if f.Type == hprof.TypeObject {
				cl.layout = append(cl.layout, refSlot{off: cl.dataLen, field: c.fieldName(k, f.Name)})
			}
			cl.dataLen += size
		}
	}
	return nil
}

// fieldName interns "<type> <Class>.<name>" as ART names a field; HPROF
// does not keep a reference field's declared type, so it is
// java.lang.Object.
func (c *converter) fieldName(cl *convClass, name hprof.ID) uint32 {
	return c.intern("java.lang.Object " + cl.name + "." + c.strs[name])
}

// intern is Writer.FieldID once the Writer exists; until then the names
// are collected in order and interned again (same order, same iids).
func (c *converter) intern(s string) uint32 {
	if c.w == nil {
		c.w = NewWriter(io.Discard, WriterOptions{})
	}
	return c.w.FieldID(s)
}

func (c *converter) kindOf(cl *convClass) Kind {
	switch {
	case strings.HasSuffix(cl.name, "[]"):
		return KindArray
	case cl.name == "java.lang.String":
		return KindString
	case cl.name == "java.lang.DexCache":
		return KindDexCache
	}
	steps := 0
	for k := cl; k != nil && steps <= len(c.classes); k, steps = k.super, steps+1 {
		switch k.name {
		case "java.lang.ref.SoftReference":
			return KindSoftReference
		case "java.lang.ref.WeakReference":
			return KindWeakReference
		case "java.lang.ref.FinalizerReference":
			return KindFinalizerReference
		case "java.lang.ref.PhantomReference":
			return KindPhantomReference
		case "java.lang.ClassLoader":
			return KindClassLoader
		}
	}
	if len(cl.layout) == 0 && cl.dump != nil {
		return KindNoReferences
	}
	return KindNormal
}

// location is where a class came from, as a heap graph names it.
func location(cl *convClass) string {
	if cl.heap == HeapApp {
		return "/data/app/base.apk"
	}
	return "/system/framework/framework.jar"
}

func (c *converter) writeType(cl *convClass) {
	if cl.written {
		return
	}
	cl.written = true
	t := TypeSpec{ID: cl.typeID, Name: cl.name, Kind: cl.kind, RefFields: cl.refFields}
	if cl.dump != nil {
		t.ObjectSize = uint64(cl.dump.InstanceSize)
		t.ClassLoader = uint64(cl.dump.Loader)
		t.Location = location(cl)
		if cl.super != nil {
			t.SuperID = cl.super.typeID
		}
	}
	c.w.Type(t)
}

// write reads the objects and writes the graph.
func (c *converter) write(src io.Reader) error {
	for _, t := range c.rootOrd {
		c.w.Roots(t, c.roots[t]...)
	}
	r, err := hprof.NewReader(src)
	if err != nil {
		return err
	}
	heap := HeapUnknown
	refs := make([]uint64, 0, 64)
	fields := make([]uint32, 0, 64)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		refs, fields = refs[:0], fields[:0]
		switch x := rec.(type) {
		case *hprof.HeapDumpInfo:
			heap = heapOf(x.Heap)
		case *hprof.ClassDump:
			cl := c.classes[x.Class]
			if cl.dump == nil || cl.written {
				continue
			}
			c.writeType(cl)
			ct := TypeSpec{ID: cl.classType, Name: ClassObjectPrefix + cl.name + ">", Kind: KindClass, ObjectSize: cl.staticSize,
				ClassLoader: uint64(x.Loader), Location: location(cl)}
			c.w.Type(ct)
			for _, s := range x.Statics {
				if s.Type == hprof.TypeObject {
					refs = append(refs, s.Value)
					fields = append(fields, c.w.FieldID("java.lang.Object "+cl.name+"."+c.strs[s.Name]))
				}
			}
			c.w.Object(ObjectSpec{ID: uint64(x.Class), TypeID: cl.classType, Size: cl.staticSize, TypeSize: cl.staticSize,
				Heap: heap, Kind: KindClass, Refs: refs, Fields: fields})
		case *hprof.InstanceDump:
			cl := c.classes[x.Class]
			if cl == nil {
				return fmt.Errorf("heapgraph: instance %#x: class %#x has no LOAD CLASS", uint64(x.Object), uint64(x.Class))
			}
			o := ObjectSpec{ID: uint64(x.Object), TypeID: cl.typeID, Heap: heap, Kind: cl.kind}
			if cl.dump == nil {
				o.Size = uint64(len(x.Data)) // D2: no CLASS DUMP, the data's length
			} else {
				o.Size, o.TypeSize = uint64(cl.dump.InstanceSize), uint64(cl.dump.InstanceSize)
				if len(x.Data) < cl.dataLen {
					return fmt.Errorf("heapgraph: instance %#x of %s: %d bytes of data, its fields need %d", uint64(x.Object), cl.name, len(x.Data), cl.dataLen)
				}
				for _, s := range cl.layout {
					refs = append(refs, c.id(x.Data[s.off:]))
					fields = append(fields, s.field)
				}
			}
			o.Refs, o.Fields = refs, fields
			c.w.Object(o)
		case *hprof.ObjectArrayDump:
			cl := c.classes[x.Class]
			if cl == nil {
				return fmt.Errorf("heapgraph: array %#x: class %#x has no LOAD CLASS", uint64(x.Array), uint64(x.Class))
			}
			for _, e := range x.Elements {
				refs = append(refs, uint64(e))
			}
			size := uint64(len(x.Elements) * c.idSize)
			c.w.Object(ObjectSpec{ID: uint64(x.Array), TypeID: cl.typeID, Size: size, Heap: heap, Kind: KindArray, Refs: refs})
		case *hprof.PrimitiveArrayDump:
			cl := c.primitive(x.Type)
			size := uint64(x.Count) * uint64(x.Type.Size(c.idSize))
			c.w.Object(ObjectSpec{ID: uint64(x.Array), TypeID: cl.typeID, Size: size, Heap: heap, Kind: KindArray})
		}
	}
	for _, cl := range c.order {
		c.writeType(cl)
	}
	for _, cl := range c.sortedRest() {
		c.writeType(cl)
	}
	return c.w.Close()
}

// primitive returns the type of a primitive array: the class HPROF names
// "byte[]" (or …) when the dump has one, else a type of its own.
func (c *converter) primitive(t hprof.Type) *convClass {
	if cl, ok := c.prims[t]; ok {
		return cl
	}
	if c.prims == nil {
		c.prims = map[hprof.Type]*convClass{}
	}
	name := t.String() + "[]"
	var found *convClass
	for _, cl := range c.order {
		if cl.name == name {
			found = cl
			break
		}
	}
	if found == nil {
		c.nextTID++
		found = &convClass{name: name, typeID: c.nextTID, kind: KindArray}
		c.order = append(c.order, found)
	}
	c.prims[t] = found
	return found
}

// preNames returns the field names interned by the layout, in iid order.
func (c *converter) preNames() []string {
	if c.w == nil {
		return nil
	}
	return c.w.fieldsO
}

func (c *converter) id(b []byte) uint64 {
	if c.idSize == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}
