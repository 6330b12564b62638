package heap

import (
	"errors"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
)

// endlessSegment is a valid one-run HPSG piece of units units (≤ 256).
func endlessSegment(t *testing.T, units uint32, addr uint32) *ddm.HeapSegment {
	t.Helper()
	seg := &ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: 8, Address: addr, Units: units,
		Data: ddm.AppendRunPairs(nil, ddm.NewState(ddm.KindObject, ddm.SolidityHard), units)}
	if err := seg.Validate(); err != nil {
		t.Fatal(err)
	}
	return seg
}

// TestAssemblerBoundsEndlessSet: a VM sends HPST and then segments without
// HPEN (issue 16 item 3). Memory kept must stop growing at the bound, the
// set must be dropped with ErrSetTooLarge, and the next set must work.
func TestAssemblerBoundsEndlessSet(t *testing.T) {
	cases := []struct {
		name  string
		setup func(*Assembler)
		units uint32
		max   int // the set must fail by this many segments
	}{
		// One-unit segments: far from the units bound; the count bound
		// (and the bytes) must stop them.
		{"count", func(a *Assembler) { a.MaxSegments = 1000 }, 1, 1000},
		{"bytes", func(a *Assembler) { a.MaxBytes = 64 << 10 }, 1, (64 << 10) / segmentOverhead},
		// The VM announced a 1 MiB heap: (2 MiB + 64 MiB) / 8 units.
		{"heap size", func(a *Assembler) { a.SetHeapMax(1 << 20) }, 256, int((2<<20+heapSlackBytes)/8/256) + 1},
		// Defaults alone bound it too.
		{"defaults", func(*Assembler) {}, 1, DefaultMaxSegments},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a Assembler
			c.setup(&a)
			a.Start(1, ddm.TypeHPSG)
			seg := endlessSegment(t, c.units, 0x1000)
			var err error
			n := 0
			for ; n < c.max+10; n++ {
				if err = a.Add(seg); err != nil {
					break
				}
			}
			if !errors.Is(err, ErrSetTooLarge) || n > c.max {
				t.Fatalf("after %d segments: %v (bound %d)", n, err, c.max)
			}
			if len(a.segments) != 0 || a.bytes != 0 {
				t.Fatalf("dropped set still holds %d segments, %d bytes", len(a.segments), a.bytes)
			}
			// The rest of the endless set is ignored without growing.
			for i := 0; i < 1000; i++ {
				if err := a.Add(seg); err != nil {
					t.Fatalf("segment after the drop: %v", err)
				}
			}
			if len(a.segments) != 0 {
				t.Fatalf("segments kept after the drop: %d", len(a.segments))
			}
			if _, err := a.End(1); !errors.Is(err, ErrSetTooLarge) {
				t.Fatalf("end of a dropped set: %v", err)
			}
			// The session carries on: the next set assembles normally.
			a.Start(1, ddm.TypeHPSG)
			if err := a.Add(endlessSegment(t, 10, 0x2000)); err != nil {
				t.Fatal(err)
			}
			snap, err := a.End(1)
			if err != nil || snap.Units() != 10 {
				t.Fatalf("next set: %v %v", snap, err)
			}
		})
	}
}

// TestAssemblerHeapMaxKeepsRealSets: the bound from the announced heap size
// must not refuse a real set covering the whole heap.
func TestAssemblerHeapMaxKeepsRealSets(t *testing.T) {
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.Start(0x1000)
	const heapBytes = 64 << 20
	for u := uint32(0); u < heapBytes/8; u += 2 { // worst case: 16-byte objects
		if err := w.Append(ddm.NewState(ddm.KindObject, ddm.SolidityHard), 2); err != nil {
			t.Fatal(err)
		}
	}
	var a Assembler
	a.SetHeapMax(heapBytes)
	a.Start(1, ddm.TypeHPSG)
	segs := w.Segments()
	for i := range segs {
		if err := a.Add(&segs[i]); err != nil {
			t.Fatalf("segment %d of %d: %v", i, len(segs), err)
		}
	}
	snap, err := a.End(1)
	if err != nil || snap.Units() != heapBytes/8 {
		t.Fatalf("%v %v", snap, err)
	}
}
