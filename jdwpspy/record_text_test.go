package jdwpspy

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// Record.Text and Detail, byte for byte, for each shape of record: what the
// inspector pane and `ddmtui spy` print.
func TestRecordTextAndDetail(t *testing.T) {
	at := time.Date(2026, 11, 23, 21, 5, 7, 123456000, time.UTC)
	reqID := int32(3)
	for _, tc := range []struct {
		name   string
		rec    Record
		text   string
		detail []string
	}{{
		name: "session",
		rec:  Record{Time: at, VM: "local:8000", Port: 8600, Dir: Session, Type: TypeSession, Summary: "debugger 127.0.0.1:5 attached", Note: "DDM VM"},
		text: "21:05:07.123 local:8000 :8600 == debugger 127.0.0.1:5 attached (DDM VM)",
		detail: []string{
			"21:05:07.123456 session event on port 8600 (local:8000)",
			"debugger 127.0.0.1:5 attached",
			"note: DDM VM",
		},
	}, {
		name: "session without note",
		rec:  Record{Time: at, VM: "v", Port: 1, Dir: Session, Type: TypeSession, Summary: "left"},
		text: "21:05:07.123 v :1 == left",
		detail: []string{
			"21:05:07.123456 session event on port 1 (v)",
			"left",
		},
	}, {
		name: "command rewritten, not decoded",
		rec: Record{Time: at, VM: "v", Port: 2, Dir: ToVM, Type: TypeCommand, ID: 7, WireID: 0x7f000001,
			CommandSet: 1, Command: 1, Name: "VirtualMachine.Version", Length: 11},
		text: "21:05:07.123 v :2 -> #7 VirtualMachine.Version [wire id 0x7f000001] (11 bytes)",
		detail: []string{
			"21:05:07.123456 command VirtualMachine.Version id 7 on port 2 (v)",
			"rewritten on the VM connection as id 0x7f000001",
			"command set 1 (VirtualMachine), command 1, 11 bytes",
		},
	}, {
		name: "reply with latency and request id",
		rec: Record{Time: at, VM: "v", Port: 2, Dir: FromVM, Type: TypeReply, ID: 8, CommandSet: 15, Command: 1,
			Name: "EventRequest.Set", LatencyMS: 1.5, Length: 15, Summary: "request 3", RequestID: &reqID},
		text: "21:05:07.123 v :2 <- #8 reply EventRequest.Set 1.50ms request 3",
		detail: []string{
			"21:05:07.123456 reply EventRequest.Set id 8 on port 2 (v)",
			"command set 15 (EventRequest), command 1, 15 bytes",
			"latency 1.500 ms",
			"request id 3",
			"request 3",
		},
	}, {
		name: "error reply",
		rec: Record{Time: at, VM: "v", Port: 2, Dir: FromVM, Type: TypeReply, ID: 9, CommandSet: 11, Command: 1,
			Name: "ThreadReference.Name", ErrorCode: 10, Error: "INVALID_THREAD", Length: 11},
		text: "21:05:07.123 v :2 <- #9 reply ThreadReference.Name ERROR INVALID_THREAD (10)",
		detail: []string{
			"21:05:07.123456 reply ThreadReference.Name id 9 on port 2 (v)",
			"command set 11 (ThreadReference), command 1, 11 bytes",
			"error INVALID_THREAD (10)",
		},
	}, {
		name: "event request with a decode error",
		rec: Record{Time: at, VM: "v", Port: 2, Dir: ToVM, Type: TypeCommand, ID: 4, CommandSet: 15, Command: 1,
			Name: "EventRequest.Set", Length: 30, Summary: "BREAKPOINT suspend=ALL",
			EventRequest: &EventRequest{EventKind: 2, EventKindName: "BREAKPOINT", SuspendPolicy: 2, SuspendPolicyName: "ALL",
				ModifierCount: 2, Modifiers: []Modifier{{Kind: ModCount, Name: "Count", Count: ptr(int32(1))}}, Undecoded: "4d"},
			Note: "n", DecodeError: "modifier 2: kind 77"},
		text: "21:05:07.123 v :2 -> #4 EventRequest.Set BREAKPOINT suspend=ALL (n) !modifier 2: kind 77",
		detail: []string{
			"21:05:07.123456 command EventRequest.Set id 4 on port 2 (v)",
			"command set 15 (EventRequest), command 1, 30 bytes",
			"event kind BREAKPOINT (2), suspend ALL (2), 2 modifier(s)",
			"  1. Count 1",
			"  undecoded: 4d",
			"note: n",
			"decode error: modifier 2: kind 77",
		},
	}, {
		name: "composite",
		rec: Record{Time: at, VM: "v", Port: 2, Dir: FromVM, Type: TypeCommand, ID: 5, CommandSet: 64, Command: 100,
			Name: "Event.Composite", Length: 20, Summary: "suspend=NONE",
			Composite: &Composite{SuspendPolicyName: "NONE", EventCount: 2,
				Events: []Event{{Kind: 99, Name: "VM_DEATH"}}, Undecoded: "ee"}},
		text: "21:05:07.123 v :2 <- #5 Event.Composite suspend=NONE",
		detail: []string{
			"21:05:07.123456 command Event.Composite id 5 on port 2 (v)",
			"command set 64 (Event), command 100, 20 bytes",
			"suspend NONE (0), 2 event(s)",
			"  1. VM_DEATH req=0",
			"  undecoded: ee",
		},
	}} {
		if got := tc.rec.Text(); got != tc.text {
			t.Errorf("%s: Text()\n got %q\nwant %q", tc.name, got, tc.text)
		}
		// The spy view's columns: the arrow and the body after time, VM, port.
		if f := strings.SplitN(tc.text, " ", 4); len(f) != 4 || tc.rec.Arrow()+" "+tc.rec.Body() != f[3] {
			t.Errorf("%s: Arrow() %q, Body() %q; Text() ends %q", tc.name, tc.rec.Arrow(), tc.rec.Body(), f[len(f)-1])
		}
		if got := tc.rec.Detail(); !reflect.DeepEqual(got, tc.detail) {
			t.Errorf("%s: Detail()\n got %q\nwant %q", tc.name, got, tc.detail)
		}
	}
}

// NewInspector with no size keeps DefaultLogSize records.
func TestNewInspectorDefaultSize(t *testing.T) {
	for _, size := range []int{0, -1} {
		if n := len(NewInspector(size).ring); n != DefaultLogSize {
			t.Errorf("NewInspector(%d) keeps %d records", size, n)
		}
	}
	if n := len(NewInspector(1).ring); n != 1 {
		t.Errorf("NewInspector(1) keeps %d records", n)
	}
}
