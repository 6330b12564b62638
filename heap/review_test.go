package heap

import (
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
)

func segmentsOf(t *testing.T, unitSize uint8, runs ...struct {
	st ddm.State
	u  uint32
}) []ddm.HeapSegment {
	t.Helper()
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, unitSize)
	w.Start(0x1000)
	for _, r := range runs {
		if err := w.Append(r.st, r.u); err != nil {
			t.Fatal(err)
		}
	}
	return w.Segments()
}

type run = struct {
	st ddm.State
	u  uint32
}

// TestLargestFreeRunAtTheEnd: the largest free run is the heap's last run,
// so only the update after the walk can see it; the free run before it is
// shorter, and fragmentation follows from both.
func TestLargestFreeRunAtTheEnd(t *testing.T) {
	obj := ddm.NewState(ddm.KindObject, ddm.SolidityHard)
	segs := segmentsOf(t, 8, run{obj, 2}, run{ddm.StateFree, 3}, run{obj, 1}, run{ddm.StateFree, 7})
	st := NewSnapshot(1, ddm.TypeHPSG, segs).Stats
	if st.LargestFree != 7 || st.FreeRuns != 2 || st.FreeUnits() != 10 {
		t.Fatalf("largest free %d, free runs %d, free units %d; want 7, 2, 10", st.LargestFree, st.FreeRuns, st.FreeUnits())
	}
	if f := st.Fragmentation(); f < 0.2999 || f > 0.3001 {
		t.Fatalf("fragmentation %v, want 1 - 7/10", f)
	}
}

// TestUnitSizeChangeWithinASet: a set whose second segment has another unit
// size is refused (its units could not be laid out on one map); the first
// segment stays and the set still closes.
func TestUnitSizeChangeWithinASet(t *testing.T) {
	obj := ddm.NewState(ddm.KindObject, ddm.SolidityHard)
	first := segmentsOf(t, 8, run{obj, 4})[0]
	second := segmentsOf(t, 16, run{obj, 4})[0]
	same := segmentsOf(t, 8, run{obj, 5})[0]
	var a Assembler
	a.Start(1, ddm.TypeHPSG)
	if err := a.Add(&first); err != nil {
		t.Fatal(err)
	}
	err := a.Add(&second)
	if err == nil || !strings.Contains(err.Error(), "unit size changes from 8 to 16") {
		t.Fatalf("unit size change: %v", err)
	}
	if err := a.Add(&same); err != nil {
		t.Fatalf("same unit size refused: %v", err)
	}
	snap, err := a.End(1)
	if err != nil || snap.Units() != 9 || snap.UnitSize != 8 {
		t.Fatalf("set after the refusal: %v units %d size %d", err, snap.Units(), snap.UnitSize)
	}
}
