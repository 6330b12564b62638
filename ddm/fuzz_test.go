package ddm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// Seed corpora for these targets live in testdata/fuzz/<FuzzName>/ and are
// written from the test vectors by corpus_test.go.

// fuzzMaxLen is the chunk size limit used while fuzzing ParseChunks.
const fuzzMaxLen = 1 << 16

func FuzzParseChunks(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		chunks, err := ParseChunks(data, fuzzMaxLen)
		if err != nil {
			var fe *wire.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a FormatError", err)
			}
			if chunks != nil {
				t.Fatal("chunks returned with an error")
			}
			return
		}
		var again []byte
		for _, c := range chunks {
			if len(c.Data) > fuzzMaxLen {
				t.Fatalf("%v chunk of %d bytes passed the %d limit", c.Type, len(c.Data), fuzzMaxLen)
			}
			again = AppendChunk(again, c.Type, c.Data)
		}
		// Framing again gives back the input exactly (ZLIB chunks too: they
		// are never inflated).
		if !bytes.Equal(again, data) {
			t.Fatalf("re-framed\n  % X\nfrom\n  % X", again, data)
		}
		parsed, err := ParseChunks(again, fuzzMaxLen)
		if err != nil {
			t.Fatalf("re-framed chunks do not parse: %v", err)
		}
		if len(parsed) != len(chunks) {
			t.Fatalf("%d chunks, then %d", len(chunks), len(parsed))
		}
		for i := range parsed {
			if parsed[i].Type != chunks[i].Type || !bytes.Equal(parsed[i].Data, chunks[i].Data) {
				t.Fatalf("chunk %d changed on re-framing", i)
			}
		}
	})
}

// checkDecodeError requires err to be one of the documented error kinds.
func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	var fe *wire.FormatError
	var se *SegmentError
	if !errors.Is(err, ErrUnknownChunk) && !errors.As(err, &fe) && !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is none of ErrUnknownChunk, *wire.FormatError, *SegmentError", err, err)
	}
}

// checkReencode encodes m, decodes the result with decode and requires the
// same value back.
func checkReencode(t *testing.T, m Message, decode func(Chunk) (Message, error)) {
	t.Helper()
	c := EncodeChunk(m)
	again, err := decode(c)
	if err != nil {
		t.Fatalf("%T re-encoded as % X does not decode: %v", m, c.Data, err)
	}
	if !reflect.DeepEqual(plain(again), plain(m)) {
		t.Fatalf("re-encoding changed the value\n  first  %#v\n  second %#v", m, again)
	}
}

func FuzzDecodeFromVM(f *testing.F) {
	f.Fuzz(func(t *testing.T, typ uint32, body []byte) {
		m, err := DecodeFromVM(Chunk{Type: Type(typ), Data: body})
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if m.ChunkType() != Type(typ) {
			t.Fatalf("%v decoded to a %v message", Type(typ), m.ChunkType())
		}
		checkReencode(t, m, DecodeFromVM)
	})
}

func FuzzDecodeFromMonitor(f *testing.F) {
	f.Fuzz(func(t *testing.T, typ uint32, body []byte) {
		m, err := DecodeFromMonitor(Chunk{Type: Type(typ), Data: body})
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if m.ChunkType() != Type(typ) {
			t.Fatalf("%v decoded to a %v message", Type(typ), m.ChunkType())
		}
		checkReencode(t, m, DecodeFromMonitor)
	})
}

// fuzzBody runs one body decoder: errors must be of a documented kind, and
// a decoded value must survive encode → decode unchanged.
func fuzzBody[M Message](t *testing.T, body []byte, decode func([]byte) (M, error)) (M, bool) {
	t.Helper()
	m, err := decode(body)
	if err != nil {
		checkDecodeError(t, err)
		return m, false
	}
	checkReencode(t, m, func(c Chunk) (Message, error) { return decode(c.Data) })
	return m, true
}

func FuzzTHST(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		m, ok := fuzzBody(t, body, DecodeThreadStatusTable)
		if ok && int(m.HeaderLen)+len(m.Threads)*int(m.EntryLen) != len(body) {
			t.Fatalf("header %d + %d×%d bytes of entries != %d-byte body", m.HeaderLen, len(m.Threads), m.EntryLen, len(body))
		}
	})
}

func FuzzHeapSegment(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		// Validate's one pass must judge as the plain checker does.
		if len(body) >= SegmentHeaderLen {
			plainSeg := HeapSegment{Type: TypeHPSG, Units: binary.BigEndian.Uint32(body[13:]), Data: body[SegmentHeaderLen:]}
			fast := plainSeg
			if ef, es := fast.Validate(), plainSeg.validateSlow(); (ef == nil) != (es == nil) || (ef != nil && ef.Error() != es.Error()) {
				t.Fatalf("Validate %v, plain check %v", ef, es)
			}
		}
		seg, ok := fuzzBody(t, body, func(b []byte) (*HeapSegment, error) { return DecodeHeapSegment(TypeHPSG, b) })
		if !ok {
			return
		}
		if sum, ok := seg.Summary(); !ok || sum != seg.Summarize() {
			t.Fatalf("summary %+v, runs give %+v", sum, seg.Summarize())
		}
		// A valid segment walks to runs totalling its unit count, none
		// partial; the VM encoder writes those runs as a segment that
		// validates and walks to the same runs.
		runs := seg.AppendRuns(nil)
		var total uint64
		w := &SegmentWriter{Type: TypeHPSG, HeapID: seg.HeapID, UnitSize: seg.UnitSize, MaxData: len(seg.Data) + 2*len(runs) + 2}
		w.Start(seg.Address)
		for _, r := range runs {
			if r.State.Partial() || r.Units == 0 {
				t.Fatalf("walked run %+v", r)
			}
			total += uint64(r.Units)
			if err := w.Append(r.State, r.Units); err != nil {
				t.Fatalf("re-encoding run %+v: %v", r, err)
			}
		}
		if total != uint64(seg.Units) {
			t.Fatalf("runs total %d, header %d", total, seg.Units)
		}
		var rewalked []Run
		for _, s := range w.Segments() {
			if err := s.Validate(); err != nil {
				t.Fatalf("VM-encoded segment invalid: %v", err)
			}
			rewalked = s.AppendRuns(rewalked)
		}
		if !reflect.DeepEqual(rewalked, runs) {
			t.Fatalf("runs %v re-encoded to %v", runs, rewalked)
		}
	})
}

func FuzzREAL(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		m, ok := fuzzBody(t, body, DecodeAllocations)
		if !ok {
			return
		}
		for i := range m.Entries {
			_ = m.Entries[i].String() // resolves every name; must not panic
		}
	})
}

func FuzzHELO(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		m, ok := fuzzBody(t, body, DecodeHello)
		if ok && m.Extent > HelloPackageName {
			t.Fatalf("extent %d", m.Extent)
		}
	})
}

func FuzzSTKL(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) { fuzzBody(t, body, DecodeStackTrace) })
}

func FuzzNHGT(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		m, ok := fuzzBody(t, body, DecodeNativeHeap)
		if !ok {
			return
		}
		for _, a := range m.Allocations {
			if uint64(len(a.Backtrace)) != m.BacktraceSize {
				t.Fatalf("backtrace of %d, header says %d", len(a.Backtrace), m.BacktraceSize)
			}
		}
	})
}

func FuzzHPIF(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		m, ok := fuzzBody(t, body, DecodeHeapInfo)
		if ok && 4+len(m.Heaps)*hpifHeapLen != len(body) {
			t.Fatalf("%d heaps from %d bytes", len(m.Heaps), len(body))
		}
	})
}
