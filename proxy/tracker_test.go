package proxy

import (
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
	"github.com/ddmtui/ddmtui/jdwp"
)

// The tracker's packet filter (mutation testing, docs/TESTING.md).

// The tracker counts suspensions from Event.Composite packets only.
func TestTrackerEventOnlyFromComposite(t *testing.T) {
	tr := newTracker()
	all := []byte{2, 0, 0, 0, 0} // suspend policy ALL, no events
	tr.event(jdwp.NewCommand(1, jdwp.CmdSetDDM, jdwp.CmdEventComposite, all))
	tr.event(jdwp.NewCommand(2, jdwp.CmdSetEvent, jdwp.CmdDDMChunk, all))
	tr.event(jdwp.NewCommand(3, jdwp.CmdSetEvent, jdwp.CmdEventComposite, nil))
	if tr.vmSuspends != 0 || tr.suspended {
		t.Fatalf("counted %d suspensions from packets that are not composites", tr.vmSuspends)
	}
	tr.event(jdwp.NewCommand(4, jdwp.CmdSetEvent, jdwp.CmdEventComposite, all))
	if tr.vmSuspends != 1 || !tr.suspended {
		t.Fatalf("a composite with policy ALL: %d suspensions", tr.vmSuspends)
	}
}

// A composite of one byte (its suspend policy) still counts; EVENT_THREAD
// counts a suspension of the event's thread, up to maxTracked threads.
func TestTrackerThreadSuspends(t *testing.T) {
	tr := newTracker()
	tr.event(jdwp.NewCommand(1, jdwp.CmdSetEvent, jdwp.CmdEventComposite, []byte{2}))
	if tr.vmSuspends != 1 {
		t.Fatalf("a one-byte composite with policy ALL: %d suspensions", tr.vmSuspends)
	}
	tr = newTracker()
	tr.sizes = jdwp.IDSizes{FieldID: 8, MethodID: 8, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}
	hit := func(thread uint64) {
		var w wire.Writer // policy EVENT_THREAD, one THREAD_START event
		w.U1(1)
		w.U4(1)
		w.U1(jdwp.EventThreadStart)
		w.S4(7)
		w.ID(8, thread)
		data := w.B
		tr.event(jdwp.NewCommand(1, jdwp.CmdSetEvent, jdwp.CmdEventComposite, data))
	}
	hit(0x42)
	if tr.threadSuspends[0x42] != 1 || tr.unknownSuspends != 0 {
		t.Fatalf("EVENT_THREAD on 0x42: %v, %d unknown", tr.threadSuspends, tr.unknownSuspends)
	}
	for i := len(tr.threadSuspends); i < maxTracked-1; i++ {
		tr.threadSuspends[uint64(1<<40+i)] = 1
	}
	hit(0x43) // the last one tracked
	hit(0x44) // past the bound: counted as unknown
	if tr.threadSuspends[0x43] != 1 || tr.threadSuspends[0x44] != 0 || tr.unknownSuspends != 1 {
		t.Fatalf("at the bound: 0x43 %d, 0x44 %d, %d unknown", tr.threadSuspends[0x43], tr.threadSuspends[0x44], tr.unknownSuspends)
	}
}

// FuzzTrackerEvent: the tracker never panics on a composite from the VM.
// Inputs start with one byte choosing the id sizes (as jdwpspy's
// FuzzDecodeComposite, whose seeds these are), then the composite's data.
func FuzzTrackerEvent(f *testing.F) {
	sizes := []jdwp.IDSizes{
		{FieldID: 8, MethodID: 8, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8},
		{FieldID: 4, MethodID: 4, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8},
		{FieldID: 4, MethodID: 4, ObjectID: 4, ReferenceTypeID: 4, FrameID: 4},
		{},
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := newTracker()
		if len(b) > 0 {
			tr.sizes, b = sizes[int(b[0])%len(sizes)], b[1:]
		}
		tr.event(&jdwp.Packet{CommandSet: jdwp.CmdSetEvent, Command: jdwp.CmdEventComposite, Data: b})
		// One composite is one suspension, unless its policy is NONE.
		want := 1
		if len(b) == 0 || b[0] == 0 {
			want = 0
		}
		got := tr.vmSuspends + tr.unknownSuspends
		for _, n := range tr.threadSuspends {
			got += n
		}
		if got != want || tr.suspended != (want == 1) {
			t.Fatalf("a composite counted %d suspensions (suspended %v), want %d", got, tr.suspended, want)
		}
	})
}
