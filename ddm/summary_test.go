package ddm

import (
	"math/rand/v2"
	"testing"
)

// TestValidateSummaryMatchesRuns: the summary Validate gathers in its one
// pass equals the one computed by walking Runs, on random segments with
// partial runs, free stretches at either end and all-free segments; and
// Validate's verdict on mutated data equals the plain checker's.
func TestValidateSummaryMatchesRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for iter := 0; iter < 3000; iter++ {
		w := NewSegmentWriter(TypeHPSG, 1, 8)
		w.MaxData = 2 + 2*rng.IntN(200)
		w.Start(0x1000)
		freeBias := rng.IntN(4)
		for k := rng.IntN(300); k >= 0; k-- {
			u := uint32(1 + rng.IntN(12))
			if rng.IntN(15) == 0 {
				u += uint32(rng.IntN(900))
			}
			st := NewState(Kind(rng.IntN(8)), SolidityHard)
			switch {
			case rng.IntN(4) < freeBias:
				st = StateFree
			case rng.IntN(20) == 0:
				st = NewState(Kind(rng.IntN(8)), Solidity(rng.IntN(8)))
			}
			if err := w.Append(st, u); err != nil && w.MaxData >= runPairBytes(u) {
				t.Fatal(err)
			}
		}
		for _, seg := range w.Segments() {
			body := seg.AppendBody(nil)
			got, err := DecodeHeapSegment(TypeHPSG, body)
			if err != nil {
				t.Fatalf("iter %d: %v", iter, err)
			}
			sum, ok := got.Summary()
			if want := got.Summarize(); !ok || sum != want {
				t.Fatalf("iter %d: data % x\nValidate  %+v\nSummarize %+v", iter, got.Data, sum, want)
			}
			if sum.Units != uint64(got.Units) {
				t.Fatalf("units %d, header %d", sum.Units, got.Units)
			}
			// Mutate one byte: both checkers must agree, message included.
			if len(body) > SegmentHeaderLen {
				m := *got
				m.Data = append([]byte(nil), got.Data...)
				m.Data[rng.IntN(len(m.Data))] ^= byte(1 << rng.IntN(8))
				slow := m
				errFast, errSlow := m.Validate(), slow.validateSlow()
				if (errFast == nil) != (errSlow == nil) || (errFast != nil && errFast.Error() != errSlow.Error()) {
					t.Fatalf("data % x: Validate %v, plain check %v", m.Data, errFast, errSlow)
				}
				if errFast == nil {
					if s, _ := m.Summary(); s != m.Summarize() {
						t.Fatalf("mutated data % x: summary %+v, runs %+v", m.Data, s, m.Summarize())
					}
				}
			}
		}
	}
}

func TestSummaryEdgeCases(t *testing.T) {
	hard := byte(NewState(KindObject, SolidityHard))
	cases := []struct {
		name string
		data []byte
		want SegmentSummary
	}{
		{"all free, partial", []byte{0x80, 0xff, 0x00, 0x01}, SegmentSummary{Units: 258, UnitsBySolid: [8]uint64{258}, FreeRuns: 1, LeadingFree: 258, TrailingFree: 258, LargestFree: 258}},
		{"free both ends", []byte{0x00, 0x02, hard, 0x00, 0x00, 0x00, 0x00, 0x04}, SegmentSummary{Units: 10, UnitsBySolid: [8]uint64{9, 1}, UnitsByKind: [8]uint64{1}, RunsByKind: [8]uint64{1}, FreeRuns: 3, LeadingFree: 3, TrailingFree: 6, LargestFree: 6}},
		{"used partial", []byte{hard | 0x80, 0xff, hard, 0x00}, SegmentSummary{Units: 257, UnitsBySolid: [8]uint64{0, 257}, UnitsByKind: [8]uint64{257}, RunsByKind: [8]uint64{1}}},
		{"empty", nil, SegmentSummary{}},
	}
	for _, c := range cases {
		seg := HeapSegment{Type: TypeHPSG, HeapID: 1, UnitSize: 8, Units: uint32(c.want.Units), Data: c.data}
		if err := seg.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got, ok := seg.Summary(); !ok || got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
