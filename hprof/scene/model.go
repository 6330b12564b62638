package scene

import (
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ddmtui/ddmtui/hprof"
)

// The heaps of an Android dump (spec D15); a standard dump has only
// heapDefault.
const (
	heapDefault = "default"
	heapImage   = "image"
	heapZygote  = "zygote"
	heapApp     = "app"
)

var heapIDs = map[string]uint32{heapDefault: hprof.HeapDefault, heapImage: hprof.HeapImage,
	heapZygote: hprof.HeapZygote, heapApp: hprof.HeapApp}

// field is an instance field or a static field of a class.
type field struct {
	name string
	typ  hprof.Type
	val  uint64 // statics only: the value (an object id for TypeObject)
}

// class is one class of the model: a CLASS DUMP (unless noDump) and its
// LOAD CLASS.
type class struct {
	id      hprof.ID
	name    string // Java source form
	heap    string
	super   *class
	fields  []field // own instance fields, in data order
	statics []field
	size    uint32 // instance size as written; 0: computed (see model.instSize)
	noDump  bool   // a LOAD CLASS but no CLASS DUMP
	elem    hprof.Type
}

// object is one node the model writes (spec D1), with what the scene
// knows about it by construction.
type object struct {
	id      hprof.ID
	heap    string
	class   string // its class name (spec D3)
	shallow uint64 // spec D2
	rec     hprof.Record
	late    bool // written after every other object (a duplicate id)
}

// model collects a scene's classes, objects and roots, then writes them as
// an HPROF file. Ids are handed out per heap so an object can be referred
// to before it is written.
type model struct {
	std     bool                // standard 1.0.2 form: 8-byte ids, internal names, no Android records
	dalvik  bool                // Dalvik (API < 21): no image heap, none of ART's synthetic statics
	rename  func(string) string // Options.ClassNames
	idSize  int
	next    map[string]hprof.ID
	classes []*class
	byName  map[string]*class
	objects []*object
	byID    map[hprof.ID]*object
	roots   []hprof.Root
	// staticNames are the statics of each class object as written, for
	// their names.
	staticNames map[hprof.ID][]field
	// stream, when set, writes objects that are not kept in memory (the
	// filler): it calls fn with each, the same ones every time.
	stream func(fn func(*object) error) error
	err    error
}

func newModel(std bool) *model {
	m := &model{std: std, idSize: 4, byName: map[string]*class{}, byID: map[hprof.ID]*object{},
		staticNames: map[hprof.ID][]field{}}
	base := hprof.ID(0)
	if std {
		// Ids above 32 bits, so a reader that truncates them is caught.
		m.idSize = 8
		base = 0x7f5a_0000_0000
	}
	m.next = map[string]hprof.ID{heapImage: base + 0x70000000, heapZygote: base + 0x12c00000,
		heapApp: base + 0x13000000}
	return m
}

// heapOf maps a heap to the one the file can say: a standard dump has no
// HEAP DUMP INFO.
func (m *model) heapOf(h string) string {
	switch {
	case m.std:
		return heapDefault
	case m.dalvik && h == heapImage:
		return heapZygote // Dalvik had no boot image
	}
	return h
}

// alloc reserves an object id in heap. Ids are 16 bytes apart, so a class
// id | 1 is free for ART's $classOverhead array.
func (m *model) alloc(heap string) hprof.ID {
	id := m.next[heap]
	m.next[heap] = id + 16
	return id
}

// defClass declares a class; statics may still be appended to it.
func (m *model) defClass(heap, name string, super *class, fields ...field) *class {
	if _, dup := m.byName[name]; dup {
		m.fail("class %s declared twice", name)
	}
	c := &class{id: m.alloc(heap), name: name, heap: heap, super: super, fields: fields}
	m.classes = append(m.classes, c)
	m.byName[name] = c
	return c
}

func (m *model) fail(format string, args ...any) {
	if m.err == nil {
		m.err = fmt.Errorf("scene: "+format, args...)
	}
}

func obj(name string) field                { return field{name: name, typ: hprof.TypeObject} }
func prim(name string, t hprof.Type) field { return field{name: name, typ: t} }

