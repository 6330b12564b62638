package scene

import (
	"encoding/binary"
	"io"

	"github.com/ddmtui/ddmtui/hprof"
)

// Builder writes the dumps a test lays out object by object, where a
// scene's planted situations are not what is tested: small graphs with
// exact ids and sizes (classes with fields and statics, instances by field
// name, arrays, roots, heaps, duplicated ids, classes without CLASS DUMP),
// and Large's heaps of millions of objects. It streams through
// hprof.Writer; no object is kept.
//
// Strings and LOAD CLASS records are written when a class is declared;
// heap dump sub-records go into the current segment. Call Close at the
// end.
type Builder struct {
	w       *hprof.Writer
	idSize  int
	next    uint64
	strs    map[string]uint64
	serial  uint32
	inDump  bool
	classes []*ClassDecl
	err     error
	// SegmentObjects starts a new HEAP DUMP SEGMENT after this many
	// sub-records (0: 4096).
	SegmentObjects int
	subs           int
}

// ClassDecl is a class a Builder declared. Set Statics before the class is
// dumped (Dump, or Close for classes not dumped yet).
type ClassDecl struct {
	ID           uint64
	Name         string
	Super        *ClassDecl
	Fields       []Field
	Statics      []Static
	InstanceSize uint32 // 0: the byte size of the field data over the chain
	dumped       bool
	b            *Builder
}

// Field is an instance field declaration.
type Field struct {
	Name string
	Type hprof.Type
}

// Static is a static field and its value.
type Static struct {
	Name  string
	Type  hprof.Type
	Value uint64
}

// V gives instance field values by name; "Decl.name" picks the field a
// given class declares when names repeat along the chain. Missing fields
// are 0.
type V map[string]uint64

// NewBuilder writes the header and returns a Builder. version "" is
// Android's.
func NewBuilder(w io.Writer, idSize int, version string) (*Builder, error) {
	hw, err := hprof.NewWriter(w, hprof.Header{Version: version, IDSize: idSize, Timestamp: 1700000000000})
	if err != nil {
		return nil, err
	}
	return &Builder{w: hw, idSize: idSize, next: 0x10000, strs: map[string]uint64{}}, nil
}

// ID allocates a fresh object id (8-byte aligned, increasing).
func (b *Builder) ID() uint64 {
	b.next += 8
	return b.next
}

func (b *Builder) write(r hprof.Record) {
	if b.err == nil {
		b.err = b.w.Write(r)
	}
}

// Str returns the id of a STRING record with text s, writing it once.
func (b *Builder) Str(s string) uint64 {
	if id, ok := b.strs[s]; ok {
		return id
	}
	id := uint64(len(b.strs)+1) * 0x10
	b.strs[s] = id
	b.endDump()
	b.write(&hprof.UTF8{ID: hprof.ID(id), Text: s})
	return id
}

func (b *Builder) endDump() { b.inDump = false }

func (b *Builder) sub(r hprof.Record) {
	limit := b.SegmentObjects
	if limit == 0 {
		limit = 4096
	}
	if !b.inDump || b.subs >= limit {
		b.write(&hprof.HeapDump{Segment: true})
		b.inDump, b.subs = true, 0
	}
	b.subs++
	b.write(r)
}

// Class declares a class (its name strings and LOAD CLASS are written
// now; its CLASS DUMP by Dump or Close).
func (b *Builder) Class(name string, super *ClassDecl, fields ...Field) *ClassDecl {
	c := &ClassDecl{ID: b.ID(), Name: name, Super: super, Fields: fields, b: b}
	b.declare(c)
	return c
}

func (b *Builder) declare(c *ClassDecl) {
	for _, f := range c.Fields {
		b.Str(f.Name)
	}
	nameID := b.Str(c.Name)
	b.serial++
	b.endDump()
	b.write(&hprof.LoadClass{Serial: b.serial, Class: hprof.ID(c.ID), StackSerial: 1, Name: hprof.ID(nameID)})
	b.classes = append(b.classes, c)
}

// Dump writes the class's CLASS DUMP now.
func (c *ClassDecl) Dump() {
	b := c.b
	cd := &hprof.ClassDump{Class: hprof.ID(c.ID), StackSerial: 1, InstanceSize: c.InstanceSize}
	if cd.InstanceSize == 0 {
		cd.InstanceSize = uint32(c.DataSize())
	}
	if c.Super != nil {
		cd.Super = hprof.ID(c.Super.ID)
	}
	for _, s := range c.Statics {
		cd.Statics = append(cd.Statics, hprof.StaticField{Name: hprof.ID(b.Str(s.Name)), Type: s.Type, Value: s.Value})
	}
	for _, f := range c.Fields {
		cd.Fields = append(cd.Fields, hprof.Field{Name: hprof.ID(b.Str(f.Name)), Type: f.Type})
	}
	b.sub(cd)
	c.dumped = true
}

// Skip keeps the class from being dumped: its instances then have no
// CLASS DUMP.
func (c *ClassDecl) Skip() { c.dumped = true }

// DataSize is the byte size of an instance's field data over the chain.
func (c *ClassDecl) DataSize() int {
	n := 0
	for k := c; k != nil; k = k.Super {
		for _, f := range k.Fields {
			n += f.Type.Size(c.b.idSize)
		}
	}
	return n
}

