package ddm

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// TestTruncatedVectors cuts every vector at every byte. A prefix either
// fails to decode or is itself a complete, shorter message (HELO and APNM
// without later optional fields, raw payloads, VURT without its v2 word):
// then it must re-encode to exactly that prefix. No truncation may be read
// as something else.
func TestTruncatedVectors(t *testing.T) {
	for _, v := range vectors {
		for n := 0; n < len(v.body); n++ {
			prefix := v.body[:n:n]
			m, err := decodeIn(v.dir, Chunk{Type: v.typ, Data: prefix})
			if err != nil {
				var fe *wire.FormatError
				var se *SegmentError
				if !errors.As(err, &fe) && !errors.As(err, &se) {
					t.Errorf("%s cut at %d: error %v is neither a FormatError nor a SegmentError", v.name, n, err)
				}
				continue
			}
			if enc := m.AppendBody(nil); !bytes.Equal(enc, prefix) {
				t.Errorf("%s cut at %d decoded to %#v, which encodes to % X", v.name, n, m, enc)
			}
		}
	}
}

// TestTrailingByteVectors appends a byte to every vector: fixed layouts
// reject it; layouts that end in open data keep it and re-encode it.
func TestTrailingByteVectors(t *testing.T) {
	for _, v := range vectors {
		long := append(append([]byte{}, v.body...), 0x00)
		m, err := decodeIn(v.dir, Chunk{Type: v.typ, Data: long})
		if err != nil {
			continue
		}
		if enc := m.AppendBody(nil); !bytes.Equal(enc, long) {
			t.Errorf("%s with a trailing byte decoded to %#v, which encodes to % X", v.name, m, enc)
		}
	}
	// Some of them must have rejected it: the fixed layouts.
	for _, c := range []Chunk{
		{TypeTHST, hx("04 12 00 00  00")},
		{TypeSTKL, hx("00 00 00 00  00 00 00 01  00 00 00 00  00")},
		{TypeHPIF, hx("00 00 00 00  00")},
		{TypeFAIL, hx("00 00 00 01  00 00 00 00  00")},
		{TypeREAQ, hx("01 00")},
	} {
		if _, err := DecodeFromVM(c); !errors.Is(err, wire.ErrTrailing) {
			t.Errorf("%v with a trailing byte: %v, want ErrTrailing", c.Type, err)
		}
	}
}

// rejectCase is a body its decoder must refuse with a FormatError.
type rejectCase struct {
	name  string
	dir   direction
	typ   Type
	body  []byte
	cause error // nil: any FormatError
}

