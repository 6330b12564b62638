package wire

import (
	"errors"
	"testing"
)

// Tests that pin the boundaries mutation testing found unchecked.

func TestIDSizeBounds(t *testing.T) {
	b := []byte{0xAB, 1, 2, 3, 4, 5, 6, 7, 8}
	r := NewReader(b, 0)
	if v := r.ID(1, "id1"); v != 0xAB || r.Err() != nil {
		t.Fatalf("ID(1) = %#x, %v", v, r.Err())
	}
	if v := r.ID(8, "id8"); v != 0x0102030405060708 || r.Err() != nil {
		t.Fatalf("ID(8) = %#x, %v", v, r.Err())
	}
	r = NewReader(b, 0)
	if v := r.ID(0, "id0"); v != 0 || r.Err() == nil || r.Offset() != 0 {
		t.Fatalf("ID(0) = %#x, %v, offset %d", v, r.Err(), r.Offset())
	}
	var w Writer
	w.ID(1, 0x1AB)
	w.ID(8, 0x0102030405060708)
	if string(w.B) != string(b) {
		t.Fatalf("Writer.ID wrote % x", w.B)
	}
}

func TestUTF16LengthLimit(t *testing.T) {
	// 3 units claimed, 4 bytes present: the claim is rejected as too long
	// (not as a short read of the units).
	r := NewReader([]byte{0, 0, 0, 3, 0, 'a', 0, 'b'}, 10)
	if s := r.DDMString("name"); s != "" {
		t.Fatalf("got %q", s)
	}
	var fe *FormatError
	if !errors.As(r.Err(), &fe) || !errors.Is(fe, ErrTooLong) || fe.Offset != 14 || fe.What != "name" {
		t.Fatalf("err = %v", r.Err())
	}
	// Exactly enough units.
	r = NewReader([]byte{0, 0, 0, 2, 0, 'a', 0, 'b'}, 0)
	if s := r.DDMString("name"); s != "ab" || r.Err() != nil || r.Len() != 0 {
		t.Fatalf("got %q, %v, %d left", s, r.Err(), r.Len())
	}
}

func TestJDWPStringFillsBuffer(t *testing.T) {
	r := NewReader([]byte{0, 0, 0, 3, 'a', 'b', 'c'}, 0)
	if s := r.JDWPString("s"); s != "abc" || r.Err() != nil || r.Len() != 0 {
		t.Fatalf("got %q, %v, %d left", s, r.Err(), r.Len())
	}
	r = NewReader([]byte{0, 0, 0, 4, 'a', 'b', 'c'}, 0)
	if s := r.JDWPString("s"); s != "" || !errors.Is(r.Err(), ErrTooLong) {
		t.Fatalf("got %q, %v", s, r.Err())
	}
	var fe *FormatError
	if errors.As(r.Err(), &fe); fe == nil || fe.Offset != 4 {
		t.Fatalf("err = %#v", r.Err())
	}
}

func TestDecodeUTF16Paths(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{[]byte{0, 'A', 0, 'z', 0, 0x7F}, "Az\x7f"}, // ASCII fast path
		{[]byte{0, 'A', 0}, "A"},                    // a trailing odd byte is ignored
		{[]byte{0, 0x80}, "\u0080"},                 // first code unit above ASCII
		{[]byte{0, 'a', 0, 0xE9}, "aé"},             // high byte zero, low byte ≥ 0x80
		{[]byte{0x4E, 0x2D, 0, 'x'}, "中x"},          // high byte set, low byte < 0x80
		{[]byte{0x4E, 0x2D}, "中"},
		{nil, ""},
	} {
		if got := DecodeUTF16(c.in); got != c.want {
			t.Errorf("DecodeUTF16(% x) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestUTF16LenSurrogateBoundary(t *testing.T) {
	for s, want := range map[string]int{"\uFFFF": 1, "\U00010000": 2, "a\U0010FFFF": 3, "": 0} {
		if got := UTF16Len(s); got != want {
			t.Errorf("UTF16Len(%q) = %d, want %d", s, got, want)
		}
		var w Writer
		w.UTF16(s)
		if len(w.B) != 2*want {
			t.Errorf("Writer.UTF16(%q) wrote %d bytes, want %d", s, len(w.B), 2*want)
		}
	}
}
