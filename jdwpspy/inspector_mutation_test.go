package jdwpspy

import (
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/wire"
	"github.com/ddmtui/ddmtui/jdwp"
)

// The inspector's name learning and reply summaries at their edges
// (mutation testing, docs/TESTING.md).

// reply decodes a reply to the command (set, cmd, reqData) in a fresh
// inspector whose VM "v" has artSizes, and returns the record and the names.
func replyRecord(t *testing.T, in *Inspector, set, cmd uint8, reqData, data []byte, sent, at time.Time) Record {
	t.Helper()
	if in.names["v"] == nil {
		in.names["v"] = newResolver(artSizes)
	}
	return in.decode(Observation{At: at, VM: "v", Dir: FromVM, Packet: jdwp.NewReply(1, jdwp.ErrNone, data),
		Req: Command{Set: set, Cmd: cmd, Data: reqData, Sent: sent}, Paired: true})
}

func methodsReply(names ...string) []byte {
	var w wire.Writer
	w.U4(uint32(len(names)))
	for i, n := range names {
		w.ID(8, uint64(0x100+i))
		w.JDWPString(n)
		w.JDWPString("()V")
		w.S4(1)
	}
	return w.B
}

func TestReplySummariesAtEdges(t *testing.T) {
	now := time.Now()
	class := jdwp.AppendID(nil, 8, 0x11)

	// Latency: none when the reply is stamped at the send time, at least
	// a microsecond otherwise.
	in := NewInspector(8)
	if r := replyRecord(t, in, 1, 1, nil, nil, now, now); r.LatencyMS != 0 {
		t.Errorf("latency %v for a zero interval", r.LatencyMS)
	}
	if r := replyRecord(t, in, 1, 1, nil, nil, now, now.Add(500*time.Nanosecond)); r.LatencyMS != 0.001 {
		t.Errorf("latency %v for 500 ns", r.LatencyMS)
	}

	// EventRequest.Set's reply names the event kind the command asked for,
	// when the command had data.
	rid := []byte{0, 0, 0, 5}
	if r := replyRecord(t, in, jdwp.CmdSetEventRequest, jdwp.CmdEventRequestSet, []byte{jdwp.EventBreakpoint}, rid, now, now); r.Summary != "request id 5 for BREAKPOINT" {
		t.Errorf("summary %q", r.Summary)
	}
	if r := replyRecord(t, in, jdwp.CmdSetEventRequest, jdwp.CmdEventRequestSet, nil, rid, now, now); r.Summary != "request id 5" {
		t.Errorf("summary without command data %q", r.Summary)
	}

	// ReferenceType.Methods: eight names at most, then "…"; none listed for
	// a class without methods; exactly the count claimed is read.
	ten := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	if r := replyRecord(t, in, jdwp.CmdSetReferenceType, jdwp.CmdRTMethods, class, methodsReply(ten...), now, now); r.Summary != "class:0x11: 10 methods (a, b, c, d, e, f, g, h, …)" {
		t.Errorf("ten methods: %q", r.Summary)
	}
	if r := replyRecord(t, in, jdwp.CmdSetReferenceType, jdwp.CmdRTMethods, class, methodsReply(ten[:8]...), now, now); r.Summary != "class:0x11: 8 methods (a, b, c, d, e, f, g, h)" {
		t.Errorf("eight methods: %q", r.Summary)
	}
	if r := replyRecord(t, in, jdwp.CmdSetReferenceType, jdwp.CmdRTMethods, class, methodsReply(), now, now); r.Summary != "class:0x11: 0 methods" {
		t.Errorf("no methods: %q", r.Summary)
	}
	in = NewInspector(8)
	two := methodsReply("first", "second")
	two[3] = 1 // the count says 1; a second method follows anyway
	replyRecord(t, in, jdwp.CmdSetReferenceType, jdwp.CmdRTMethods, class, two, now, now)
	if a, b := in.names["v"].MethodName(0x11, 0x100), in.names["v"].MethodName(0x11, 0x101); a != "first" || b != "" {
		t.Errorf("learned %q and %q from a reply counting one method", a, b)
	}

	// A count that cannot fit the data (each method takes at least its
	// id and 12 bytes) is refused before anything is read.
	in = NewInspector(8)
	var w wire.Writer
	w.U4(3)
	w.B = append(w.B, make([]byte, 40)...) // 3 × (8+12) = 60 > 40
	if r := replyRecord(t, in, jdwp.CmdSetReferenceType, jdwp.CmdRTMethods, class, w.B, now, now); r.Summary != "class:0x11: 0 methods" {
		t.Errorf("impossible method count: %q", r.Summary)
	}
}

