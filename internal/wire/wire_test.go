package wire

import (
	"bytes"
	"errors"
	"testing"
)

func TestReaderFixedWidths(t *testing.T) {
	b := []byte{
		0x01,       // U1
		0x80, 0x02, // U2
		0xFF, 0xFE, // S2 = -2
		0x12, 0x34, 0x56, 0x78, // U4
		0xFF, 0xFF, 0xFF, 0xFF, // S4 = -1
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // U8
		0x02, 0x01, // U2LE = 0x0102
		0x04, 0x03, 0x02, 0x01, // U4LE = 0x01020304
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // U8LE
		0xAA, 0xBB, 0xCC, // ID(3)
	}
	r := NewReader(b, 0)
	if v := r.U1("u1"); v != 1 {
		t.Errorf("U1 = %#x", v)
	}
	if v := r.U2("u2"); v != 0x8002 {
		t.Errorf("U2 = %#x", v)
	}
	if v := r.S2("s2"); v != -2 {
		t.Errorf("S2 = %d", v)
	}
	if v := r.U4("u4"); v != 0x12345678 {
		t.Errorf("U4 = %#x", v)
	}
	if v := r.S4("s4"); v != -1 {
		t.Errorf("S4 = %d", v)
	}
	if v := r.U8("u8"); v != 0x0102030405060708 {
		t.Errorf("U8 = %#x", v)
	}
	if v := r.U2LE("u2le"); v != 0x0102 {
		t.Errorf("U2LE = %#x", v)
	}
	if v := r.U4LE("u4le"); v != 0x01020304 {
		t.Errorf("U4LE = %#x", v)
	}
	if v := r.U8LE("u8le"); v != 0x0102030405060708 {
		t.Errorf("U8LE = %#x", v)
	}
	if v := r.ID(3, "id"); v != 0xAABBCC {
		t.Errorf("ID = %#x", v)
	}
	r.End("end")
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if r.Len() != 0 || r.Offset() != len(b) {
		t.Fatalf("Len %d Offset %d after reading everything", r.Len(), r.Offset())
	}
}

func TestWriterMatchesReader(t *testing.T) {
	var w Writer
	w.U1(1)
	w.Bool(true)
	w.Bool(false)
	w.U2(0x8002)
	w.S2(-2)
	w.U4(0x12345678)
	w.S4(-1)
	w.U8(0x0102030405060708)
	w.U2LE(0x0102)
	w.U4LE(0x01020304)
	w.U8LE(0x0102030405060708)
	w.ID(3, 0xAABBCC)
	w.Bytes([]byte{9, 9})
	want := []byte{
		0x01, 0x01, 0x00, 0x80, 0x02, 0xFF, 0xFE, 0x12, 0x34, 0x56, 0x78, 0xFF, 0xFF, 0xFF, 0xFF,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x02, 0x01, 0x04, 0x03, 0x02, 0x01, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0xAA, 0xBB, 0xCC, 9, 9,
	}
	if !bytes.Equal(w.B, want) {
		t.Fatalf("wrote % x\nwant     % x", w.B, want)
	}
}

func TestReaderStickyErrorAndOffset(t *testing.T) {
	r := NewReader([]byte{0, 0, 0, 5, 1}, 100)
	if r.U4("count") != 5 {
		t.Fatal("first read failed")
	}
	if v := r.U2("field"); v != 0 {
		t.Errorf("short read returned %d", v)
	}
	if v := r.U1("after"); v != 0 {
		t.Errorf("read after failure returned %d", v)
	}
	var fe *FormatError
	if !errors.As(r.Err(), &fe) {
		t.Fatalf("error %v is not a FormatError", r.Err())
	}
	if fe.Offset != 104 || fe.What != "field" || !errors.Is(fe, ErrShort) {
		t.Fatalf("got %+v, want offset 104 field ErrShort", fe)
	}
	if r.Rest() != nil {
		t.Error("Rest after failure returned data")
	}
}