// layout returns the instance fields of c in data order: c's own, then its
// superclass's, and so on (spec D4).
func (c *class) layout() []struct {
	decl *class
	f    field
} {
	var l []struct {
		decl *class
		f    field
	}
	for k := c; k != nil; k = k.super {
		for _, f := range k.fields {
			l = append(l, struct {
				decl *class
				f    field
			}{k, f})
		}
	}
	return l
}

func (m *model) dataSize(c *class) int {
	n := 0
	for _, e := range c.layout() {
		n += e.f.typ.Size(m.idSize)
	}
	return n
}

// instSize is the instance size a CLASS DUMP states: ART counts an 8-byte
// object header; the JDK's dumper only the fields.
func (m *model) instSize(c *class) uint32 {
	if c.size != 0 {
		return c.size
	}
	if m.std {
		return uint32(m.dataSize(c))
	}
	return uint32(8 + m.dataSize(c))
}

// vals gives instance field values: "name" sets the first field of that
// name in data order, "Declaring.Class.name" the one that class declares.
type vals map[string]uint64

// instance writes an instance of c with the given field values (unset
// fields are 0) and returns its id.
func (m *model) instance(heap string, c *class, v vals) hprof.ID {
	return m.instanceAt(m.alloc(heap), heap, c, v)
}

func (m *model) instanceAt(id hprof.ID, heap string, c *class, v vals) hprof.ID {
	m.add(m.newInstance(id, heap, c, v))
	return id
}

// newInstance builds an instance of c without adding it to the model.
func (m *model) newInstance(id hprof.ID, heap string, c *class, v vals) *object {
	used := map[string]bool{}
	var data []byte
	for _, e := range c.layout() {
		x, ok := v[e.decl.name+"."+e.f.name]
		if ok {
			used[e.decl.name+"."+e.f.name] = true
		} else if x, ok = v[e.f.name]; ok && !used[e.f.name] {
			used[e.f.name] = true
		} else {
			x = 0
		}
		data = appendValue(data, e.f.typ.Size(m.idSize), x)
	}
	for k := range v {
		if !used[k] {
			m.fail("%s has no field %s", c.name, k)
		}
	}
	shallow := uint64(m.instSize(c))
	if c.noDump {
		shallow = uint64(len(data))
	}
	return &object{id: id, heap: heap, class: c.name, shallow: shallow,
		rec: &hprof.InstanceDump{Object: id, Class: c.id, Data: data}}
}

