package tui

import (
	"fmt"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// TestFragmentationPaneAgreesWithJSON: on one heap, the heap pane's
// "fragmentation N.N%" is the JSON's fraction times 100 (one quantity,
// one formula: heap.Stats.Fragmentation).
func TestFragmentationPaneAgreesWithJSON(t *testing.T) {
	// Free runs of 100, 300 and 600 units: largest 600 of 1000 free, so
	// fragmentation is 0.4 (40.0%).
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.Start(0x12C00000)
	for _, r := range []struct {
		st ddm.State
		n  uint32
	}{{ddm.NewState(ddm.KindObject, ddm.SolidityHard), 500}, {ddm.StateFree, 100},
		{ddm.NewState(ddm.KindObject, ddm.SolidityHard), 50}, {ddm.StateFree, 300},
		{ddm.NewState(ddm.KindArray1, ddm.SolidityHard), 70}, {ddm.StateFree, 600}, {ddm.NewState(ddm.KindObject, ddm.SolidityHard), 10}} {
		if err := w.Append(r.st, r.n); err != nil {
			t.Fatal(err)
		}
	}
	snap := heap.NewSnapshot(1, ddm.TypeHPSG, w.Segments())
	hs := start(t, 160, 40, style.Palette{}, twoVMs)
	hs.store.SetSegments("local:8000", snap)
	vm, _ := hs.store.VM("local:8000")
	j := headless.NewHeapMap(vm, "managed", snap)
	if j.Fragmentation != 0.4 {
		t.Fatalf("JSON fragmentation %v, want 0.4", j.Fragmentation)
	}
	want := fmt.Sprintf("fragmentation %.1f%%", 100*j.Fragmentation)
	if want != "fragmentation 40.0%" || snap.Stats.FragmentationLabel() != want {
		t.Fatalf("label %q, want %q", snap.Stats.FragmentationLabel(), want)
	}
	hs.waitText(want)
}
