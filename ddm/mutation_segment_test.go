package ddm

import "testing"

// Public behaviour of segment.go that mutation testing found unchecked
// (its decoding is being reworked: these go through the exported API only).

func TestKindStringBounds(t *testing.T) {
	for k, want := range map[Kind]string{KindNative: "native", 8: "kind(8)", 255: "kind(255)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(k), got, want)
		}
	}
}

// A continued run whose next pair is cut off ends the runs; nothing past
// the data is read.
func TestRunsStopAtCutContinuation(t *testing.T) {
	for _, data := range [][]byte{{0x81, 5, 0x01}, {0x81, 5}, {0x01, 3, 0x81, 5, 0x01}} {
		s := &HeapSegment{Type: TypeHPSG, HeapID: 1, UnitSize: 8, Data: data}
		var want []Run
		if data[0] == 0x01 {
			want = []Run{{State: 0x01, Units: 4}}
		}
		got := s.AppendRuns(nil)
		if len(got) != len(want) || (len(want) > 0 && got[0] != want[0]) {
			t.Errorf("% x: runs %v, want %v", data, got, want)
		}
	}
}

// MaxData 2 is honoured (one pair per chunk), not taken for "default".
func TestSegmentWriterMaxDataTwo(t *testing.T) {
	w := &SegmentWriter{Type: TypeHPSG, HeapID: 1, UnitSize: 8, MaxData: 2}
	w.Start(0x1000)
	for _, units := range []uint32{1, 3} {
		if err := w.Append(NewState(KindObject, SolidityHard), units); err != nil {
			t.Fatal(err)
		}
	}
	segs := w.Segments()
	if len(segs) != 2 || segs[0].Address != 0x1000 || segs[0].Units != 1 || len(segs[0].Data) != 2 ||
		segs[1].Address != 0x1008 || segs[1].Units != 3 || len(segs[1].Data) != 2 {
		t.Fatalf("segments %+v, want one pair each at 0x1000 and 0x1008", segs)
	}
}
