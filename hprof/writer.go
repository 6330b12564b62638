package hprof

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// Writer encodes Records as an HPROF file. Top-level records are written as
// they come; a heap dump record's sub-records are collected in memory until
// the record ends (at the next top-level record or Close), because its
// length comes first. Call Close to end the last record and flush.
type Writer struct {
	// Time is the time delta (microseconds since the header's timestamp)
	// written in the header of each following top-level record.
	Time uint32

	out      *bufio.Writer
	idSize   int
	inDump   bool
	dumpTag  Tag
	dumpTime uint32
	dump     wire.Writer // body of the open heap dump record
	rec      wire.Writer // scratch for one top-level record
	hdr      [recordHeaderLen]byte
	err      error
}

// ErrSubOutsideDump is returned by Writer.Write for a heap-dump sub-record
// written before any *HeapDump.
var ErrSubOutsideDump = errors.New("hprof: heap dump sub-record outside a heap dump record")

// NewWriter writes the header h to w and returns a Writer for the records.
// An empty Version means VersionAndroid and a zero IDSize means 4.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Version == "" {
		h.Version = VersionAndroid
	}
	if h.IDSize == 0 {
		h.IDSize = 4
	}
	if err := h.validate(); err != nil {
		return nil, err
	}
	hw := &Writer{out: bufio.NewWriterSize(w, 64<<10), idSize: h.IDSize}
	var b wire.Writer
	b.Bytes([]byte(h.Version))
	b.U1(0)
	b.U4(uint32(h.IDSize))
	b.U8(h.Timestamp)
	if _, err := hw.out.Write(b.B); err != nil {
		return nil, err
	}
	return hw, nil
}

// Write encodes one record. A *HeapDump starts a heap dump record (ending
// any open one); sub-records go into the open heap dump; any other
// top-level record ends it. Invalid values (an id too large for the
// identifier size, an unknown root kind, array data whose length does not
// match its count) are reported before anything of the record is written.
func (w *Writer) Write(rec Record) error {
	if w.err != nil {
		return w.err
	}
	if err := w.write(rec); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return err // nothing written; the Writer stays usable
		}
		w.err = err
		return err
	}
	return nil
}

// fieldError reports a record that cannot be encoded; nothing of it was
// written.
type fieldError struct{ err error }

