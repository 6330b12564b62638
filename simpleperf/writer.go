package simpleperf

import (
	"bufio"
	"encoding/binary"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// Writer writes a report-sample stream as simpleperf does: the header,
// then each record as its u32 size and its Record message; Close writes the
// end record. The simulator, the generator and the tests use it.
type Writer struct {
	w   *bufio.Writer
	rec []byte // the record being built
	sub []byte // a nested message being built
	err error
}

// NewWriter writes the header to w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 1<<16)
	var v [2]byte
	binary.LittleEndian.PutUint16(v[:], Version)
	bw.WriteString(Magic)
	bw.Write(v[:])
	return &Writer{w: bw}
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendStringField(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// int32 fields are sign-extended to 64 bits on the wire.
func wireInt32(v int32) uint64 { return uint64(int64(v)) }

// record wraps body as field kind of a Record and writes it.
func (w *Writer) record(kind Kind, body []byte) error {
	if w.err != nil {
		return w.err
	}
	w.rec = protowire.AppendTag(w.rec[:0], protowire.Number(kind), protowire.BytesType)
	w.rec = protowire.AppendBytes(w.rec, body)
	var sz [4]byte
	binary.LittleEndian.PutUint32(sz[:], uint32(len(w.rec)))
	if _, err := w.w.Write(sz[:]); err != nil {
		w.err = err
		return err
	}
	if _, err := w.w.Write(w.rec); err != nil {
		w.err = err
	}
	return w.err
}

// Sample writes a sample; its Callchain is leaf first.
func (w *Writer) Sample(s *Sample) error {
	b := appendVarintField(w.sub[:0], 1, s.Time)
	b = appendVarintField(b, 2, wireInt32(s.ThreadID))
	for _, f := range s.Callchain {
		var e [32]byte
		eb := appendVarintField(e[:0], 1, f.VAddr)
		eb = appendVarintField(eb, 2, uint64(f.FileID))
		eb = appendVarintField(eb, 3, wireInt32(f.SymbolID))
		if f.Exec != NativeMethod {
			eb = appendVarintField(eb, 4, uint64(f.Exec))
		}
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendBytes(b, eb)
	}
	b = appendVarintField(b, 4, s.EventCount)
	if s.EventTypeID != 0 {
		b = appendVarintField(b, 5, uint64(s.EventTypeID))
	}
	if s.HasUnwinding {
		var u []byte
		u = appendVarintField(u, 1, uint64(s.Unwinding.RawErrorCode))
		u = appendVarintField(u, 2, s.Unwinding.ErrorAddr)
		u = appendVarintField(u, 3, uint64(s.Unwinding.ErrorCode))
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		b = protowire.AppendBytes(b, u)
	}
	w.sub = b
	return w.record(KindSample, b)
}

// Lost writes the lost-sample counts.
func (w *Writer) Lost(l Lost) error {
	b := appendVarintField(nil, 1, l.SampleCount)
	b = appendVarintField(b, 2, l.LostCount)
	return w.record(KindLost, b)
}

// File writes a file and its symbol table.
func (w *Writer) File(f *File) error {
	b := appendVarintField(nil, 1, uint64(f.ID))
	b = appendStringField(b, 2, f.Path)
	for _, s := range f.Symbols {
		b = appendStringField(b, 3, s)
	}
	for _, s := range f.Mangled {
		b = appendStringField(b, 4, s)
	}
	return w.record(KindFile, b)
}

// Thread writes a thread's name.
func (w *Writer) Thread(t Thread) error {
	b := appendVarintField(nil, 1, uint64(uint32(t.ThreadID)))
	b = appendVarintField(b, 2, uint64(uint32(t.ProcessID)))
	b = appendStringField(b, 3, t.Name)
	return w.record(KindThread, b)
}

// Meta writes the meta info.
func (w *Writer) Meta(m *MetaInfo) error {
	var b []byte
	for _, e := range m.EventTypes {
		b = appendStringField(b, 1, e)
	}
	b = appendStringField(b, 2, m.AppPackage)
	b = appendStringField(b, 3, m.AppType)
	b = appendStringField(b, 4, m.SDKVersion)
	if m.BuildType != "" {
		b = appendStringField(b, 5, m.BuildType)
	}
	if m.TraceOffCPU {
		b = appendVarintField(b, 6, 1)
	}
	return w.record(KindMeta, b)
}

// ContextSwitch writes a context switch.
func (w *Writer) ContextSwitch(c ContextSwitch) error {
	var on uint64
	if c.SwitchOn {
		on = 1
	}
	b := appendVarintField(nil, 1, on)
	b = appendVarintField(b, 2, c.Time)
	b = appendVarintField(b, 3, uint64(uint32(c.ThreadID)))
	return w.record(KindContextSwitch, b)
}

// Close writes the end record and flushes; it does not close the
// underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write([]byte{0, 0, 0, 0}); err != nil {
		return err
	}
	return w.w.Flush()
}
