package ddm

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

var (
	hardObject = NewState(KindObject, SolidityHard)
	hardArray1 = NewState(KindArray1, SolidityHard)
	hardArray2 = NewState(KindArray2, SolidityHard)
	hardClass  = NewState(KindClass, SolidityHard)
)

func TestStateBits(t *testing.T) {
	for _, tc := range []struct {
		st       State
		kind     Kind
		solidity Solidity
		partial  bool
		name     string
	}{
		{0x00, KindObject, SolidityFree, false, "free"},
		{0x01, KindObject, SolidityHard, false, "hard data object"},
		{0x19, KindArray2, SolidityHard, false, "hard 2-byte array"},
		{0x91, KindArray1, SolidityHard, true, "hard 1-byte array (partial)"},
		{0x39, KindNative, SolidityHard, false, "hard native"},
		{0x36, KindUnknown, SoliditySweep, false, "sweep unknown"},
		{0x07, KindObject, 7, false, "undefined data object"},
	} {
		if tc.st.Kind() != tc.kind || tc.st.Solidity() != tc.solidity || tc.st.Partial() != tc.partial {
			t.Errorf("%#02x: kind %v solidity %v partial %v", uint8(tc.st), tc.st.Kind(), tc.st.Solidity(), tc.st.Partial())
		}
		if tc.st.String() != tc.name {
			t.Errorf("%#02x.String() = %q, want %q", uint8(tc.st), tc.st.String(), tc.name)
		}
		if !tc.partial && NewState(tc.kind, tc.solidity) != tc.st {
			t.Errorf("NewState(%v, %v) = %#02x, want %#02x", tc.kind, tc.solidity, uint8(NewState(tc.kind, tc.solidity)), uint8(tc.st))
		}
	}
	kinds := []string{"data object", "class object", "1-byte array", "2-byte array", "4-byte array", "8-byte array", "unknown", "native"}
	for k, want := range kinds {
		if got := Kind(k).String(); got != want {
			t.Errorf("Kind(%d) = %q, want %q", k, got, want)
		}
	}
	solidities := []string{"free", "hard", "soft", "weak", "phantom", "finalizable", "sweep", "undefined"}
	for s, want := range solidities {
		if got := Solidity(s).String(); got != want {
			t.Errorf("Solidity(%d) = %q, want %q", s, got, want)
		}
	}
	if Kind(9).String() != "kind(9)" || Solidity(8).String() != "solidity(8)" {
		t.Errorf("out-of-range names: %q %q", Kind(9), Solidity(8))
	}
}

func TestSegmentValidation(t *testing.T) {
	header := func(units uint32) []byte {
		seg := HeapSegment{Type: TypeHPSG, HeapID: 1, UnitSize: 8, Address: 0x12C00000, Units: units}
		return seg.AppendBody(nil)
	}
	for _, tc := range []struct {
		name    string
		typ     Type
		body    []byte
		message string
		offset  int
	}{
		{"runs 315, header 316", TypeHPSG, append(header(316), hx("01 01  19 03  00 09  91 FF  11 2A")...),
			"hpsg: heap 1: runs total 315 units, header says 316 (offset 17)", 17},
		{"runs 316, header 317", TypeHPSG, append(header(317), hx("01 01  19 03  00 09  91 FF  11 2B")...),
			"hpsg: heap 1: runs total 316 units, header says 317 (offset 17)", 17},
		{"no data, header 1", TypeHPSO, header(1),
			"hpso: heap 1: runs total 0 units, header says 1 (offset 17)", 17},
		{"partial continued by another kind", TypeHPSG, append(header(300), hx("91 FF  19 2B")...),
			"hpsg: heap 1: partial run 0x91 continues with state 0x19 (offset 19)", 19},
		{"partial continued by a free run", TypeNHSG, append(header(300), hx("01 01  B9 FF  00 2B")...),
			"nhsg: heap 1: partial run 0xb9 continues with state 0x00 (offset 21)", 21},
		{"partial at the end", TypeHPSG, append(header(258), hx("01 01  91 FF")...),
			"hpsg: heap 1: partial run 0x91 at the end of the data (offset 19)", 19},
		{"odd trailing byte", TypeHPSG, append(header(2), hx("01 01  01")...),
			"hpsg: heap 1: odd byte after the last (state, run) pair (offset 19)", 19},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seg, err := DecodeHeapSegment(tc.typ, tc.body)
			if err == nil {
				t.Fatalf("accepted: %+v", seg)
			}
			var se *SegmentError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a SegmentError", err)
			}
			if se.HeapID != 1 || se.Offset != tc.offset || se.Type != tc.typ {
				t.Errorf("SegmentError %+v, want heap 1 offset %d", se, tc.offset)
			}
			if err.Error() != tc.message {
				t.Errorf("message %q\n   want %q", err.Error(), tc.message)
			}
		})
	}
}