var rejectCases = []rejectCase{
	{"DDM string claiming 2^31 units", vmToMonitor, TypeFAIL, hx("00 00 00 01  80 00 00 00  00 41 00 42"), wire.ErrTooLong},
	{"HELO VM ident longer than the body", vmToMonitor, TypeHELO, hx("00 00 00 01  00 00 00 01  7F FF FF FF  00 00 00 00  00 41"), wire.ErrTooLong},
	{"HELO user id cut short", vmToMonitor, TypeHELO, hx("00 00 00 01  00 00 00 01  00 00 00 00  00 00 00 00  00 00"), wire.ErrShort},
	{"HELO odd byte in the UTF-16", vmToMonitor, TypeHELO, hx("00 00 00 01  00 00 00 01  00 00 00 01  00 00 00 00  00"), wire.ErrTooLong},
	{"FEAT 2^32-1 names in 8 bytes", vmToMonitor, TypeFEAT, hx("FF FF FF FF  00 00 00 00"), wire.ErrTooLong},
	{"THST header length 3", vmToMonitor, TypeTHST, hx("03 12 00 00"), nil},
	{"THST entry length 16", vmToMonitor, TypeTHST, hx("04 10 00 00"), nil},
	{"THST count beyond the data", vmToMonitor, TypeTHST, hx("04 12 FF FF  00 00 00 01  01  00 00 10 92  00 00 00 96  00 00 00 1E  00"), wire.ErrTooLong},
	{"THST header padding missing", vmToMonitor, TypeTHST, hx("08 12 00 00  00"), wire.ErrShort},
	{"STKL 2^32-1 frames", vmToMonitor, TypeSTKL, hx("00 00 00 00  00 00 00 01  FF FF FF FF  00 00 00 00"), wire.ErrTooLong},
	{"HPIF 2^32-1 heaps", vmToMonitor, TypeHPIF, hx("FF FF FF FF  00 00 00 01"), wire.ErrTooLong},
	{"HPST with two ids", vmToMonitor, TypeHPST, hx("00 00 00 01  00 00 00 01"), wire.ErrTrailing},
	{"HPSG header cut", vmToMonitor, TypeHPSG, hx("00 00 00 01  08  12 C0 00 00  00 00"), wire.ErrShort},
	{"HPSG unit size 0", vmToMonitor, TypeHPSG, hx("00 00 00 01  00  12 C0 00 00  00 00 00 00  00 00 00 01  01 00"), nil},
	{"REAL header length 14", vmToMonitor, TypeREAL, hx("0E 09 08  00 00  00 00 00 0E  00 00 00 00 00 00"), nil},
	{"REAL entry header length 8", vmToMonitor, TypeREAL, hx("0F 08 08  00 00  00 00 00 0F  00 00 00 00 00 00"), nil},
	{"REAL frame length 7", vmToMonitor, TypeREAL, hx("0F 09 07  00 00  00 00 00 0F  00 00 00 00 00 00"), nil},
	{"REAL string offset past the end", vmToMonitor, TypeREAL, hx("0F 09 08  00 00  00 00 01 00  00 00 00 00 00 00"), wire.ErrTooLong},
	{"REAL string offset inside the header", vmToMonitor, TypeREAL, hx("0F 09 08  00 00  00 00 00 04  00 00 00 00 00 00"), wire.ErrTooLong},
	{"REAL 65535 class names in no bytes", vmToMonitor, TypeREAL, hx("0F 09 08  00 00  00 00 00 0F  FF FF 00 00 00 00"), wire.ErrTooLong},
	{"REAL entries overrun the string tables", vmToMonitor, TypeREAL, hx(
		"0F 09 08  00 01  00 00 00 14  00 01 00 00 00 00",
		"00 00 00 18  00", // 5 bytes before the table offset (20): no room for an entry
		"00 00 00 00",     // table: one empty class name
	), wire.ErrTooLong},
	{"REAL gap between entries and tables", vmToMonitor, TypeREAL, hx(
		"0F 09 08  00 00  00 00 00 11  00 01 00 00 00 00",
		"AA BB",       // two unexplained bytes
		"00 00 00 00", // one empty class name
	), wire.ErrTrailing},
	{"REAL class index out of range", vmToMonitor, TypeREAL, hx(
		"0F 09 08  00 01  00 00 00 18  00 01 00 00 00 00",
		"00 00 00 18  00 01  00 01  00", // class 1 of 1
		"00 00 00 00",
	), ErrBadIndex},
	{"REAL method index out of range", vmToMonitor, TypeREAL, hx(
		"0F 09 08  00 01  00 00 00 20  00 01 00 00 00 01",
		"00 00 00 18  00 01  00 00  01",
		"00 00  00 00  00 00  00 01", // method 0 of 0
		"00 00 00 00", "00 00 00 00",
	), ErrBadIndex},
	{"REAL depth beyond the entries", vmToMonitor, TypeREAL, hx(
		"0F 09 08  00 01  00 00 00 18  00 01 00 00 00 00",
		"00 00 00 18  00 01  00 00  FF",
		"00 00 00 00",
	), wire.ErrTooLong},
	{"REAL trailing bytes after the tables", vmToMonitor, TypeREAL, hx("0F 09 08  00 00  00 00 00 0F  00 00 00 00 00 00  00"), wire.ErrTrailing},
	{"NHGT map size beyond the data", vmToMonitor, TypeNHGT, hx("FF 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00  61"), wire.ErrTooLong},
	{"NHGT records without a record size", vmToMonitor, TypeNHGT, hx("00 00 00 00  04 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00  01 02 03 04"), nil},
	{"NHGT record too small for its backtrace", vmToMonitor, TypeNHGT, hx("00 00 00 00  0C 00 00 00  0C 00 00 00  00 00 00 00  02 00 00 00  00 00 00 00 00 00 00 00 00 00 00 00"), nil},
	{"NHGT partial record", vmToMonitor, TypeNHGT, hx("00 00 00 00  0C 00 00 00  08 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00 00 00 00 00 00 00 00 00"), nil},
	{"NHGT record size beyond the records", vmToMonitor, TypeNHGT, hx("00 00 00 00  08 00 00 00  FF FF FF FF  00 00 00 00  00 00 00 00  00 00 00 00 00 00 00 00"), wire.ErrTooLong},
	{"NHGT 64-bit with pointer size 2", vmToMonitor, TypeNHGT, hx("DD 45 23 81  02 00  02 00", "00 00 00 00 00 00 00 00", "00 00 00 00 00 00 00 00", "00 00 00 00 00 00 00 00", "00 00 00 00 00 00 00 00", "00 00 00 00 00 00 00 00"), nil},
	{"NHGT 64-bit header cut", vmToMonitor, TypeNHGT, hx("DD 45 23 81  02 00  08 00  00 00"), wire.ErrShort},
	{"NHGT 2^64-1 allocation bytes", vmToMonitor, TypeNHGT, hx("DD 45 23 81  02 00  08 00", "00 00 00 00 00 00 00 00", "FF FF FF FF FF FF FF FF", "08 00 00 00 00 00 00 00", "00 00 00 00 00 00 00 00", "00 00 00 00 00 00 00 00"), wire.ErrTooLong},
	{"VUOP unknown argument type", monitorToVM, TypeVUOP, hx("00 00 00 04", hexWin, hexV1, "00 00 00 01  00 6D", "00 00 00 01", "00 58 00"), nil},
	{"VUOP 2^32-1 arguments", monitorToVM, TypeVUOP, hx("00 00 00 04", hexWin, hexV1, "00 00 00 01  00 6D", "FF FF FF FF", "00 5A 00"), wire.ErrTooLong},
	{"VURT dump hierarchy without flags", monitorToVM, TypeVURT, hx("00 00 00 01", hexWin), wire.ErrShort},
	{"VURT capture layers with extra data", monitorToVM, TypeVURT, hx("00 00 00 02", hexWin, "00 00 00 01"), wire.ErrTrailing},
	{"THEN empty", monitorToVM, TypeTHEN, nil, wire.ErrShort},
	{"FEAT request with data", monitorToVM, TypeFEAT, hx("00"), wire.ErrTrailing},
	{"THST request with the draft's interval", monitorToVM, TypeTHST, hx("00 00 01 F4"), wire.ErrTrailing},
	{"HPSG request one byte", monitorToVM, TypeHPSG, hx("01"), wire.ErrShort},
}

