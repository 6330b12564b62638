package proxy

import (
	"encoding/binary"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
)

// tracker follows what a debugger leaves behind in a VM: the event requests
// it set (ids from EventRequest.Set replies, minus those it cleared) and the
// suspensions it caused (VirtualMachine/ThreadReference.Suspend, and event
// sets whose suspend policy is not NONE), so that the proxy can undo them
// when the debugger goes away. It is fed from the forwarding path and does no
// I/O; a debugger session serialises access.
type tracker struct {
	sizes jdwp.IDSizes // from the debugger's IDSizes reply; zero until then

	requests map[int32]uint8 // live request id → event kind
	// vmSuspends counts VM-wide suspensions not yet resumed: VM.Suspend and
	// event sets with policy ALL.
	vmSuspends int
	// threadSuspends counts per-thread suspensions: ThreadReference.Suspend
	// and event sets with policy EVENT_THREAD.
	threadSuspends map[uint64]int
	// unknownSuspends counts event-thread suspensions whose thread could not
	// be decoded (id sizes unknown); only a sweep can undo them.
	unknownSuspends int
	// suspended is set once anything suspended the VM or a thread: only then
	// does the cleanup sweep every thread's suspend count.
	suspended bool
}

// maxTracked bounds the tracker's maps; a debugger that exceeds it is not
// followed further (the sweep still resumes what it suspended).
const maxTracked = 1 << 16

func newTracker() *tracker {
	return &tracker{requests: map[int32]uint8{}, threadSuspends: map[uint64]int{}}
}

// reply records the effect of a successful reply to a debugger command.
func (t *tracker) reply(set, cmd uint8, req []byte, rep *jdwp.Packet) {
	if rep.ErrorCode != jdwp.ErrNone {
		return
	}
	switch [2]uint8{set, cmd} {
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMIDSizes}:
		if sz, err := jdwp.DecodeIDSizes(rep.Data); err == nil {
			t.sizes = sz
		}
	case [2]uint8{jdwp.CmdSetEventRequest, jdwp.CmdEventRequestSet}:
		if len(req) >= 1 && len(rep.Data) >= 4 && len(t.requests) < maxTracked {
			t.requests[int32(binary.BigEndian.Uint32(rep.Data))] = req[0]
		}
	case [2]uint8{jdwp.CmdSetEventRequest, jdwp.CmdEventRequestClear}:
		if len(req) >= 5 {
			delete(t.requests, int32(binary.BigEndian.Uint32(req[1:])))
		}
	case [2]uint8{jdwp.CmdSetEventRequest, jdwp.CmdEventRequestClearAllBreakpoints}:
		for id, kind := range t.requests {
			if kind == jdwp.EventBreakpoint {
				delete(t.requests, id)
			}
		}
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMSuspend}:
		t.vmSuspends++
		t.suspended = true
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMResume}:
		// VM.Resume lowers every thread's count by one (JDWP spec).
		if t.vmSuspends > 0 {
			t.vmSuspends--
			break
		}
		for th, n := range t.threadSuspends {
			if n <= 1 {
				delete(t.threadSuspends, th)
			} else {
				t.threadSuspends[th] = n - 1
			}
		}
	case [2]uint8{jdwp.CmdSetThreadReference, jdwp.CmdThreadSuspend}:
		t.suspended = true
		if th, ok := t.threadArg(req); ok && len(t.threadSuspends) < maxTracked {
			t.threadSuspends[th]++
		}
	case [2]uint8{jdwp.CmdSetThreadReference, jdwp.CmdThreadResume}:
		if th, ok := t.threadArg(req); ok {
			if n := t.threadSuspends[th]; n <= 1 {
				delete(t.threadSuspends, th)
			} else {
				t.threadSuspends[th] = n - 1
			}
		}
	}
}

func (t *tracker) threadArg(req []byte) (uint64, bool) {
	if !t.sizes.Valid() {
		return 0, false
	}
	id, err := jdwp.DecodeID(req, t.sizes.ObjectID)
	return id, err == nil
}

// event records the suspension an Event.Composite from the VM caused.
func (t *tracker) event(p *jdwp.Packet) {
	if p.CommandSet != jdwp.CmdSetEvent || p.Command != jdwp.CmdEventComposite || len(p.Data) < 1 {
		return
	}
	switch p.Data[0] {
	case 0: // NONE
		return
	case 2: // ALL
		t.vmSuspends++
		t.suspended = true
		return
	}
	// EVENT_THREAD (or an unknown policy, treated the same): the events of
	// one set share their thread.
	t.suspended = true
	c, _ := jdwpspy.DecodeComposite(p.Data, t.sizes, nil)
	for _, e := range c.Events {
		if e.Thread != nil && len(t.threadSuspends) < maxTracked {
			t.threadSuspends[uint64(*e.Thread)]++
			return
		}
	}
	t.unknownSuspends++
}
