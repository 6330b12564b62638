package ddm

import (
	"bytes"
	"compress/zlib"
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

func TestTypeString(t *testing.T) {
	for _, tc := range []struct {
		t    Type
		want string
	}{
		{TypeHELO, "HELO"},
		{TypeZLIB, "ZLIB"},
		{0x48450A4F, `HE\x0aO`},
		{0x00000001, `\x00\x00\x00\x01`},
		{0x5C1B7F80, `\x5c\x1b\x7f\x80`},
	} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("%#x.String() = %q, want %q", uint32(tc.t), got, tc.want)
		}
	}
}

// TestTypeConstants checks every catalogue constant against its spelling.
func TestTypeConstants(t *testing.T) {
	all := map[string]Type{
		"HELO": TypeHELO, "FEAT": TypeFEAT, "APNM": TypeAPNM, "WAIT": TypeWAIT, "EXIT": TypeEXIT,
		"FAIL": TypeFAIL, "TEST": TypeTEST, "THEN": TypeTHEN, "THCR": TypeTHCR, "THDE": TypeTHDE,
		"THNM": TypeTHNM, "THST": TypeTHST, "STKL": TypeSTKL, "HPIF": TypeHPIF, "HPGC": TypeHPGC,
		"HPSG": TypeHPSG, "HPSO": TypeHPSO, "HPST": TypeHPST, "HPEN": TypeHPEN, "NHSG": TypeNHSG,
		"NHST": TypeNHST, "NHEN": TypeNHEN, "NHGT": TypeNHGT, "HPDU": TypeHPDU, "HPDS": TypeHPDS,
		"REAE": TypeREAE, "REAQ": TypeREAQ, "REAL": TypeREAL, "MPRS": TypeMPRS, "MPRE": TypeMPRE,
		"MPSS": TypeMPSS, "MPSE": TypeMPSE, "SPSS": TypeSPSS, "SPSE": TypeSPSE, "MPRQ": TypeMPRQ,
		"VULW": TypeVULW, "VURT": TypeVURT, "VUOP": TypeVUOP, "VUGL": TypeVUGL, "DBGD": TypeDBGD,
		"ZLIB": TypeZLIB,
	}
	for name, typ := range all {
		b := []byte(name)
		if want := Type(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])); typ != want {
			t.Errorf("Type%s = %#x, want %#x", name, uint32(typ), uint32(want))
		}
		if typ.String() != name {
			t.Errorf("Type%s.String() = %q", name, typ.String())
		}
	}
	if TypeHELO != 0x48454C4F {
		t.Errorf("TypeHELO = %#x, spec says 0x48454C4F", uint32(TypeHELO))
	}
}

func TestParseChunks(t *testing.T) {
	two := hx(
		"54 48 44 45  00 00 00 04  00 00 00 09", // THDE 9
		"48 50 47 43  00 00 00 00",              // HPGC, empty
	)
	for _, tc := range []struct {
		name string
		data []byte
		want []Chunk
	}{
		{"empty packet is the empty reply", nil, nil},
		{"one chunk", hx("57 41 49 54  00 00 00 01  00"), []Chunk{{TypeWAIT, []byte{0}}}},
		{"two chunks", two, []Chunk{{TypeTHDE, hx("00 00 00 09")}, {TypeHPGC, []byte{}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseChunks(tc.data, 1024)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			var again []byte
			for _, c := range got {
				again = AppendChunk(again, c.Type, c.Data)
			}
			if !bytes.Equal(again, tc.data) {
				t.Fatalf("re-framed % X, want % X", again, tc.data)
			}
		})
	}
}

func TestParseChunksRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		maxLen int
		offset int
		cause  error
	}{
		{"3 trailing bytes", hx("57 41 49 54  00 00 00 01  00", "48 45 4C"), 0, 9, wire.ErrShort},
		{"7-byte header", hx("57 41 49 54  00 00 00"), 0, 0, wire.ErrShort},
		{"length past the end", hx("57 41 49 54  00 00 00 02  00"), 0, 4, wire.ErrTooLong},
		{"length 2^32-1 in a 9-byte packet", hx("57 41 49 54  FF FF FF FF  00"), 0, 4, wire.ErrTooLong},
		{"length over maxLen", hx("57 41 49 54  00 00 00 02  00 00"), 1, 4, wire.ErrTooLong},
		{"second chunk too long", hx("57 41 49 54  00 00 00 01  00", "57 41 49 54  00 00 00 09  00"), 0, 13, wire.ErrTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunks, err := ParseChunks(tc.data, tc.maxLen)
			var fe *wire.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, %v; want a FormatError", chunks, err)
			}
			if fe.Offset != tc.offset || !errors.Is(err, tc.cause) {
				t.Fatalf("error %v (offset %d), want offset %d and %v", err, fe.Offset, tc.offset, tc.cause)
			}
			if chunks != nil {
				t.Fatalf("chunks returned with an error: %v", chunks)
			}
		})
	}
}

