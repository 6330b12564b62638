package heap

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
)

// The spec's HPSG example (spec/ddm-chunks.md §7.5): 16-byte object, 32-byte
// char array, 80 bytes free, 2400-byte byte array.
var specSegment = []byte{
	0, 0, 0, 1, 8, 0x12, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x3C,
	0x01, 0x01, 0x19, 0x03, 0x00, 0x09, 0x91, 0xFF, 0x11, 0x2B,
}

func TestAssembleSpecExample(t *testing.T) {
	seg, err := ddm.DecodeHeapSegment(ddm.TypeHPSG, specSegment)
	if err != nil {
		t.Fatal(err)
	}
	var a Assembler
	a.Start(1, ddm.TypeHPSG)
	if err := a.Add(seg); err != nil {
		t.Fatal(err)
	}
	snap, err := a.End(1)
	if err != nil {
		t.Fatal(err)
	}
	st := snap.Stats
	if st.TotalUnits != 316 || st.FreeUnits() != 10 || st.UsedUnits() != 306 || st.UnitSize != 8 {
		t.Fatalf("stats %+v", st)
	}
	if st.UnitsByKind[ddm.KindObject] != 2 || st.UnitsByKind[ddm.KindArray2] != 4 || st.UnitsByKind[ddm.KindArray1] != 300 {
		t.Fatalf("by kind %v", st.UnitsByKind)
	}
	if st.RunsByKind[ddm.KindArray1] != 1 || st.FreeRuns != 1 || st.LargestFree != 10 || st.Fragmentation() != 0 {
		t.Fatalf("runs %v free %d largest %d frag %v", st.RunsByKind, st.FreeRuns, st.LargestFree, st.Fragmentation())
	}
	// One cell per unit for the first 8 units: 2 object, 4 char array, 2 free.
	cells := snap.Cells(nil, 0, 1, 8)
	want := []ddm.State{0x01, 0x01, 0x19, 0x19, 0x19, 0x19, 0x00, 0x00}
	for i, c := range cells {
		if c.State != want[i] || c.Units != 1 {
			t.Fatalf("cell %d = %+v, want state %#x", i, c, want[i])
		}
	}
	// Two cells of 158 units: the byte array dominates both.
	cells = snap.Cells(nil, 0, 158, 2)
	if len(cells) != 2 || cells[0].State != 0x11 || cells[0].Used != 148 || cells[1].Units != 158 {
		t.Fatalf("coarse cells %+v", cells)
	}
}

func TestAssemblerSequenceErrors(t *testing.T) {
	var a Assembler
	if _, err := a.End(1); !errors.Is(err, ErrSequence) {
		t.Fatalf("end without start: %v", err)
	}
	a.Start(1, ddm.TypeHPSG)
	seg, _ := ddm.DecodeHeapSegment(ddm.TypeHPSG, specSegment)
	other := *seg
	other.HeapID = 2
	if err := a.Add(&other); !errors.Is(err, ErrSequence) {
		t.Fatalf("foreign heap id: %v", err)
	}
	if _, err := a.End(2); !errors.Is(err, ErrSequence) {
		t.Fatalf("end of another heap: %v", err)
	}
	a.MaxUnits = 100
	if err := a.Add(seg); err == nil {
		t.Fatal("set over MaxUnits accepted")
	}
	// Native start/end with nothing between, as ART sends.
	var n Assembler
	n.Start(1, ddm.TypeNHSG)
	snap, err := n.End(1)
	if err != nil || snap.Units() != 0 || len(snap.Cells(nil, 0, 1, 10)) != 0 {
		t.Fatalf("empty native set: %v %v", snap, err)
	}
}

// randomSnapshot builds segments from random runs and returns the per-unit
// expansion too, for brute-force comparison.
func randomSnapshot(t testing.TB, rng *rand.Rand, runs int) (*Snapshot, []ddm.State) {
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.MaxData = 64 // many small chunks
	w.Start(0x1000)
	var units []ddm.State
	for i := 0; i < runs; i++ {
		u := uint32(1 + rng.IntN(20))
		if rng.IntN(10) == 0 {
			u += uint32(rng.IntN(600))
		}
		st := ddm.StateFree
		if rng.IntN(3) != 0 {
			st = ddm.NewState(ddm.Kind(rng.IntN(8)), ddm.SolidityHard)
		}
		if err := w.Append(st, u); err != nil {
			t.Fatal(err)
		}
		for j := uint32(0); j < u; j++ {
			units = append(units, st)
		}
	}
	segs := w.Segments()
	// Shuffle: the snapshot must place them by address.
	rng.Shuffle(len(segs), func(i, j int) { segs[i], segs[j] = segs[j], segs[i] })
	return NewSnapshot(1, ddm.TypeHPSG, segs), units
}

func TestCellsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		snap, units := randomSnapshot(t, rng, 200)
		if snap.Units() != uint64(len(units)) {
			t.Fatalf("units %d, want %d", snap.Units(), len(units))
		}
		per := uint64(1 + rng.IntN(40))
		first := uint64(rng.IntN(len(units)))
		n := 1 + rng.IntN(30)
		cells := snap.Cells(nil, first, per, n)
		for i, c := range cells {
			lo := first + uint64(i)*per
			hi := min(lo+per, uint64(len(units)))
			counts := map[ddm.State]uint64{}
			var used uint64
			for _, st := range units[lo:hi] {
				counts[st]++
				if st != ddm.StateFree {
					used++
				}
			}
			var bestUsed uint64
			for st, k := range counts {
				if st != ddm.StateFree && k > bestUsed {
					bestUsed = k
				}
			}
			if used > 0 && counts[c.UsedState] != bestUsed {
				t.Fatalf("trial %d cell %d: used state %#x covers %d, the dominant used covers %d", trial, i, c.UsedState, counts[c.UsedState], bestUsed)
			}
			if c.Units != uint32(hi-lo) || uint64(c.Used) != used {
				t.Fatalf("trial %d cell %d: units %d used %d, want %d %d", trial, i, c.Units, c.Used, hi-lo, used)
			}
			max := uint64(0)
			for _, k := range counts {
				max = maxu(max, k)
			}
			if counts[c.State] != max {
				t.Fatalf("trial %d cell %d: state %#x covers %d units, the dominant covers %d", trial, i, c.State, counts[c.State], max)
			}
		}
		wantCells := (uint64(len(units)) - first + per - 1) / per
		if uint64(len(cells)) != min(uint64(n), wantCells) {
			t.Fatalf("got %d cells, want %d", len(cells), min(uint64(n), wantCells))
		}
	}
}

func maxu(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// bigSnapshot is a 64 Mi-unit (512 MiB at 8 bytes) heap as VMs send it.
func bigSnapshot(b *testing.B) *Snapshot {
	rng := rand.New(rand.NewPCG(3, 4))
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.Start(0x12C00000)
	var total uint64
	for total < 64<<20 {
		u := uint32(2 + rng.IntN(12))
		st := ddm.NewState(ddm.Kind(rng.IntN(6)), ddm.SolidityHard)
		if rng.IntN(4) == 0 {
			st = ddm.StateFree
		}
		if err := w.Append(st, u); err != nil {
			b.Fatal(err)
		}
		total += uint64(u)
	}
	return NewSnapshot(1, ddm.TypeHPSG, w.Segments())
}

// BenchmarkCellsScreen64M draws one 200x50 screen of a 64 Mi-unit heap at
// "whole heap fits" zoom, and one zoomed into the middle.
func BenchmarkCellsScreen64M(b *testing.B) {
	snap := bigSnapshot(b)
	const n = 200 * 50
	dst := make([]Cell, n)
	b.Run("whole-heap", func(b *testing.B) {
		per := (snap.Units() + n - 1) / n
		for i := 0; i < b.N; i++ {
			dst = snap.Cells(dst, 0, per, n)
		}
	})
	b.Run("zoomed", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			dst = snap.Cells(dst, snap.Units()/2, 4, n)
		}
	})
}

func TestSizeHistogram(t *testing.T) {
	seg, err := ddm.DecodeHeapSegment(ddm.TypeHPSO, specSegment)
	if err != nil {
		t.Fatal(err)
	}
	snap := NewSnapshot(1, ddm.TypeHPSO, []ddm.HeapSegment{*seg})
	// Objects of 16, 32 and 2400 bytes; the 80 free bytes are not objects.
	got := snap.SizeHistogram()
	want := []SizeBucket{
		{16, 32, 1, 16}, {32, 64, 1, 32}, {64, 128, 0, 0}, {128, 256, 0, 0}, {256, 512, 0, 0},
		{512, 1024, 0, 0}, {1024, 2048, 0, 0}, {2048, 4096, 1, 2400},
	}
	if len(got) != len(want) {
		t.Fatalf("histogram %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("bucket %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got[7].Label() != "2K-4K" || got[0].Label() != "16B-32B" {
		t.Fatalf("labels %q %q", got[7].Label(), got[0].Label())
	}
	if h := NewSnapshot(1, ddm.TypeHPSO, nil).SizeHistogram(); len(h) != 0 {
		t.Fatalf("empty heap histogram %+v", h)
	}
}