func (e *fieldError) Error() string { return e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

func invalid(format string, args ...any) error {
	return &fieldError{fmt.Errorf("hprof: "+format, args...)}
}

func (w *Writer) write(rec Record) error {
	switch rec.(type) {
	case *Root, *HeapDumpInfo, *ClassDump, *InstanceDump, *ObjectArrayDump, *PrimitiveArrayDump:
		if !w.inDump {
			return &fieldError{ErrSubOutsideDump}
		}
		mark := len(w.dump.B)
		if err := w.encodeSub(&w.dump, rec); err != nil {
			w.dump.B = w.dump.B[:mark]
			return err
		}
		if len(w.dump.B) > math.MaxUint32 {
			w.dump.B = w.dump.B[:mark]
			return invalid("heap dump record longer than 4 GiB")
		}
		return nil
	}
	hd, isDump := rec.(*HeapDump)
	var tag Tag
	if !isDump {
		w.rec.B = w.rec.B[:0]
		var err error
		if tag, err = w.encodeTop(&w.rec, rec); err != nil {
			return err
		}
		if len(w.rec.B) > math.MaxUint32 {
			return invalid("%v record longer than 4 GiB", tag)
		}
	}
	if err := w.endDump(); err != nil {
		return err
	}
	if isDump {
		w.inDump = true
		w.dumpTag = TagHeapDump
		if hd.Segment {
			w.dumpTag = TagHeapDumpSegment
		}
		w.dumpTime = w.Time
		w.dump.B = w.dump.B[:0]
		return nil
	}
	return w.emit(tag, w.Time, w.rec.B)
}

// emit writes a top-level record.
// Bodies are at most 4 GiB: write and encodeSub check.
func (w *Writer) emit(tag Tag, time uint32, body []byte) error {
	h := w.hdr[:]
	h[0] = byte(tag)
	binary.BigEndian.PutUint32(h[1:], time)
	binary.BigEndian.PutUint32(h[5:], uint32(len(body)))
	if _, err := w.out.Write(h); err != nil {
		return err
	}
	_, err := w.out.Write(body)
	return err
}

func (w *Writer) endDump() error {
	if !w.inDump {
		return nil
	}
	w.inDump = false
	return w.emit(w.dumpTag, w.dumpTime, w.dump.B)
}

// Close ends the open heap dump record, if any, and flushes. It does not
// close the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if err := w.endDump(); err != nil {
		w.err = err
		return err
	}
	if err := w.out.Flush(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// id appends v, checking that it fits the identifier size.
func (w *Writer) id(b *wire.Writer, v ID, what string) error {
	if w.idSize < 8 && uint64(v)>>(8*w.idSize) != 0 {
		return invalid("%s %#x does not fit in %d bytes", what, uint64(v), w.idSize)
	}
	b.ID(w.idSize, uint64(v))
	return nil
}

// ids appends several ids.
func (w *Writer) ids(b *wire.Writer, what string, vs ...ID) error {
	for _, v := range vs {
		if err := w.id(b, v, what); err != nil {
			return err
		}
	}
	return nil
}

// value appends a field or constant value of type t.
func (w *Writer) value(b *wire.Writer, t Type, v uint64, what string) error {
	size := t.Size(w.idSize)
	if size == 0 {
		return invalid("%s: invalid basic type %d", what, uint8(t))
	}
	if size < 8 && v>>(8*size) != 0 {
		return invalid("%s %#x does not fit a %v", what, v, t)
	}
	b.U1(uint8(t))
	b.ID(size, v)
	return nil
}

func (w *Writer) encodeTop(b *wire.Writer, rec Record) (Tag, error) {
	switch r := rec.(type) {
	case *UTF8:
		if err := w.id(b, r.ID, "string id"); err != nil {
			return 0, err
		}
		b.Bytes([]byte(r.Text))
		return TagString, nil
	case *LoadClass:
		b.U4(r.Serial)
		if err := w.id(b, r.Class, "class id"); err != nil {
			return 0, err
		}
		b.U4(r.StackSerial)
		return TagLoadClass, w.id(b, r.Name, "class name id")
	case *UnloadClass:
		b.U4(r.Serial)
		return TagUnloadClass, nil
	case *StackFrame:
		if err := w.ids(b, "stack frame id", r.Frame, r.Method, r.Signature, r.Source); err != nil {
			return 0, err
		}
		b.U4(r.ClassSerial)
		b.S4(r.Line)
		return TagStackFrame, nil
	case *StackTrace:
		b.U4(r.Serial)
		b.U4(r.Thread)
		b.U4(uint32(len(r.Frames)))
		return TagStackTrace, w.ids(b, "frame id", r.Frames...)
	case *HeapSummary:
		b.U4(r.LiveBytes)
		b.U4(r.LiveInstances)
		b.U8(r.AllocBytes)
		b.U8(r.AllocInstances)
		return TagHeapSummary, nil
	case *StartThread:
		b.U4(r.Thread)
		if err := w.id(b, r.Object, "thread object id"); err != nil {
			return 0, err
		}
		b.U4(r.StackSerial)
		return TagStartThread, w.ids(b, "thread name id", r.Name, r.Group, r.Parent)
	case *EndThread:
		b.U4(r.Thread)
		return TagEndThread, nil
	case *HeapDumpEnd:
		return TagHeapDumpEnd, nil
	case *RawRecord:
		b.Bytes(r.Body)
		return r.Tag, nil
	case nil:
		return 0, invalid("nil record")
	}
	return 0, invalid("cannot write %T", rec)
}

func (w *Writer) encodeSub(b *wire.Writer, rec Record) error {
	id := w.idSize
	switch r := rec.(type) {
	case *Root:
		rl := rootLayouts[r.Kind]
		if !rl.root {
			return invalid("%v is not a root kind", r.Kind)
		}
		b.U1(uint8(r.Kind))
		if err := w.id(b, r.Object, "root object id"); err != nil {
			return err
		}
		if rl.jniRef {
			if err := w.id(b, r.JNIRef, "JNI global ref id"); err != nil {
				return err
			}
		}
		if rl.thread {
			b.U4(r.Thread)
		}
		if rl.frame {
			b.U4(r.Frame)
		}
		if rl.stackSerial {
			b.U4(r.StackSerial)
		}
	case *HeapDumpInfo:
		b.U1(uint8(SubHeapDumpInfo))
		b.U4(r.Heap)
		return w.id(b, r.Name, "heap name id")
	case *ClassDump:
		b.U1(uint8(SubClassDump))
		if err := w.id(b, r.Class, "class id"); err != nil {
			return err
		}
		b.U4(r.StackSerial)
		if err := w.ids(b, "class dump id", r.Super, r.Loader, r.Signers, r.ProtectionDomain, r.Reserved1, r.Reserved2); err != nil {
			return err
		}
		b.U4(r.InstanceSize)
		if len(r.Constants) > math.MaxUint16 || len(r.Statics) > math.MaxUint16 || len(r.Fields) > math.MaxUint16 {
			return invalid("class dump %#x: more than 65535 constants or fields", uint64(r.Class))
		}
		b.U2(uint16(len(r.Constants)))
		for _, k := range r.Constants {
			b.U2(k.Index)
			if err := w.value(b, k.Type, k.Value, "constant"); err != nil {
				return err
			}
		}
		b.U2(uint16(len(r.Statics)))
		for _, s := range r.Statics {
			if err := w.id(b, s.Name, "static field name id"); err != nil {
				return err
			}
			if err := w.value(b, s.Type, s.Value, "static field"); err != nil {
				return err
			}
		}
		b.U2(uint16(len(r.Fields)))
		for _, f := range r.Fields {
			if err := w.id(b, f.Name, "instance field name id"); err != nil {
				return err
			}
			if !f.Type.Valid() {
				return invalid("instance field: invalid basic type %d", uint8(f.Type))
			}
			b.U1(uint8(f.Type))
		}
	case *InstanceDump:
		if uint64(len(r.Data)) > math.MaxUint32 {
			return invalid("instance data longer than 4 GiB")
		}
		b.U1(uint8(SubInstanceDump))
		if err := w.id(b, r.Object, "instance id"); err != nil {
			return err
		}
		b.U4(r.StackSerial)
		if err := w.id(b, r.Class, "instance class id"); err != nil {
			return err
		}
		b.U4(uint32(len(r.Data)))
		b.Bytes(r.Data)
	case *ObjectArrayDump:
		if uint64(len(r.Elements)) > math.MaxUint32 {
			return invalid("object array longer than 2^32-1 elements")
		}
		b.U1(uint8(SubObjectArrayDump))
		if err := w.id(b, r.Array, "array id"); err != nil {
			return err
		}
		b.U4(r.StackSerial)
		b.U4(uint32(len(r.Elements)))
		if err := w.id(b, r.Class, "array class id"); err != nil {
			return err
		}
		return w.ids(b, "array element", r.Elements...)
	case *PrimitiveArrayDump:
		if !r.Type.Primitive() {
			return invalid("primitive array: invalid element type %d", uint8(r.Type))
		}
		tag := SubPrimitiveArray
		if r.NoData {
			tag = SubPrimitiveArrayNoData
			if len(r.Data) != 0 {
				return invalid("primitive array NODATA with %d data bytes", len(r.Data))
			}
		} else if uint64(len(r.Data)) != uint64(r.Count)*uint64(r.Type.Size(id)) {
			return invalid("primitive array of %d %v has %d data bytes", r.Count, r.Type, len(r.Data))
		}
		b.U1(uint8(tag))
		if err := w.id(b, r.Array, "array id"); err != nil {
			return err
		}
		b.U4(r.StackSerial)
		b.U4(r.Count)
		b.U1(uint8(r.Type))
		b.Bytes(r.Data)
	}
	return nil
}
