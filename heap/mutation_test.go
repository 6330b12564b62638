package heap

// Tests that kill the mutants scripts/mutation.sh found alive in this
// package (docs/TESTING.md, "Mutation testing"). Each states exact values.

import (
	"errors"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
)

var (
	hard  = ddm.NewState(ddm.KindObject, ddm.SolidityHard)
	hardC = ddm.NewState(ddm.KindArray2, ddm.SolidityHard)
)

// handSegment is a validated segment of heap 1 at addr whose runs are given
// as (state, units) pairs.
func handSegment(t testing.TB, addr uint32, unitSize uint8, runs ...run) ddm.HeapSegment {
	t.Helper()
	seg := ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: unitSize, Address: addr}
	for _, r := range runs {
		seg.Data = ddm.AppendRunPairs(seg.Data, r.st, r.u)
		seg.Units += r.u
	}
	if err := seg.Validate(); err != nil {
		t.Fatal(err)
	}
	return seg
}

// TestCellsReusesDst: a dst whose capacity is exactly n is filled in place
// (drawing every frame allocates nothing); a smaller one is replaced.
func TestCellsReusesDst(t *testing.T) {
	snap := NewSnapshot(1, ddm.TypeHPSG, []ddm.HeapSegment{handSegment(t, 0x1000, 8, run{hard, 8})})
	dst := make([]Cell, 4)
	out := snap.Cells(dst, 0, 2, 4)
	if len(out) != 4 || &out[0] != &dst[0] {
		t.Fatalf("cap == n: %d cells, reused %v", len(out), len(out) > 0 && &out[0] == &dst[0])
	}
	small := make([]Cell, 3)
	out = snap.Cells(small, 0, 2, 4)
	if len(out) != 4 || &out[0] == &small[0] {
		t.Fatalf("cap < n: %d cells, reused %v", len(out), &out[0] == &small[0])
	}
}

// TestCellsTies: within a cell, used memory wins a tie with free memory
// whichever comes first, and between used states of equal count the one met
// first (at the lower address) wins, for State and UsedState alike.
func TestCellsTies(t *testing.T) {
	cases := []struct {
		name            string
		runs            []run
		state, used     ddm.State
		usedUnits, unit uint32
	}{
		{"used then free", []run{{hard, 2}, {ddm.StateFree, 2}}, hard, hard, 2, 4},
		{"free then used", []run{{ddm.StateFree, 2}, {hard, 2}}, hard, hard, 2, 4},
		{"two used", []run{{hardC, 2}, {hard, 2}}, hardC, hardC, 4, 4},
		{"two used and free", []run{{hard, 1}, {ddm.StateFree, 1}, {hardC, 1}}, hard, hard, 2, 3},
	}
	for _, c := range cases {
		snap := NewSnapshot(1, ddm.TypeHPSG, []ddm.HeapSegment{handSegment(t, 0x1000, 8, c.runs...)})
		cells := snap.Cells(nil, 0, uint64(c.unit), 1)
		want := Cell{State: c.state, UsedState: c.used, Used: c.usedUnits, Units: c.unit}
		if len(cells) != 1 || cells[0] != want {
			t.Errorf("%s: cells %+v, want [%+v]", c.name, cells, want)
		}
	}
}

// TestCellsEndAtHeapEnd: a window reaching past the heap gives only the
// cells that cover units; when the heap ends exactly on a cell boundary no
// empty cell follows.
func TestCellsEndAtHeapEnd(t *testing.T) {
	snap := NewSnapshot(1, ddm.TypeHPSG, []ddm.HeapSegment{handSegment(t, 0x1000, 8, run{hard, 6}, run{ddm.StateFree, 4})})
	cells := snap.Cells(nil, 0, 5, 3)
	want := []Cell{{State: hard, UsedState: hard, Used: 5, Units: 5}, {State: ddm.StateFree, UsedState: hard, Used: 1, Units: 5}}
	if len(cells) != len(want) || cells[0] != want[0] || cells[1] != want[1] {
		t.Fatalf("cells %+v, want %+v", cells, want)
	}
	// A short last cell; the first cell is a tie that used memory wins.
	cells = snap.Cells(nil, 4, 4, 3)
	want = []Cell{{State: hard, UsedState: hard, Used: 2, Units: 4}, {State: ddm.StateFree, UsedState: ddm.StateFree, Used: 0, Units: 2}}
	if len(cells) != len(want) || cells[0] != want[0] || cells[1] != want[1] {
		t.Fatalf("short last cell: %+v, want %+v", cells, want)
	}
}

