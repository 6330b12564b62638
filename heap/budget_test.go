package heap

import (
	"errors"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
)

// mapSet feeds one set of n one-run segments of 256 units to a.
func mapSet(t *testing.T, a *Assembler, n int) (*Snapshot, error) {
	t.Helper()
	a.Start(1, ddm.TypeHPSG)
	for i := range n {
		if err := a.Add(endlessSegment(t, 256, 0x1000+uint32(i)*256*8)); err != nil {
			return nil, err
		}
	}
	return a.End(1)
}

// TestBudgetBoundsEveryVMsMaps: issue 30 #10. Assemblers of several VMs
// share one budget: the sets being built and the snapshots kept count
// together, a set that would pass it is dropped with ErrBudget, and
// releasing snapshots and closing assemblers gives every byte back.
func TestBudgetBoundsEveryVMsMaps(t *testing.T) {
	const perSeg = 2 + segmentOverhead // one run pair
	b := NewBudget(100 * perSeg)
	x, y := &Assembler{Budget: b}, &Assembler{Budget: b}
	keptX, err := mapSet(t, x, 60) // x's map, kept by the model
	if err != nil {
		t.Fatal(err)
	}
	if b.Used() != 60*perSeg {
		t.Fatalf("used %d after a 60-segment map, want %d", b.Used(), 60*perSeg)
	}
	// y's set would bring the total past the budget: dropped.
	if _, err := mapSet(t, y, 50); !errors.Is(err, ErrBudget) || !errors.Is(err, ErrSetTooLarge) {
		t.Fatalf("y's set past the budget: %v", err)
	}
	if b.Used() != 60*perSeg {
		t.Fatalf("used %d after y's dropped set, want x's %d", b.Used(), 60*perSeg)
	}
	if _, err := y.End(1); err == nil {
		t.Fatal("the end of y's dropped set succeeded")
	}
	// x's next map replaces the kept one: while it is built both count.
	if _, err := mapSet(t, x, 41); !errors.Is(err, ErrBudget) {
		t.Fatalf("a second map beside the kept one: %v", err)
	}
	keptX.Release()
	keptX.Release() // once only
	if b.Used() != 0 {
		t.Fatalf("used %d after the release", b.Used())
	}
	keptY, err := mapSet(t, y, 100)
	if err != nil || keptY.Units() != 100*256 {
		t.Fatalf("y's map within the budget: %v", err)
	}
	// An unfinished set is given back by Close, and later segments are ignored.
	keptY.Release()
	x.Start(1, ddm.TypeHPSG)
	for range 30 {
		if err := x.Add(endlessSegment(t, 256, 0x1000)); err != nil {
			t.Fatal(err)
		}
	}
	x.Close()
	if err := x.Add(endlessSegment(t, 256, 0x1000)); err != nil || b.Used() != 0 {
		t.Fatalf("after Close: %v, used %d", err, b.Used())
	}
	if b.Peak() != 100*perSeg {
		t.Errorf("peak %d, want the budget %d", b.Peak(), 100*perSeg)
	}
}

// TestAssemblerCopiesSegmentData: a decoded segment aliases its packet,
// which may be much larger than the segment; the set keeps a copy only.
func TestAssemblerCopiesSegmentData(t *testing.T) {
	packet := make([]byte, 1<<20)
	seg := endlessSegment(t, 256, 0x1000)
	n := copy(packet, seg.Data)
	seg.Data = packet[:n:n]
	var a Assembler
	a.Start(1, ddm.TypeHPSG)
	if err := a.Add(seg); err != nil {
		t.Fatal(err)
	}
	snap, err := a.End(1)
	if err != nil {
		t.Fatal(err)
	}
	if &snap.Segments[0].Data[0] == &packet[0] || cap(snap.Segments[0].Data) > 8 {
		t.Fatal("the snapshot keeps the packet's buffer")
	}
	packet[0] ^= 0xff
	if snap.Stats.TotalUnits != 256 || snap.Segments[0].Data[0] == packet[0] {
		t.Fatal("the snapshot changed with the packet")
	}
}

// A budget of 0 bytes has no limit: it only counts (a `limit >= 0` would
// refuse everything). A take that reaches the limit exactly is allowed;
// one byte past it is not.
func TestBudgetLimitEdges(t *testing.T) {
	free := NewBudget(0)
	if !free.Take(1<<40) || free.Used() != 1<<40 || free.Peak() != 1<<40 {
		t.Fatalf("an unlimited budget refused, or miscounted: used %d", free.Used())
	}
	free.Give(1 << 40)
	if free.Used() != 0 || free.Peak() != 1<<40 {
		t.Fatalf("after give: used %d peak %d", free.Used(), free.Peak())
	}
	b := NewBudget(100)
	if !b.Take(60) || !b.Take(40) {
		t.Fatal("takes up to the limit exactly were refused")
	}
	if b.Take(1) {
		t.Fatal("a take past the limit was allowed")
	}
	if b.Used() != 100 {
		t.Fatalf("used %d", b.Used())
	}
}

// The errors of a dropped set say exactly how many segments it had and the
// bytes it would have held.
func TestDroppedSetErrorFigures(t *testing.T) {
	const perSeg = 2 + segmentOverhead
	a := &Assembler{MaxSegments: 3}
	a.Start(1, ddm.TypeHPSG)
	for i := range 3 {
		if err := a.Add(endlessSegment(t, 256, 0x1000+uint32(i)*256*8)); err != nil {
			t.Fatal(err)
		}
	}
	err := a.Add(endlessSegment(t, 256, 0x1000+3*256*8))
	if want := "heap: segment set too large: heap 1: 4 segments exceed 3 segments; set dropped"; err == nil || !errors.Is(err, ErrSetTooLarge) || err.Error() != want {
		t.Errorf("segment bound: %v, want %q", err, want)
	}
	b := NewBudget(5 * perSeg)
	x := &Assembler{Budget: b}
	_, err = mapSet(t, x, 6)
	if want := "heap: segment set too large: heap: the process-wide budget for heap maps is spent: heap 1: 6 segments (396 bytes) would pass 330 bytes for all VMs; set dropped"; err == nil || err.Error() != want {
		t.Errorf("budget: %v, want %q", err, want)
	}
}