// Classes are learned from CLASS_PREPARE events only: a field event's
// reference type (which has no signature) does not erase a learned name.
func TestCompositeLearnsFromClassPrepareOnly(t *testing.T) {
	in := NewInspector(8)
	in.names["v"] = newResolver(artSizes)
	loc := &Location{TypeTag: 1, ClassID: 0x11, MethodID: 0x22, Index: 3}
	th := ptr(ID(0x42))
	send := func(events ...Event) {
		data := appendComposite(artSizes, 0, events)
		in.decode(Observation{At: time.Now(), VM: "v", Dir: FromVM,
			Packet: jdwp.NewCommand(0x10000001, jdwp.CmdSetEvent, jdwp.CmdEventComposite, data)})
	}
	send(Event{Kind: jdwp.EventClassPrepare, RequestID: 1, Thread: th, RefType: &RefType{Tag: 1, ID: 0x11},
		Signature: "Lcom/example/Foo;", Status: ptr(int32(7))})
	if n := in.names["v"].ClassName(0x11); n != "com.example.Foo" {
		t.Fatalf("class learned from CLASS_PREPARE: %q", n)
	}
	send(Event{Kind: jdwp.EventFieldAccess, RequestID: 2, Thread: th, Location: loc, RefType: &RefType{Tag: 1, ID: 0x11},
		Field: ptr(ID(5)), Object: &TaggedObject{Tag: "L", ID: 0}})
	if n := in.names["v"].ClassName(0x11); n != "com.example.Foo" {
		t.Fatalf("after a field event the class is %q", n)
	}
}

// Learned names stop at their bounds; names already known are still
// updated.
func TestResolverBounds(t *testing.T) {
	r := newResolver(artSizes)
	for i := 0; i < maxClasses-1; i++ {
		r.classes[uint64(i)] = "x"
	}
	r.learnClass(1<<40, "LLast;")
	r.learnClass(1<<41, "LOver;")
	r.learnClass(5, "LKnown;")
	if r.ClassName(1<<40) != "Last" || r.ClassName(1<<41) != "" || r.ClassName(5) != "Known" || len(r.classes) != maxClasses {
		t.Errorf("classes at the bound: last %q, over %q, known %q, %d kept", r.ClassName(1<<40), r.ClassName(1<<41), r.ClassName(5), len(r.classes))
	}

	in := NewInspector(8)
	res := newResolver(artSizes)
	in.names["v"] = res
	for i := 0; i < maxThreads-1; i++ {
		res.threads[uint64(i)] = "t"
	}
	name := func(id uint64, n string) {
		var w wire.Writer
		w.JDWPString(n)
		replyRecord(t, in, jdwp.CmdSetThreadReference, jdwp.CmdThreadName, jdwp.AppendID(nil, 8, id), w.B, time.Now(), time.Now())
	}
	name(1<<40, "last")
	name(1<<41, "over")
	name(7, "renamed")
	if res.ThreadName(1<<40) != "last" || res.ThreadName(1<<41) != "" || res.ThreadName(7) != "renamed" {
		t.Errorf("threads at the bound: last %q, over %q, known %q", res.ThreadName(1<<40), res.ThreadName(1<<41), res.ThreadName(7))
	}
}

// A feed's buffer defaults to 256 records.
func TestFeedDefaultBuffer(t *testing.T) {
	in := NewInspector(8)
	for _, tc := range []struct{ buffer, want int }{{0, 256}, {-3, 256}, {1, 1}, {10, 10}} {
		f := in.Subscribe(tc.buffer)
		if c := cap(f.C()); c != tc.want {
			t.Errorf("Subscribe(%d): buffer %d, want %d", tc.buffer, c, tc.want)
		}
		f.Close()
	}
}

// Method names stop at maxMethods; a known method is still renamed.
func TestResolverMethodBound(t *testing.T) {
	in := NewInspector(8)
	res := newResolver(artSizes)
	in.names["v"] = res
	for i := 0; i < maxMethods-1; i++ {
		res.methods[[2]uint64{1, uint64(i)}] = ""
	}
	res.methods[[2]uint64{0x11, 0x100}] = "old" // maxMethods now
	class := jdwp.AppendID(nil, 8, 0x11)
	// 0x100 "renamed" (known), 0x101 "over" (new, past the bound)
	replyRecord(t, in, jdwp.CmdSetReferenceType, jdwp.CmdRTMethods, class, methodsReply("renamed", "over"), time.Now(), time.Now())
	if a, b := res.MethodName(0x11, 0x100), res.MethodName(0x11, 0x101); a != "renamed" || b != "" || len(res.methods) != maxMethods {
		t.Fatalf("at the bound: %q, %q, %d kept", a, b, len(res.methods))
	}
}

// A Version reply is summarised when it decodes, and not otherwise.
func TestVersionReplySummary(t *testing.T) {
	in := NewInspector(8)
	var w wire.Writer
	w.JDWPString("Java Debug Wire Protocol")
	w.S4(17)
	w.S4(0)
	w.JDWPString("17.0.15")
	w.JDWPString("OpenJDK 64-Bit Server VM")
	now := time.Now()
	if r := replyRecord(t, in, jdwp.CmdSetVirtualMachine, jdwp.CmdVMVersion, nil, w.B, now, now); r.Summary != "OpenJDK 64-Bit Server VM 17.0.15 (JDWP 17.0)" {
		t.Errorf("Version summary %q", r.Summary)
	}
	if r := replyRecord(t, in, jdwp.CmdSetVirtualMachine, jdwp.CmdVMVersion, nil, w.B[:10], now, now); r.Summary != "" {
		t.Errorf("summary of a short Version reply: %q", r.Summary)
	}
}
