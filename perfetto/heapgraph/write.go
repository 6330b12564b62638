package heapgraph

import (
	"errors"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// Writer writes one heap dump as ART's perfetto_hprof does on a given
// Android version (spec/perfetto-heapgraph.md "How ART fills it"): roots,
// then objects with their types written as they come, and the interned
// field and location names in the last packet; a new packet after
// PacketBytes, each with the pid, the timestamp, index 0, 1, 2, … and
// continued on all but the last. By API:
//
//   - API 30: every object has an absolute id, its self_size, and a field
//     name id beside each non-null reference it writes (nulls are left out).
//   - API 31–33: ids increase by id_delta within a packet (a packet's first
//     object has an absolute id); self_size only where it differs from the
//     type's object_size; instances (kinds NORMAL and the reference kinds)
//     write every reference value, nulls as 0, and no field ids — their
//     types list their own reference fields — object arrays their elements
//     without ids (on every API level: element i is [i]), other kinds (class objects, class loaders, …) field ids
//     beside their non-null values.
//   - API 34 and later: as 31, and each object's non-zero reference values
//     are written less reference_field_id_base (one below its smallest
//     referred id, so that no value becomes 0, which stays null).
//
// A heap type is written when it changes, and again on a packet's first
// object. Writer buffers one packet; it is not safe for concurrent use.
type Writer struct {
	w           io.Writer
	api         int
	pid         int32
	ts          uint64
	seq         uint64
	packetBytes int

	body    []byte // the current packet's HeapGraph fields
	index   uint64
	prevID  uint64
	heap    HeapType
	fresh   bool // no object in this packet yet
	fields  map[string]uint32
	fieldsO []string
	locs    map[string]uint64
	locsO   []string
	scratch []byte
	err     error
}

// WriterOptions describe the dump a Writer writes.
type WriterOptions struct {
	API       int    // Android API level (default 34; below 30 is 30)
	PID       int32  // the process
	Timestamp uint64 // the packets' timestamp (ns)
	Sequence  uint64 // the trusted packet sequence id (default 1)
	// PacketBytes starts a new packet once one holds this many bytes
	// (default 400 KB, as ART).
	PacketBytes int
}

// NewWriter returns a Writer of one dump to w. Writing the trace's other
// packets before or after (WritePacket) is up to the caller.
func NewWriter(w io.Writer, o WriterOptions) *Writer {
	if o.API == 0 {
		o.API = 34
	}
	if o.Sequence == 0 {
		o.Sequence = 1
	}
	if o.PacketBytes <= 0 {
		o.PacketBytes = 400 << 10
	}
	return &Writer{w: w, api: max(o.API, 30), pid: o.PID, ts: o.Timestamp, seq: o.Sequence,
		packetBytes: o.PacketBytes, fresh: true, fields: map[string]uint32{}, locs: map[string]uint64{}}
}

// API is the Android API level whose encoding the Writer uses.
func (w *Writer) API() int { return w.api }

// PerTypeFields reports whether instances of the Writer's API level take
// their reference field names from their types (API 31+).
func (w *Writer) PerTypeFields() bool { return w.api >= 31 }

// FieldID interns a field name ("<type> <Class>.<name>") and returns its
// iid; the names are written in the last packet.
func (w *Writer) FieldID(name string) uint32 {
	if id, ok := w.fields[name]; ok {
		return id
	}
	w.fieldsO = append(w.fieldsO, name)
	id := uint32(len(w.fieldsO))
	w.fields[name] = id
	return id
}

// LocationID interns a location (the dex or jar a class came from).
func (w *Writer) LocationID(name string) uint64 {
	if id, ok := w.locs[name]; ok {
		return id
	}
	w.locsO = append(w.locsO, name)
	id := uint64(len(w.locsO))
	w.locs[name] = id
	return id
}

// Roots writes one HeapGraphRoot.
func (w *Writer) Roots(t RootType, ids ...uint64) {
	if len(ids) == 0 {
		return
	}
	m := w.scratch[:0]
	m = appendPacked(m, fRootObjectIDs, ids)
	m = appendVarint(m, fRootType, uint64(t))
	w.add(fGraphRoots, m)
}

// TypeSpec is a type as the Writer writes it.
type TypeSpec struct {
	ID, SuperID, ClassLoader, ObjectSize uint64
	Name, Location                       string
	Kind                                 Kind
	// RefFields are the field name iids of the class's own reference
	// fields; written from API 31.
	RefFields []uint32
}

// Type writes one HeapGraphType.
func (w *Writer) Type(t TypeSpec) {
	m := w.scratch[:0]
	m = appendVarint(m, fTypeID, t.ID)
	if t.Location != "" {
		m = appendVarint(m, fTypeLocationID, w.LocationID(t.Location))
	}
	m = protowire.AppendTag(m, fTypeClassName, protowire.BytesType)
	m = protowire.AppendString(m, t.Name)
	m = appendVarint(m, fTypeObjectSize, t.ObjectSize)
	if t.SuperID != 0 {
		m = appendVarint(m, fTypeSuperclass, t.SuperID)
	}
	if w.PerTypeFields() && len(t.RefFields) > 0 {
		ids := make([]uint64, len(t.RefFields))
		for i, f := range t.RefFields {
			ids[i] = uint64(f)
		}
		m = appendPacked(m, fTypeRefFieldID, ids)
	}
	m = appendVarint(m, fTypeKind, uint64(t.Kind))
	if t.ClassLoader != 0 {
		m = appendVarint(m, fTypeClassLoader, t.ClassLoader)
	}
	w.add(fGraphTypes, m)
}

// ObjectSpec is an object as the Writer writes it.
type ObjectSpec struct {
	ID, TypeID uint64
	// Size is the object's size, TypeSize its type's object_size.
	Size, TypeSize uint64
	Heap           HeapType
	// Kind is the kind of the object's type: it decides how references
	// are written.
	Kind Kind
	// Refs are the reference values (0 null) and Fields their field name
	// iids (none for an array: element i is [i]). For an instance, the
	// values of its class's reference fields, then its superclass's, …,
	// as its types list them.
	Refs   []uint64
	Fields []uint32
}

// Object writes one HeapGraphObject.
func (w *Writer) Object(o ObjectSpec) {
	m := w.scratch[:0]
	if w.api >= 31 && !w.fresh && o.ID > w.prevID {
		m = appendVarint(m, fObjIDDelta, o.ID-w.prevID)
	} else {
		m = appendVarint(m, fObjID, o.ID)
	}
	m = appendVarint(m, fObjTypeID, o.TypeID)
	if w.api < 31 || o.Size != o.TypeSize {
		m = appendVarint(m, fObjSelfSize, o.Size)
	}
	if w.fresh || o.Heap != w.heap {
		m = appendVarint(m, fObjHeapType, uint64(o.Heap))
	}
	var refs []uint64
	var fields []uint64
	switch {
	case o.Kind == KindArray || w.api >= 31 && o.Kind.instanceKind():
		refs = append(refs, o.Refs...)
	default:
		for i, r := range o.Refs {
			if r == 0 {
				continue
			}
			refs = append(refs, r)
			if len(o.Fields) > i {
				fields = append(fields, uint64(o.Fields[i]))
			} else {
				fields = append(fields, 0)
			}
		}
		if len(o.Fields) == 0 {
			fields = nil
		}
	}
	if w.api >= 34 && len(refs) > 0 {
		var base uint64
		for _, r := range refs {
			if r != 0 && (base == 0 || r < base) {
				base = r
			}
		}
		if base > 1 {
			base-- // one below the smallest, so no value becomes 0 (null)
			m = appendVarint(m, fObjRefFieldBase, base)
			for i, r := range refs {
				if r != 0 {
					refs[i] = r - base
				}
			}
		}
	}
	if len(fields) > 0 {
		m = appendPacked(m, fObjRefFieldID, fields)
	}
	if len(refs) > 0 {
		m = appendPacked(m, fObjRefObjectID, refs)
	}
	w.prevID, w.heap, w.fresh = o.ID, o.Heap, false
	w.add(fGraphObjects, m)
}

// add appends one repeated field to the packet, and ends the packet once
// it is full.
func (w *Writer) add(num protowire.Number, msg []byte) {
	w.body = protowire.AppendTag(w.body, num, protowire.BytesType)
	w.body = protowire.AppendBytes(w.body, msg)
	w.scratch = msg[:0]
	if len(w.body) >= w.packetBytes {
		w.flush(true)
	}
}

func (w *Writer) flush(continued bool) {
	if w.err != nil {
		return
	}
	g := appendVarint(nil, fGraphPID, uint64(uint32(w.pid)))
	g = appendVarint(g, fGraphIndex, w.index)
	if continued {
		g = appendVarint(g, fGraphContinued, 1)
	}
	g = append(g, w.body...)
	w.err = WritePacket(w.w, w.ts, w.seq, fPacketHeapGraph, g)
	w.body, w.index, w.fresh = w.body[:0], w.index+1, true
}

// Close writes the interned names into the last packet and ends the dump.
func (w *Writer) Close() error {
	for i, s := range w.fieldsO {
		w.body = appendInterned(w.body, fGraphFieldNames, uint64(i+1), s)
	}
	for i, s := range w.locsO {
		w.body = appendInterned(w.body, fGraphLocationNames, uint64(i+1), s)
	}
	w.flush(false)
	if w.err == nil && w.index == 0 {
		w.err = errors.New("heapgraph: nothing written")
	}
	return w.err
}

// WritePacket writes one TracePacket (with the given timestamp and
// trusted sequence id, 0 for none) holding field num with body payload,
// framed as Trace.packet.
func WritePacket(w io.Writer, ts, seq uint64, num protowire.Number, payload []byte) error {
	var p []byte
	if ts != 0 {
		p = appendVarint(p, fPacketTimestamp, ts)
	}
	if seq != 0 {
		p = appendVarint(p, fPacketSequenceID, seq)
	}
	p = protowire.AppendTag(p, num, protowire.BytesType)
	p = protowire.AppendBytes(p, payload)
	out := protowire.AppendTag(nil, fTracePacket, protowire.BytesType)
	out = protowire.AppendBytes(out, p)
	_, err := w.Write(out)
	return err
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendPacked(b []byte, num protowire.Number, vs []uint64) []byte {
	n := 0
	for _, v := range vs {
		n += protowire.SizeVarint(v)
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	for _, v := range vs {
		b = protowire.AppendVarint(b, v)
	}
	return b
}

func appendInterned(b []byte, num protowire.Number, iid uint64, s string) []byte {
	m := appendVarint(nil, fInternedIID, iid)
	m = protowire.AppendTag(m, fInternedStr, protowire.BytesType)
	m = protowire.AppendString(m, s)
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}