// Instance writes an INSTANCE DUMP with a fresh id and returns the id.
func (b *Builder) Instance(c *ClassDecl, v V) uint64 {
	id := b.ID()
	b.InstanceWithID(id, c, v)
	return id
}

// InstanceWithID writes an INSTANCE DUMP with the given id.
func (b *Builder) InstanceWithID(id uint64, c *ClassDecl, v V) {
	data := make([]byte, 0, c.DataSize())
	for k := c; k != nil; k = k.Super {
		for _, f := range k.Fields {
			val, ok := v[k.Name+"."+f.Name]
			if !ok {
				val = v[f.Name]
			}
			data = appendValue(data, f.Type.Size(b.idSize), val)
		}
	}
	b.sub(&hprof.InstanceDump{Object: hprof.ID(id), StackSerial: 1, Class: hprof.ID(c.ID), Data: data})
}

// InstanceData writes an INSTANCE DUMP with the given id and raw field
// data (generators that lay out their own values).
func (b *Builder) InstanceData(id uint64, c *ClassDecl, data []byte) {
	b.sub(&hprof.InstanceDump{Object: hprof.ID(id), StackSerial: 1, Class: hprof.ID(c.ID), Data: data})
}

// PrimitiveArrayWithID writes a PRIMITIVE ARRAY DUMP with the given id.
func (b *Builder) PrimitiveArrayWithID(id uint64, t hprof.Type, count int, data []byte) {
	b.sub(&hprof.PrimitiveArrayDump{Array: hprof.ID(id), StackSerial: 1, Type: t, Count: uint32(count), Data: data})
}

// ObjectArray writes an OBJECT ARRAY DUMP of array class c.
func (b *Builder) ObjectArray(c *ClassDecl, elems ...uint64) uint64 {
	id := b.ID()
	b.ObjectArrayWithID(id, c, elems...)
	return id
}

// ObjectArrayWithID writes an OBJECT ARRAY DUMP with the given id.
func (b *Builder) ObjectArrayWithID(id uint64, c *ClassDecl, elems ...uint64) {
	ids := make([]hprof.ID, len(elems))
	for i, e := range elems {
		ids[i] = hprof.ID(e)
	}
	b.sub(&hprof.ObjectArrayDump{Array: hprof.ID(id), StackSerial: 1, Class: hprof.ID(c.ID), Elements: ids})
}

// PrimitiveArray writes a PRIMITIVE ARRAY DUMP of count elements of type
// t with the given big-endian bytes.
func (b *Builder) PrimitiveArray(t hprof.Type, count int, data []byte) uint64 {
	id := b.ID()
	b.sub(&hprof.PrimitiveArrayDump{Array: hprof.ID(id), StackSerial: 1, Type: t, Count: uint32(count), Data: data})
	return id
}

// NoDataArray writes a PRIMITIVE ARRAY NODATA of count elements.
func (b *Builder) NoDataArray(t hprof.Type, count int) uint64 {
	id := b.ID()
	b.sub(&hprof.PrimitiveArrayDump{Array: hprof.ID(id), StackSerial: 1, Type: t, Count: uint32(count), NoData: true})
	return id
}

// Bytes writes a byte[].
func (b *Builder) Bytes(v []byte) uint64 { return b.PrimitiveArray(hprof.TypeByte, len(v), v) }

// Chars writes a char[] holding s in UTF-16.
func (b *Builder) Chars(s []uint16) uint64 {
	data := make([]byte, 0, 2*len(s))
	for _, c := range s {
		data = binary.BigEndian.AppendUint16(data, c)
	}
	return b.PrimitiveArray(hprof.TypeChar, len(s), data)
}

// Longs writes a long[].
func (b *Builder) Longs(v ...int64) uint64 {
	data := make([]byte, 0, 8*len(v))
	for _, x := range v {
		data = binary.BigEndian.AppendUint64(data, uint64(x))
	}
	return b.PrimitiveArray(hprof.TypeLong, len(v), data)
}

// Ints writes an int[].
func (b *Builder) Ints(v ...int32) uint64 {
	data := make([]byte, 0, 4*len(v))
	for _, x := range v {
		data = binary.BigEndian.AppendUint32(data, uint32(x))
	}
	return b.PrimitiveArray(hprof.TypeInt, len(v), data)
}

// Root writes a GC root sub-record of the given kind.
func (b *Builder) Root(kind hprof.SubTag, id uint64) {
	b.sub(&hprof.Root{Kind: kind, Object: hprof.ID(id)})
}

// HeapInfo writes an Android HEAP DUMP INFO.
func (b *Builder) HeapInfo(heap uint32, name string) {
	nid := b.Str(name)
	b.sub(&hprof.HeapDumpInfo{Heap: heap, Name: hprof.ID(nid)})
}

// Close dumps the classes not dumped yet, ends the dump and flushes.
func (b *Builder) Close() error {
	for _, c := range b.classes {
		if !c.dumped {
			c.Dump()
		}
	}
	if b.err == nil && b.inDump {
		b.write(&hprof.HeapDumpEnd{})
	}
	if b.err != nil {
		return b.err
	}
	return b.w.Close()
}

// F is shorthand for a Field.
func F(name string, t hprof.Type) Field { return Field{Name: name, Type: t} }
