package hprof

import (
	"io"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// Reader streams an HPROF file (1.0.1, 1.0.2 or Android's 1.0.3) record by
// record. It holds one record body in memory at a time: a heap dump segment
// is read whole, then its sub-records are decoded from it one per call to
// Next.
//
// Android's sub-records are accepted whatever the header's version. A
// sub-record with an unknown tag is an error (at the tag's offset): its size
// cannot be known, so nothing after it in the record can be read.
type Reader struct {
	src    *source
	header Header
	lay    *layout
	cur    RecordInfo   // the top-level record holding the last value returned
	last   int64        // offset of the last value returned
	dump   []byte       // body of the current heap dump record
	sub    *wire.Reader // over dump, while sub-records remain
	err    error        // sticky
}

// NewReader reads the header from r and returns a Reader positioned on the
// first record.
func NewReader(r io.Reader) (*Reader, error) {
	src := newSource(r)
	h, err := src.header()
	if err != nil {
		return nil, err
	}
	return &Reader{src: src, header: h, lay: layouts[h.IDSize]}, nil
}

// Header returns the file's header.
func (r *Reader) Header() Header { return r.header }

// Offset returns the byte offset of the last Record Next returned (its tag
// byte).
func (r *Reader) Offset() int64 { return r.last }

// RecordInfo describes the top-level record that holds the last Record
// Next returned: for a sub-record, its HEAP DUMP (SEGMENT).
type RecordInfo struct {
	Tag    Tag
	Time   uint32 // microseconds since the header's timestamp
	Length uint32 // body length
	Offset int64  // of the record's tag byte
}

// RecordInfo returns the header of the top-level record that holds the
// last Record Next returned.
func (r *Reader) RecordInfo() RecordInfo { return r.cur }

// Next returns the next record or sub-record. It returns io.EOF at the end
// of a well-formed file, and after an error returns that error again.
// Slices in the result may alias the Reader's buffer (see each type).
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return rec, nil
}

func (r *Reader) next() (Record, error) {
	if r.sub != nil {
		if r.sub.Len() > 0 {
			r.last = r.cur.Offset + recordHeaderLen + int64(r.sub.Offset())
			rec := r.lay.parseSub(r.sub, r.dump)
			if err := r.sub.Err(); err != nil {
				return nil, err
			}
			return rec, nil
		}
		r.sub = nil
	}
	rh, err := r.src.record()
	if err != nil {
		return nil, err
	}
	r.cur = rh
	r.last = rh.Offset
	body, err := r.src.body(rh)
	if err != nil {
		return nil, err
	}
	base := int(rh.Offset) + recordHeaderLen
	if rh.Tag.isHeapDump() {
		r.dump = body
		r.sub = wire.NewReader(body, base)
		return &HeapDump{Segment: rh.Tag == TagHeapDumpSegment}, nil
	}
	return r.lay.parseTop(rh.Tag, body, base)
}

// parseTop decodes a top-level record other than a heap dump.
func (l *layout) parseTop(tag Tag, body []byte, base int) (Record, error) {
	r := wire.NewReader(body, base)
	id := l.idSize
	var rec Record
	switch tag {
	case TagString:
		s := &UTF8{ID: ID(r.ID(id, "string id"))}
		s.Text = string(r.Rest())
		rec = s
	case TagLoadClass:
		rec = &LoadClass{Serial: r.U4("class serial"), Class: ID(r.ID(id, "class id")),
			StackSerial: r.U4("stack trace serial"), Name: ID(r.ID(id, "class name id"))}
	case TagUnloadClass:
		rec = &UnloadClass{Serial: r.U4("class serial")}
	case TagStackFrame:
		rec = &StackFrame{Frame: ID(r.ID(id, "frame id")), Method: ID(r.ID(id, "method name id")),
			Signature: ID(r.ID(id, "method signature id")), Source: ID(r.ID(id, "source file id")),
			ClassSerial: r.U4("class serial"), Line: r.S4("line number")}
	case TagStackTrace:
		st := &StackTrace{Serial: r.U4("stack trace serial"), Thread: r.U4("thread serial")}
		if n := r.Count(uint64(r.U4("frame count")), id, "stack trace frames"); n > 0 {
			st.Frames = make([]ID, n)
			for i := range st.Frames {
				st.Frames[i] = ID(r.ID(id, "frame id"))
			}
		}
		rec = st
	case TagHeapSummary:
		rec = &HeapSummary{LiveBytes: r.U4("live bytes"), LiveInstances: r.U4("live instances"),
			AllocBytes: r.U8("allocated bytes"), AllocInstances: r.U8("allocated instances")}
	case TagStartThread:
		rec = &StartThread{Thread: r.U4("thread serial"), Object: ID(r.ID(id, "thread object id")),
			StackSerial: r.U4("stack trace serial"), Name: ID(r.ID(id, "thread name id")),
			Group: ID(r.ID(id, "thread group name id")), Parent: ID(r.ID(id, "parent group name id"))}
	case TagEndThread:
		rec = &EndThread{Thread: r.U4("thread serial")}
	case TagHeapDumpEnd:
		rec = &HeapDumpEnd{}
	default:
		return &RawRecord{Tag: tag, Body: r.Rest()}, nil
	}
	r.End(tag.String())
	if err := r.Err(); err != nil {
		return nil, err
	}
	return rec, nil
}