// TestCellsEveryStateByte: bit 6 of a state byte is unused but allowed, so
// one cell can meet all 128 state values; it must count them all (and not
// index past its table of touched states). Every state covers one unit:
// the first used one (0x01) wins the ties; the 16 states of solidity free
// are free.
func TestCellsEveryStateByte(t *testing.T) {
	var runs []run
	for s := 0; s < 128; s++ {
		runs = append(runs, run{ddm.State(s), 1})
	}
	snap := NewSnapshot(1, ddm.TypeHPSG, []ddm.HeapSegment{handSegment(t, 0x1000, 8, runs...)})
	cells := snap.Cells(nil, 0, 128, 1)
	want := Cell{State: 0x01, UsedState: 0x01, Used: 112, Units: 128}
	if len(cells) != 1 || cells[0] != want {
		t.Fatalf("cells %+v, want [%+v]", cells, want)
	}
}

// TestNewSnapshotOrdersByAddress: segments arriving out of order are placed
// by address (two in reverse order), and the sort is stable: two segments
// claiming the same address keep their arrival order.
func TestNewSnapshotOrdersByAddress(t *testing.T) {
	a := handSegment(t, 0x1000, 8, run{hard, 2})
	b := handSegment(t, 0x1010, 8, run{hardC, 3})
	snap := NewSnapshot(1, ddm.TypeHPSG, []ddm.HeapSegment{b, a})
	if snap.Segments[0].Address != 0x1000 || snap.Segments[1].Address != 0x1010 {
		t.Fatalf("order %#x %#x", snap.Segments[0].Address, snap.Segments[1].Address)
	}
	cells := snap.Cells(nil, 0, 1, 5)
	wantStates := []ddm.State{hard, hard, hardC, hardC, hardC}
	for i, c := range cells {
		if c.State != wantStates[i] {
			t.Fatalf("cell %d state %#x, want %#x (cells %+v)", i, c.State, wantStates[i], cells)
		}
	}

	x := handSegment(t, 0x2000, 8, run{hard, 1})
	first := handSegment(t, 0x1000, 8, run{hard, 4})
	second := handSegment(t, 0x1000, 8, run{hardC, 5})
	snap = NewSnapshot(1, ddm.TypeHPSG, []ddm.HeapSegment{x, first, second})
	got := []uint32{snap.Segments[0].Units, snap.Segments[1].Units, snap.Segments[2].Units}
	if got[0] != 4 || got[1] != 5 || got[2] != 1 {
		t.Fatalf("segments by units %v, want [4 5 1] (stable by address)", got)
	}
}

