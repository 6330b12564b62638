package trace

import (
	"bytes"
	"testing"
)

// TestOnlyWallClockBackwards: in a dual-clock trace where only the second
// (wall) clock goes back, the record is clamped and warned about, exactly as
// when the first clock goes back; a record whose time equals the previous one
// is not backwards.
func TestOnlyWallClockBackwards(t *testing.T) {
	tr := &Trace{Header: Header{Version: 3, Clocks: Dual,
		Threads: []Thread{{1, "main"}},
		Methods: []Method{{ID: 4, Class: "a.A", Name: "f", Signature: "()V"}, {ID: 8, Class: "a.A", Name: "g", Signature: "()V"}}},
		Events: []Event{
			{1, Enter, 4, [2]uint32{10, 100}},
			{1, Enter, 8, [2]uint32{10, 100}}, // equal on both clocks: not backwards
			{1, Exit, 8, [2]uint32{20, 90}},   // cpu forward, wall back by 10: clamped to 100
			{1, Exit, 4, [2]uint32{30, 130}},
		}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Warnings.Counts[WarnTimeBackwards]; n != 1 {
		t.Fatalf("%d time-backwards warnings, want 1: %v", n, p.Warnings.List)
	}
	g := p.All.Stats(firstKeyMethod + 1)
	f := p.All.Stats(firstKeyMethod)
	if g.Inclusive[ClockCPU] != 10 || g.Inclusive[ClockWall] != 0 {
		t.Errorf("g %+v: want 10 cpu, 0 wall (the wall exit clamped to its entry)", g)
	}
	if f.Inclusive[ClockCPU] != 20 || f.Inclusive[ClockWall] != 30 || f.Exclusive[ClockWall] != 30 {
		t.Errorf("f %+v: want 20 cpu, 30 wall inclusive and exclusive", f)
	}
}
