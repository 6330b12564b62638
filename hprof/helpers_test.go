package hprof

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// canon returns a copy of rec that owns its slices, with empty slices nil,
// so records from a Reader (which alias its buffer) and from Synth.Emit
// (which reuse theirs) compare with reflect.DeepEqual.
func canon(rec Record) Record {
	b := func(s []byte) []byte {
		if len(s) == 0 {
			return nil
		}
		return bytes.Clone(s)
	}
	ids := func(s []ID) []ID {
		if len(s) == 0 {
			return nil
		}
		return slices.Clone(s)
	}
	switch r := rec.(type) {
	case *InstanceDump:
		c := *r
		c.Data = b(r.Data)
		return &c
	case *PrimitiveArrayDump:
		c := *r
		c.Data = b(r.Data)
		return &c
	case *ObjectArrayDump:
		c := *r
		c.Elements = ids(r.Elements)
		return &c
	case *RawRecord:
		c := *r
		c.Body = b(r.Body)
		return &c
	case *StackTrace:
		c := *r
		c.Frames = ids(r.Frames)
		return &c
	case *ClassDump:
		c := *r
		if len(c.Constants) == 0 {
			c.Constants = nil
		}
		if len(c.Statics) == 0 {
			c.Statics = nil
		}
		if len(c.Fields) == 0 {
			c.Fields = nil
		}
		c.Constants, c.Statics, c.Fields = slices.Clone(c.Constants), slices.Clone(c.Statics), slices.Clone(c.Fields)
		return &c
	}
	return rec
}

// readAll reads a whole file; records are canonical copies.
func readAll(b []byte) (Header, []Record, error) {
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return Header{}, nil, err
	}
	var recs []Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return r.Header(), recs, nil
		}
		if err != nil {
			return r.Header(), recs, err
		}
		recs = append(recs, canon(rec))
	}
}

// emitted returns the records Synth.Emit produces, as canonical copies.
func emitted(t testing.TB, s Synth) []Record {
	t.Helper()
	var recs []Record
	if err := s.Emit(func(r Record) error { recs = append(recs, canon(r)); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs
}

func synthBytes(t testing.TB, s Synth) []byte {
	t.Helper()
	b, err := s.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fileBytes builds a file by hand: a header, then raw records.
func fileBytes(version string, idSize int, records ...[]byte) []byte {
	var w wire.Writer
	w.Bytes([]byte(version))
	w.U1(0)
	w.U4(uint32(idSize))
	w.U8(0x0000018bcfe56800)
	for _, r := range records {
		w.Bytes(r)
	}
	return w.B
}

// rec builds a raw top-level record.
func rec(tag Tag, time uint32, body ...[]byte) []byte {
	var w wire.Writer
	all := bytes.Join(body, nil)
	w.U1(uint8(tag))
	w.U4(time)
	w.U4(uint32(len(all)))
	w.Bytes(all)
	return w.B
}

// raw concatenates fields written with a wire.Writer: u1/u4/id helpers for
// hand-built sub-records (4-byte ids unless said).
type raw struct{ w wire.Writer }

func (r *raw) u1(v uint8) *raw   { r.w.U1(v); return r }
func (r *raw) u2(v uint16) *raw  { r.w.U2(v); return r }
func (r *raw) u4(v uint32) *raw  { r.w.U4(v); return r }
func (r *raw) id8(v uint64) *raw { r.w.U8(v); return r }
func (r *raw) b(v ...byte) *raw  { r.w.Bytes(v); return r }
func (r *raw) bytes() []byte     { return r.w.B }
func newRaw() *raw               { return &raw{} }

// formatErr asserts err is a *FormatError at offset off.
func formatErr(t *testing.T, err error, off int) *FormatError {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want a *FormatError", err, err)
	}
	if fe.Offset != off {
		t.Fatalf("error %q at offset %d, want offset %d", err, fe.Offset, off)
	}
	return fe
}