// TestSegmentPartialChains accepts what VMs never write but the format
// allows: several partial pairs, and a partial pair of a short run.
func TestSegmentPartialChains(t *testing.T) {
	body := (&HeapSegment{Type: TypeHPSO, HeapID: 1, UnitSize: 8, Units: 256*3 + 1 + 5}).AppendBody(nil)
	body = append(body, hx("A1 FF  A1 FF  A1 FF  21 00", "81 01  01 02")...)
	seg, err := DecodeHeapSegment(TypeHPSO, body)
	if err != nil {
		t.Fatal(err)
	}
	want := []Run{{State: NewState(KindArray4, SolidityHard), Units: 769}, {State: hardObject, Units: 5}}
	if got := seg.AppendRuns(nil); !reflect.DeepEqual(got, want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
}

func TestRunsStopsEarlyAndOnBadData(t *testing.T) {
	seg, err := DecodeHeapSegment(TypeHPSG, hpsgSpecExample)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range seg.Runs {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("break after 2 runs gave %d", n)
	}
	// Unvalidated data: walking stops at the inconsistency, like ddmlib.
	bad := &HeapSegment{Data: hx("01 01  91 FF  19 2B  01 00")}
	if got := bad.AppendRuns(nil); !reflect.DeepEqual(got, []Run{{hardObject, 2}}) {
		t.Fatalf("bad continuation walked to %v", got)
	}
	cut := &HeapSegment{Data: hx("01 01  91 FF")}
	if got := cut.AppendRuns(nil); !reflect.DeepEqual(got, []Run{{hardObject, 2}}) {
		t.Fatalf("trailing partial walked to %v", got)
	}
	odd := &HeapSegment{Data: hx("01 01  01")}
	if got := odd.AppendRuns(nil); !reflect.DeepEqual(got, []Run{{hardObject, 2}}) {
		t.Fatalf("odd byte walked to %v", got)
	}
}

func TestWalkDoesNotAllocate(t *testing.T) {
	seg, err := DecodeHeapSegment(TypeHPSG, hpsgSpecExample)
	if err != nil {
		t.Fatal(err)
	}
	var units uint64
	allocs := testing.AllocsPerRun(100, func() {
		for run := range seg.Runs {
			units += uint64(run.Units)
		}
	})
	if allocs != 0 {
		t.Fatalf("walking a segment allocated %v times", allocs)
	}
	if units != 316*101 {
		t.Fatalf("walked %d units", units)
	}
}

func TestAppendRunPairs(t *testing.T) {
	for _, tc := range []struct {
		units uint32
		want  []byte
	}{
		{0, nil},
		{1, hx("11 00")},
		{44, hx("11 2B")},
		{256, hx("11 FF")},
		{257, hx("91 FF  11 00")},
		{300, hx("91 FF  11 2B")},
		{512, hx("91 FF  11 FF")},
		{513, hx("91 FF  91 FF  11 00")},
	} {
		if got := AppendRunPairs(nil, hardArray1, tc.units); !bytes.Equal(got, tc.want) {
			t.Errorf("%d units: % X, want % X", tc.units, got, tc.want)
		}
	}
	// A caller's partial bit does not leak into the final pair.
	if got := AppendRunPairs(nil, hardArray1|StatePartial, 2); !bytes.Equal(got, hx("11 01")) {
		t.Errorf("partial state in: % X", got)
	}
}

// TestSegmentWriterSpecExample writes the spec's allocations and gets the
// spec's bytes.
func TestSegmentWriterSpecExample(t *testing.T) {
	w := NewSegmentWriter(TypeHPSG, 1, 8)
	w.Start(0x12C00000)
	for _, a := range []Run{{hardObject, 2}, {hardArray2, 4}, {StateFree, 10}, {hardArray1, 300}} {
		if err := w.Append(a.State, a.Units); err != nil {
			t.Fatal(err)
		}
	}
	segs := w.Segments()
	if len(segs) != 1 {
		t.Fatalf("%d segments", len(segs))
	}
	if got := segs[0].AppendBody(nil); !bytes.Equal(got, hpsgSpecExample) {
		t.Fatalf("wrote\n  % X\nwant\n  % X", got, hpsgSpecExample)
	}
	if w.Segments() != nil {
		t.Fatal("Segments returned the same segments twice")
	}
}

// TestSegmentWriterSplitsChunks uses a tiny chunk size to check the VM
// rules: an allocation's pairs stay in one chunk, each chunk starts at the
// address of its first run, Units is the sum of its runs, and Start begins a
// new piece.
func TestSegmentWriterSplitsChunks(t *testing.T) {
	w := &SegmentWriter{Type: TypeHPSO, HeapID: 1, UnitSize: 8, MaxData: 7} // 6 usable bytes: 3 pairs
	w.Start(0x1000)
	in := []Run{{hardObject, 2}, {hardClass, 300}, {StateFree, 1}, {hardArray1, 513}, {hardObject, 4}}
	for _, r := range in {
		if err := w.Append(r.State, r.Units); err != nil {
			t.Fatal(err)
		}
	}
	w.Start(0x8000)
	if err := w.Append(hardArray2, 3); err != nil {
		t.Fatal(err)
	}
	segs := w.Segments()
	want := []struct {
		addr  uint32
		units uint32
		data  []byte
	}{
		{0x1000, 2 + 300, hx("01 01  89 FF  09 2B")},     // 6 bytes: the free run does not fit
		{0x1000 + 302*8, 1, hx("00 00")},                 // 513 units need 6 bytes: new chunk
		{0x1000 + 303*8, 513, hx("91 FF  91 FF  11 00")}, //
		{0x1000 + 816*8, 4, hx("01 03")},                 //
		{0x8000, 3, hx("19 02")},                         // new piece
	}
	if len(segs) != len(want) {
		t.Fatalf("%d segments, want %d: %+v", len(segs), len(want), segs)
	}
	var walked []Run
	for i, s := range segs {
		if s.Address != want[i].addr || s.Units != want[i].units || !bytes.Equal(s.Data, want[i].data) {
			t.Errorf("segment %d: addr %#x units %d data % X; want %#x %d % X", i, s.Address, s.Units, s.Data, want[i].addr, want[i].units, want[i].data)
		}
		if s.Type != TypeHPSO || s.HeapID != 1 || s.UnitSize != 8 || s.Offset != 0 {
			t.Errorf("segment %d header %+v", i, s)
		}
		decoded, err := DecodeHeapSegment(TypeHPSO, s.AppendBody(nil))
		if err != nil {
			t.Fatalf("segment %d does not validate: %v", i, err)
		}
		walked = decoded.AppendRuns(walked)
	}
	if wantRuns := append(in, Run{hardArray2, 3}); !reflect.DeepEqual(walked, wantRuns) {
		t.Fatalf("runs %v, want %v", walked, wantRuns)
	}
}

func TestSegmentWriterLimits(t *testing.T) {
	w := NewSegmentWriter(TypeHPSG, 1, 8)
	if err := w.Append(hardObject, 1); !errors.Is(err, ErrNoSegmentStart) {
		t.Fatalf("Append before Start: %v", err)
	}
	w.Start(0)
	if err := w.Append(hardObject, 0); err == nil {
		t.Fatal("zero units accepted")
	}
	// The default chunk holds 16368 bytes of pairs: 8184 one-pair runs.
	for i := range MaxSegmentData / 2 {
		if err := w.Append(hardObject, 1); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	if err := w.Append(hardObject, 1); err != nil {
		t.Fatal(err)
	}
	// The largest allocation that fits an empty chunk, and one unit more.
	if err := w.Append(hardArray1, MaxSegmentData/2*256); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(hardArray1, MaxSegmentData/2*256+1); !errors.Is(err, ErrRunTooLarge) {
		t.Fatalf("oversized allocation: %v", err)
	}
	segs := w.Segments()
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3", len(segs))
	}
	if len(segs[0].Data) != MaxSegmentData || segs[0].Units != MaxSegmentData/2 {
		t.Errorf("first chunk %d bytes, %d units", len(segs[0].Data), segs[0].Units)
	}
	if segs[1].Address != MaxSegmentData/2*8 || segs[1].Units != 1 {
		t.Errorf("second chunk at %#x with %d units", segs[1].Address, segs[1].Units)
	}
	if len(segs[2].Data) != MaxSegmentData || segs[2].Units != MaxSegmentData/2*256 {
		t.Errorf("third chunk %d bytes, %d units", len(segs[2].Data), segs[2].Units)
	}
	for i := range segs {
		if err := segs[i].Validate(); err != nil {
			t.Errorf("segment %d: %v", i, err)
		}
	}
	// Flush closes the piece; Append then needs a new Start.
	w.Start(0x100)
	w.Flush()
	if err := w.Append(hardObject, 1); !errors.Is(err, ErrNoSegmentStart) {
		t.Fatalf("Append after Flush: %v", err)
	}
	if segs := w.Segments(); segs != nil {
		t.Fatalf("an empty piece produced %d segments", len(segs))
	}
}