func TestRejects(t *testing.T) {
	for _, tc := range rejectCases {
		t.Run(tc.dir.String()+" "+tc.name, func(t *testing.T) {
			m, err := decodeIn(tc.dir, Chunk{Type: tc.typ, Data: tc.body})
			if err == nil {
				t.Fatalf("accepted as %#v", m)
			}
			if m != nil {
				t.Errorf("returned %#v along with the error", m)
			}
			var fe *wire.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a FormatError", err)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Fatalf("error %v, want %v", err, tc.cause)
			}
		})
	}
}

// TestHostileCountsDoNotAllocate checks that a count or length claiming far
// more than the body holds is refused before anything is allocated for it.
func TestHostileCountsDoNotAllocate(t *testing.T) {
	for _, c := range []Chunk{
		{TypeFAIL, hx("00 00 00 01  80 00 00 00  00 41 00 42")}, // 2^31 units in a 12-byte body
		{TypeFEAT, hx("7F FF FF FF  00 00 00 00")},
		{TypeSTKL, hx("00 00 00 00  00 00 00 01  FF FF FF FF  00 00 00 00")},
		{TypeTHST, hx("04 12 FF FF  00 00")},
		{TypeREAL, hx("0F 09 08  FF FF  00 00 00 0F  FF FF FF FF FF FF")},
		{TypeNHGT, hx("DD 45 23 81  02 00  08 00", "00 00 00 00 00 00 00 00", "00 00 00 00 00 00 00 80", "08 00 00 00 00 00 00 00", "00 00 00 00 00 00 00 00", "00 00 00 00 00 00 00 10")},
		{TypeHPIF, hx("FF FF FF FF  00 00 00 00")},
	} {
		const runs = 100
		var before, after runtimeMem
		before.read()
		for range runs {
			if _, err := DecodeFromVM(c); err == nil {
				t.Fatalf("%v accepted", c.Type)
			}
		}
		after.read()
		// The message struct, the reader and the wrapped error: a few
		// hundred bytes, nothing proportional to the claim.
		if perOp := (after.bytes - before.bytes) / runs; perOp > 1024 {
			t.Errorf("%v: %d bytes allocated per rejected decode", c.Type, perOp)
		}
	}
}

func TestUnknownChunks(t *testing.T) {
	for _, tc := range []struct {
		dir direction
		typ Type
	}{
		{vmToMonitor, TypeEXIT},                               // a request type arriving from a VM
		{vmToMonitor, TypeDBGD},                               // never implemented
		{vmToMonitor, Type(0x00000000)},                       // garbage
		{monitorToVM, TypeTHCR},                               // unsolicited VM chunk arriving at a VM
		{monitorToVM, TypeHPSO},                               // data only, never a request
		{monitorToVM, Type(0x41424344)},                       // "ABCD"
		{vmToMonitor, Type('V'<<24 | 'U'<<16 | 'D'<<8 | 'P')}, // old view protocol
	} {
		m, err := decodeIn(tc.dir, Chunk{Type: tc.typ, Data: []byte{1, 2, 3}})
		if !errors.Is(err, ErrUnknownChunk) || m != nil {
			t.Errorf("%v %v: %v, %v; want ErrUnknownChunk", tc.dir, tc.typ, m, err)
		}
	}
}

func TestDecodeWrongSegmentType(t *testing.T) {
	if _, err := DecodeHeapSegment(TypeHPST, hpsgSpecExample); err == nil {
		t.Error("HPST accepted as a segment type")
	}
	if _, err := DecodeSegmentRequest(TypeHPSO, hx("01 00")); err == nil {
		t.Error("HPSO accepted as a segment request type")
	}
}