// parseSub decodes the sub-record at r's position (its tag byte in body).
// A failure is left in r.
func (l *layout) parseSub(r *wire.Reader, body []byte) Record {
	id := l.idSize
	tag := SubTag(body[r.Offset()])
	if l.fixed[tag] < 0 {
		r.Failf("heap dump sub-record", "unknown tag 0x%02X", uint8(tag))
		return nil
	}
	r.Skip(1, "")
	if rl := rootLayouts[tag]; rl.root {
		root := &Root{Kind: tag, Object: ID(r.ID(id, "root object id"))}
		if rl.jniRef {
			root.JNIRef = ID(r.ID(id, "JNI global ref id"))
		}
		if rl.thread {
			root.Thread = r.U4("root thread serial")
		}
		if rl.frame {
			root.Frame = r.U4("root frame number")
		}
		if rl.stackSerial {
			root.StackSerial = r.U4("root stack trace serial")
		}
		return root
	}
	switch tag {
	case SubHeapDumpInfo:
		return &HeapDumpInfo{Heap: r.U4("heap id"), Name: ID(r.ID(id, "heap name id"))}
	case SubClassDump:
		return l.parseClassDump(r, body)
	case SubInstanceDump:
		in := &InstanceDump{Object: ID(r.ID(id, "instance id")), StackSerial: r.U4("stack trace serial"),
			Class: ID(r.ID(id, "instance class id"))}
		n := r.Count(uint64(r.U4("instance data length")), 1, "instance data")
		in.Data = r.Bytes(n, "instance data")
		return in
	case SubObjectArrayDump:
		a := &ObjectArrayDump{Array: ID(r.ID(id, "array id")), StackSerial: r.U4("stack trace serial")}
		count := r.U4("object array length")
		a.Class = ID(r.ID(id, "array class id"))
		if n := r.Count(uint64(count), id, "object array elements"); n > 0 {
			a.Elements = make([]ID, n)
			for i := range a.Elements {
				a.Elements[i] = ID(r.ID(id, "array element"))
			}
		}
		return a
	default: // SubPrimitiveArray, SubPrimitiveArrayNoData
		a := &PrimitiveArrayDump{Array: ID(r.ID(id, "array id")), StackSerial: r.U4("stack trace serial"),
			Count: r.U4("primitive array length"), NoData: tag == SubPrimitiveArrayNoData}
		var size int
		a.Type, size = peekType(r, body, id, "primitive array type", false)
		if !a.NoData {
			n := r.Count(uint64(a.Count), size, "primitive array elements")
			a.Data = r.Bytes(n*size, "primitive array elements")
		}
		return a
	}
}

func (l *layout) parseClassDump(r *wire.Reader, body []byte) *ClassDump {
	id := l.idSize
	c := &ClassDump{
		Class:            ID(r.ID(id, "class id")),
		StackSerial:      r.U4("stack trace serial"),
		Super:            ID(r.ID(id, "superclass id")),
		Loader:           ID(r.ID(id, "class loader id")),
		Signers:          ID(r.ID(id, "signers id")),
		ProtectionDomain: ID(r.ID(id, "protection domain id")),
		Reserved1:        ID(r.ID(id, "reserved id")),
		Reserved2:        ID(r.ID(id, "reserved id")),
		InstanceSize:     r.U4("instance size"),
	}
	// Each entry takes at least 3 bytes (constants, instance fields) or
	// id+2 (statics), so the counts are checked before allocating.
	if n := r.Count(uint64(r.U2("constant pool size")), 3, "constant pool"); n > 0 {
		c.Constants = make([]Constant, n)
		for i := range c.Constants {
			k := &c.Constants[i]
			k.Index = r.U2("constant pool index")
			var size int
			k.Type, size = peekType(r, body, id, "constant type", true)
			k.Value = r.ID(max(size, 1), "constant value")
		}
	}
	if n := r.Count(uint64(r.U2("static field count")), id+2, "static fields"); n > 0 {
		c.Statics = make([]StaticField, n)
		for i := range c.Statics {
			s := &c.Statics[i]
			s.Name = ID(r.ID(id, "static field name id"))
			var size int
			s.Type, size = peekType(r, body, id, "static field type", true)
			s.Value = r.ID(max(size, 1), "static field value")
		}
	}
	if n := r.Count(uint64(r.U2("instance field count")), id+1, "instance fields"); n > 0 {
		c.Fields = make([]Field, n)
		for i := range c.Fields {
			f := &c.Fields[i]
			f.Name = ID(r.ID(id, "instance field name id"))
			f.Type, _ = peekType(r, body, id, "instance field type", true)
		}
	}
	return c
}