func appendValue(b []byte, size int, v uint64) []byte {
	for i := size - 1; i >= 0; i-- {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func (m *model) add(o *object) {
	if !o.late {
		if _, dup := m.byID[o.id]; dup {
			m.fail("object %#x written twice", uint64(o.id))
		}
		m.byID[o.id] = o
	}
	m.objects = append(m.objects, o)
}

// array writes an object array of class c (e.g. "java.lang.Object[]").
func (m *model) array(heap string, c *class, elems ...hprof.ID) hprof.ID {
	o := m.newArray(m.alloc(heap), heap, c, elems)
	m.add(o)
	return o.id
}

func (m *model) newArray(id hprof.ID, heap string, c *class, elems []hprof.ID) *object {
	return &object{id: id, heap: heap, class: c.name, shallow: uint64(len(elems) * m.idSize),
		rec: &hprof.ObjectArrayDump{Array: id, Class: c.id, Elements: elems}}
}

// prims writes a primitive array of type t from big-endian data.
func (m *model) prims(heap string, t hprof.Type, data []byte) hprof.ID {
	return m.primsAt(m.alloc(heap), heap, t, data)
}

func (m *model) primsAt(id hprof.ID, heap string, t hprof.Type, data []byte) hprof.ID {
	m.add(m.newPrims(id, heap, t, data))
	return id
}

func (m *model) newPrims(id hprof.ID, heap string, t hprof.Type, data []byte) *object {
	size := t.Size(m.idSize)
	if len(data)%size != 0 {
		m.fail("%v[] data of %d bytes", t, len(data))
	}
	return &object{id: id, heap: heap, class: t.String() + "[]", shallow: uint64(len(data)),
		rec: &hprof.PrimitiveArrayDump{Array: id, Type: t, Count: uint32(len(data) / size), Data: data}}
}

func (m *model) root(kind hprof.SubTag, id hprof.ID) {
	r := hprof.Root{Kind: kind, Object: id}
	switch kind {
	case hprof.SubRootJNIGlobal:
		r.JNIRef = 0x2106 + hprof.ID(len(m.roots))*4
	case hprof.SubRootThreadObject, hprof.SubRootJavaFrame, hprof.SubRootJNILocal, hprof.SubRootJNIMonitor,
		hprof.SubRootNativeStack, hprof.SubRootThreadBlock:
		r.Thread = 1
	}
	if m.std && kind.Android() {
		// hprof-conv writes the Android root kinds as ROOT UNKNOWN.
		r = hprof.Root{Kind: hprof.SubRootUnknown, Object: id}
	}
	m.roots = append(m.roots, r)
}

// classObjects turns the classes into class objects: ART's synthetic
// statics first ($classOverhead byte[] with id class|1 and the $class$
// fields of java.lang.Class), then the class's own.
func (m *model) classObjects(loaderOf func(*class) hprof.ID) {
	for _, c := range m.classes {
		if c.noDump {
			continue
		}
		statics := c.statics
		if !m.std && !m.dalvik {
			overhead := c.id | 1
			n := 16 + 8*len(c.fields) + 4*len(c.statics)
			m.primsAt(overhead, c.heap, hprof.TypeByte, make([]byte, n))
			var super hprof.ID
			if c.super != nil {
				super = c.super.id
			}
			art := []field{
				{name: "$classOverhead", typ: hprof.TypeObject, val: uint64(overhead)},
				{name: "$class$classLoader", typ: hprof.TypeObject, val: uint64(loaderOf(c))},
				{name: "$class$superClass", typ: hprof.TypeObject, val: uint64(super)},
				{name: "$class$accessFlags", typ: hprof.TypeInt, val: 0x80001},
				{name: "$class$status", typ: hprof.TypeInt, val: 0xf0000000},
			}
			statics = append(art, statics...)
		}
		shallow := uint64(0)
		cd := &hprof.ClassDump{Class: c.id, InstanceSize: m.instSize(c)}
		if c.super != nil {
			cd.Super = c.super.id
		}
		if c.elem != 0 || strings.HasSuffix(c.name, "[]") {
			cd.InstanceSize = 0
		}
		for _, s := range statics {
			shallow += uint64(s.typ.Size(m.idSize))
			cd.Statics = append(cd.Statics, hprof.StaticField{Name: 0, Type: s.typ, Value: s.val})
		}
		m.add(&object{id: c.id, heap: c.heap, class: "java.lang.Class", shallow: shallow, rec: cd})
		// Names are resolved at write time; keep them beside the record.
		m.staticNames[c.id] = statics
	}
}

// internalName writes a Java source name as the JDK's dumper does:
// java.util.HashMap -> java/util/HashMap, java.lang.String[] ->
// [Ljava/lang/String;, int[][] -> [[I.
func internalName(name string) string {
	dims := 0
	for strings.HasSuffix(name, "[]") {
		name = strings.TrimSuffix(name, "[]")
		dims++
	}
	if dims == 0 {
		return strings.ReplaceAll(name, ".", "/")
	}
	prim := map[string]string{"boolean": "Z", "byte": "B", "char": "C", "short": "S", "int": "I",
		"long": "J", "float": "F", "double": "D"}
	elem, ok := prim[name]
	if !ok {
		elem = "L" + strings.ReplaceAll(name, ".", "/") + ";"
	}
	return strings.Repeat("[", dims) + elem
}

// write encodes the model: STRINGs, LOAD CLASSes, then heap dump segments
// (roots first, then objects heap by heap, as ART orders them), then HEAP
// DUMP END.
func (m *model) write(w io.Writer, timestamp uint64) error {
	if m.err != nil {
		return m.err
	}
	h := hprof.Header{Version: hprof.VersionAndroid, IDSize: m.idSize, Timestamp: timestamp}
	if m.std {
		h.Version = hprof.VersionStandard
	}
	hw, err := hprof.NewWriter(w, h)
	if err != nil {
		return err
	}
	strs := map[string]hprof.ID{}
	var order []string
	str := func(s string) hprof.ID {
		if id, ok := strs[s]; ok {
			return id
		}
		id := hprof.ID(len(strs) + 1)
		strs[s] = id
		order = append(order, s)
		return id
	}
	// Name every string first, so the STRING records precede their use.
	for _, c := range m.classes {
		str(m.className(c))
		for _, f := range c.fields {
			str(f.name)
		}
	}
	for _, c := range m.classes {
		for _, f := range m.staticNames[c.id] {
			str(f.name)
		}
	}
	for _, hn := range []string{heapImage, heapZygote, heapApp} {
		str(hn)
	}
	for _, s := range order {
		if err := hw.Write(&hprof.UTF8{ID: strs[s], Text: s}); err != nil {
			return err
		}
	}
	for i, c := range m.classes {
		if err := hw.Write(&hprof.LoadClass{Serial: uint32(i + 1), Class: c.id, Name: strs[m.className(c)]}); err != nil {
			return err
		}
	}
	seg := segmenter{w: hw, std: m.std, names: strs}
	for i := range m.roots {
		if err := seg.put("", &m.roots[i]); err != nil {
			return err
		}
	}
	put := func(o *object) error { return seg.put(m.heapOf(o.heap), o.rec) }
	streamed := false
	for _, o := range m.fileOrder() {
		if o.late && !streamed && m.stream != nil {
			// The filler follows the app heap's other objects.
			if err := m.stream(put); err != nil {
				return err
			}
			streamed = true
		}
		rec := o.rec
		switch r := rec.(type) {
		case *hprof.ClassDump:
			c := *r
			c.Statics = append([]hprof.StaticField(nil), r.Statics...)
			for i, f := range m.staticNames[r.Class] {
				c.Statics[i].Name = strs[f.name]
			}
			c.Fields = nil
			for _, f := range m.classByID(r.Class).fields {
				c.Fields = append(c.Fields, hprof.Field{Name: strs[f.name], Type: f.typ})
			}
			rec = &c
		}
		if err := seg.put(m.heapOf(o.heap), rec); err != nil {
			return err
		}
	}
	if !streamed && m.stream != nil {
		if err := m.stream(put); err != nil {
			return err
		}
	}
	if err := hw.Write(&hprof.HeapDumpEnd{}); err != nil {
		return err
	}
	return hw.Close()
}

func (m *model) className(c *class) string {
	name := c.name
	if m.rename != nil {
		name = m.rename(name)
	}
	if m.std {
		return internalName(name)
	}
	return name
}

func (m *model) classByID(id hprof.ID) *class {
	for _, c := range m.classes {
		if c.id == id {
			return c
		}
	}
	return nil
}

// fileOrder is the objects in the order they are written: the image heap,
// the zygote heap, the app heap, then the late ones (duplicate ids).
func (m *model) fileOrder() []*object {
	rank := map[string]int{heapImage: 0, heapZygote: 1, heapApp: 2}
	out := append([]*object(nil), m.objects...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.late != b.late {
			return !a.late
		}
		if a.late {
			return false
		}
		return rank[a.heap] < rank[b.heap]
	})
	return out
}

// segmenter writes sub-records into HEAP DUMP SEGMENTs of at most 128
// sub-records, each (on Android) starting with a HEAP DUMP INFO when it
// holds objects, as ART does.
type segmenter struct {
	w     *hprof.Writer
	std   bool
	names map[string]hprof.ID
	n     int
	heap  string
}

func (s *segmenter) put(heap string, rec hprof.Record) error {
	if s.n == 0 || s.n >= 128 {
		if err := s.w.Write(&hprof.HeapDump{Segment: true}); err != nil {
			return err
		}
		s.n, s.heap = 0, ""
	}
	if !s.std && heap != "" && heap != s.heap {
		if err := s.w.Write(&hprof.HeapDumpInfo{Heap: heapIDs[heap], Name: s.names[heap]}); err != nil {
			return err
		}
		s.heap = heap
	}
	s.n++
	return s.w.Write(rec)
}

// utf16 returns s as big-endian UTF-16 code units, as a char[] holds it.
func utf16(s string) []byte {
	var b []byte
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			b = binary.BigEndian.AppendUint16(b, uint16(0xd800+(r>>10)))
			b = binary.BigEndian.AppendUint16(b, uint16(0xdc00+(r&0x3ff)))
			continue
		}
		b = binary.BigEndian.AppendUint16(b, uint16(r))
	}
	return b
}