// TestLargestFreeAcrossSegments: a free stretch continues across segment
// boundaries, in the middle of the heap and at its very end (where only the
// update after the walk sees it).
func TestLargestFreeAcrossSegments(t *testing.T) {
	// obj 1, free 3 | free 4, obj 1: one stretch of 7.
	mid := NewSnapshot(1, ddm.TypeHPSG, []ddm.HeapSegment{
		handSegment(t, 0x1000, 8, run{hard, 1}, run{ddm.StateFree, 3}),
		handSegment(t, 0x1020, 8, run{ddm.StateFree, 4}, run{hard, 1}),
	}).Stats
	if mid.LargestFree != 7 || mid.FreeRuns != 2 || mid.FreeUnits() != 7 || mid.Fragmentation() != 0 {
		t.Fatalf("middle: largest %d, runs %d, free %d, fragmentation %v; want 7 2 7 0",
			mid.LargestFree, mid.FreeRuns, mid.FreeUnits(), mid.Fragmentation())
	}
	// obj 1, free 1, obj 1, free 2 | free 3 | free 1: the last stretch is
	// 6 units over three segments; the largest inside one segment is 3.
	end := NewSnapshot(1, ddm.TypeHPSG, []ddm.HeapSegment{
		handSegment(t, 0x1000, 8, run{hard, 1}, run{ddm.StateFree, 1}, run{hard, 1}, run{ddm.StateFree, 2}),
		handSegment(t, 0x1028, 8, run{ddm.StateFree, 3}),
		handSegment(t, 0x1040, 8, run{ddm.StateFree, 1}),
	}).Stats
	if end.LargestFree != 6 || end.FreeRuns != 4 || end.FreeUnits() != 7 || end.TotalUnits != 9 {
		t.Fatalf("end: largest %d, runs %d, free %d, total %d; want 6 4 7 9",
			end.LargestFree, end.FreeRuns, end.FreeUnits(), end.TotalUnits)
	}
	if f := end.Fragmentation(); f < 1.0/7-1e-9 || f > 1.0/7+1e-9 {
		t.Fatalf("end: fragmentation %v, want 1 - 6/7", f)
	}
}

// TestSizeHistogramOneByteUnits: with 1-byte units and only 1-byte objects
// there is exactly one bucket, [1, 2), of bytes counted at the snapshot's
// unit size.
func TestSizeHistogramOneByteUnits(t *testing.T) {
	snap := NewSnapshot(1, ddm.TypeHPSO, []ddm.HeapSegment{handSegment(t, 0x1000, 1, run{hard, 1}, run{ddm.StateFree, 1}, run{hardC, 1})})
	got := snap.SizeHistogram()
	if len(got) != 1 || got[0] != (SizeBucket{MinBytes: 1, MaxBytes: 2, Count: 2, Bytes: 2}) || got[0].Label() != "1B-2B" {
		t.Fatalf("histogram %+v", got)
	}
	snap = NewSnapshot(1, ddm.TypeHPSO, []ddm.HeapSegment{handSegment(t, 0x1000, 16, run{hard, 3})})
	got = snap.SizeHistogram()
	if len(got) != 1 || got[0] != (SizeBucket{MinBytes: 32, MaxBytes: 64, Count: 1, Bytes: 48}) {
		t.Fatalf("16-byte units: %+v", got)
	}
}

// TestAssemblerBoundWithoutHeapMax: without an announced heap size only the
// fixed bounds apply: a 9 Mi-unit segment (more than 64 MiB / 8) is kept.
func TestAssemblerBoundWithoutHeapMax(t *testing.T) {
	var a Assembler
	a.Start(1, ddm.TypeHPSG)
	seg := handSegment(t, 0x1000, 8, run{hard, 9 << 20})
	if err := a.Add(&seg); err != nil {
		t.Fatal(err)
	}
	snap, err := a.End(1)
	if err != nil || snap.Units() != 9<<20 {
		t.Fatalf("%v %v", snap, err)
	}
}