// zlibChunk builds a ZLIB chunk as the design draft lays it out: original
// type, original length, then the zlib stream.
func zlibChunk(t testing.TB, orig Type, claimed uint32, payload []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	if _, err := zw.Write(payload); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	w := wire.Writer{}
	w.U4(uint32(orig))
	w.U4(claimed)
	w.Bytes(z.Bytes())
	return AppendChunk(nil, TypeZLIB, w.B)
}

// TestParseChunksZLIBNotInflated: issue 30 #9. ZLIB chunks (a draft no VM
// implements) are returned compressed, as unknown chunks are: a packet's
// chunks alias it, whatever they claim to inflate to.
func TestParseChunksZLIBNotInflated(t *testing.T) {
	body := (&HeapInfo{Heaps: []HeapStats{{HeapID: 1, MaxBytes: 1 << 28}}}).AppendBody(nil)
	z := zlibChunk(t, TypeHPIF, uint32(len(body)), body)
	data := AppendChunk(z, TypeWAIT, []byte{0})
	chunks, err := ParseChunks(data, 1024)
	if err != nil {
		t.Fatal(err)
	}
	want := []Chunk{{TypeZLIB, z[ChunkHeaderLen:]}, {TypeWAIT, []byte{0}}}
	if !reflect.DeepEqual(chunks, want) {
		t.Fatalf("got %+v, want %+v", chunks, want)
	}
	if &chunks[0].Data[0] != &data[ChunkHeaderLen] {
		t.Error("the ZLIB body is a copy, not the packet's bytes")
	}
	if _, err := DecodeFromVM(chunks[0]); !errors.Is(err, ErrUnknownChunk) {
		t.Errorf("a ZLIB chunk decodes to %v, want ErrUnknownChunk (ignored)", err)
	}
	// A body over maxLen is refused as for any chunk.
	if _, err := ParseChunks(z, 8); !errors.Is(err, wire.ErrTooLong) {
		t.Errorf("ZLIB chunk over maxLen: %v", err)
	}
}

// TestZLIBBombAllocation: the attack, scaled down: one packet of 16
// ZLIB chunks, each inflating to the packet's limit (4 MiB), cost 64 MiB
// per parse when ZLIB was inflated; now a parse allocates only its chunk
// list.
func TestZLIBBombAllocation(t *testing.T) {
	const limit = 4 << 20
	var packet []byte
	for range 16 {
		packet = append(packet, zlibChunk(t, TypeHPDS, limit, bytes.Repeat([]byte{0}, limit))...)
	}
	const runs = 10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		chunks, err := ParseChunks(packet, limit)
		if err != nil || len(chunks) != 16 {
			t.Fatal(len(chunks), err)
		}
	}
	runtime.ReadMemStats(&after)
	perOp := (after.TotalAlloc - before.TotalAlloc) / runs
	t.Logf("a %d-byte packet of 16 ZLIB chunks: %d bytes allocated per parse", len(packet), perOp)
	if perOp > 4<<10 {
		t.Fatalf("a packet of %d bytes allocated %d bytes per parse", len(packet), perOp)
	}
}
