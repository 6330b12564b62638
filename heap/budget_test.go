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