// TestAssemblerHeapMaxBoundsExact: with a heap size announced, the units
// bound is (2 × max + 64 MiB) / unit size exactly, and the bytes bound is
// that plus 64 bytes per allowed segment; the errors name the bound and the
// segment count.
func TestAssemblerHeapMaxBoundsExact(t *testing.T) {
	var a Assembler
	a.SetHeapMax(1 << 20)
	const hu = (2<<20 + 64<<20) / 8 // 8650752 units
	a.Start(1, ddm.TypeHPSG)
	full := handSegment(t, 0x1000, 8, run{hard, hu})
	if err := a.Add(&full); err != nil {
		t.Fatalf("a set of exactly %d units: %v", hu, err)
	}
	one := handSegment(t, 0x1000+hu*8, 8, run{hard, 1})
	err := a.Add(&one)
	if !errors.Is(err, ErrSetTooLarge) || !strings.Contains(err.Error(), "heap 1: 2 segments exceed 8650752 units; set dropped") {
		t.Fatalf("one unit over: %v", err)
	}

	// Bytes: 1-byte heap max and 255-byte units give
	// hu = (2 + 64 Mi) / 255 = 263172, and 10 segments allowed add 640.
	var b Assembler
	b.SetHeapMax(1)
	b.MaxSegments = 10
	b.Start(1, ddm.TypeHPSG)
	runs := make([]run, 32768) // 65536 bytes of usage data, 32768 units
	for i := range runs {
		runs[i] = run{hard, 1}
	}
	var addr uint32 = 0x1000
	for i := 1; i <= 5; i++ {
		seg := handSegment(t, addr, 255, runs...)
		addr += 32768 * 255
		err := b.Add(&seg)
		if i < 5 && err != nil {
			t.Fatalf("segment %d (%d bytes kept): %v", i, i*(65536+64), err)
		}
		if i == 5 && (!errors.Is(err, ErrSetTooLarge) || !strings.Contains(err.Error(), "heap 1: 5 segments exceed 263812 bytes; set dropped")) {
			t.Fatalf("segment 5: %v", err)
		}
	}
}

// TestAssemblerDroppedSetCounts: a set dropped at the segment-count bound
// names the count that passed it, and its End counts the segments ignored
// after the drop.
func TestAssemblerDroppedSetCounts(t *testing.T) {
	var a Assembler
	a.MaxSegments = 2
	a.Start(1, ddm.TypeHPSG)
	seg := handSegment(t, 0x1000, 8, run{hard, 1})
	for i := 0; i < 2; i++ {
		if err := a.Add(&seg); err != nil {
			t.Fatal(err)
		}
	}
	err := a.Add(&seg)
	if !errors.Is(err, ErrSetTooLarge) || err.Error() != "heap: segment set too large: heap 1: 3 segments exceed 2 segments; set dropped" {
		t.Fatalf("third segment: %v", err)
	}
	for i := 0; i < 4; i++ {
		if err := a.Add(&seg); err != nil {
			t.Fatal(err)
		}
	}
	_, err = a.End(1)
	if !errors.Is(err, ErrSetTooLarge) || err.Error() != "heap: segment set too large: heap 1: the set was dropped (4 more segments ignored)" {
		t.Fatalf("end: %v", err)
	}
}

// TestAssemblerKeepsSmallCapacity: between sets the assembler keeps a
// segment slice of up to 4096 entries and lets a larger one go.
func TestAssemblerKeepsSmallCapacity(t *testing.T) {
	var a Assembler
	a.segments = make([]ddm.HeapSegment, 3, 4096)
	a.Start(1, ddm.TypeHPSG)
	if cap(a.segments) != 4096 || len(a.segments) != 0 {
		t.Fatalf("4096: len %d cap %d, want 0 4096", len(a.segments), cap(a.segments))
	}
	a.segments = make([]ddm.HeapSegment, 3, 4097)
	a.Start(1, ddm.TypeHPSG)
	if a.segments != nil {
		t.Fatalf("4097: cap %d kept", cap(a.segments))
	}
}

// TestAssemblerUnitSizeZero: a segment claiming 0-byte units is refused
// before any bound is computed from its unit size (which would divide by 0
// once a heap size is known).
func TestAssemblerUnitSizeZero(t *testing.T) {
	var a Assembler
	a.SetHeapMax(1 << 20)
	a.Start(1, ddm.TypeHPSG)
	seg := ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: 0, Address: 0x1000, Units: 1,
		Data: ddm.AppendRunPairs(nil, hard, 1)}
	err := a.Add(&seg)
	if err == nil || err.Error() != "heap 1: segment at 0x1000 has unit size 0" {
		t.Fatalf("unit size 0: %v", err)
	}
}