func TestReaderCount(t *testing.T) {
	r := NewReader(make([]byte, 12), 0)
	if n := r.Count(3, 4, "n"); n != 3 || r.Err() != nil {
		t.Fatalf("3×4 in 12 bytes: n=%d err=%v", n, r.Err())
	}
	if n := r.Count(4, 4, "n"); n != 0 || !errors.Is(r.Err(), ErrTooLong) {
		t.Fatalf("4×4 in 12 bytes: n=%d err=%v", n, r.Err())
	}
	r = NewReader(make([]byte, 12), 0)
	if n := r.Count(1<<63, 8, "n"); n != 0 || !errors.Is(r.Err(), ErrTooLong) {
		t.Fatalf("huge count: n=%d err=%v", n, r.Err())
	}
	r = NewReader(make([]byte, 2), 0)
	if n := r.Count(2, 0, "n"); n != 2 || r.Err() != nil {
		t.Fatalf("minSize 0 treated as 1: n=%d err=%v", n, r.Err())
	}
}

func TestReaderEnd(t *testing.T) {
	r := NewReader([]byte{1, 2}, 7)
	r.U1("a")
	r.End("end of body")
	var fe *FormatError
	if !errors.As(r.Err(), &fe) || !errors.Is(fe, ErrTrailing) || fe.Offset != 8 {
		t.Fatalf("End with a byte left: %v", r.Err())
	}
	r = NewReader([]byte{1}, 0)
	r.U1("a")
	r.End("end of body")
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
}

func TestUTF16AndStrings(t *testing.T) {
	var w Writer
	w.DDMString("Héllo 😀")
	w.JDWPString("ok")
	w.DDMString("")
	r := NewReader(w.B, 0)
	if s := r.DDMString("s"); s != "Héllo 😀" {
		t.Errorf("DDMString = %q", s)
	}
	if s := r.JDWPString("j"); s != "ok" {
		t.Errorf("JDWPString = %q", s)
	}
	if s := r.DDMString("empty"); s != "" {
		t.Errorf("empty DDMString = %q", s)
	}
	r.End("end")
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if n := UTF16Len("Héllo 😀"); n != 8 {
		t.Errorf("UTF16Len = %d, want 8 (emoji is a surrogate pair)", n)
	}
	// An unpaired surrogate decodes to U+FFFD.
	if s := DecodeUTF16([]byte{0xD8, 0x00, 0x00, 0x41}); s != "\uFFFDA" {
		t.Errorf("unpaired surrogate: %q", s)
	}
}

func TestHostileLengthsDoNotAllocate(t *testing.T) {
	b := []byte{0x80, 0, 0, 0, 0, 0x41, 0, 0x42, 0, 0x43, 0, 0x44} // DDM string claiming 2^31 units
	allocs := testing.AllocsPerRun(100, func() {
		r := NewReader(b, 0)
		r.DDMString("name")
		if !errors.Is(r.Err(), ErrTooLong) {
			t.Fatal("2^31-unit string accepted")
		}
	})
	// The FormatError itself is the only allocation allowed (plus the Reader).
	if allocs > 2 {
		t.Fatalf("%v allocations for a rejected string", allocs)
	}
	r := NewReader([]byte{0xFF, 0xFF, 0xFF, 0xFF, 'x'}, 0)
	r.JDWPString("j")
	if !errors.Is(r.Err(), ErrTooLong) {
		t.Fatalf("JDWP string longer than data: %v", r.Err())
	}
	r = NewReader([]byte{1, 2}, 0)
	if r.Bytes(-1, "neg") != nil || !errors.Is(r.Err(), ErrShort) {
		t.Fatalf("negative length: %v", r.Err())
	}
	r = NewReader([]byte{1, 2}, 0)
	if r.ID(9, "id") != 0 || r.Err() == nil {
		t.Fatal("id size 9 accepted")
	}
}
