package proxy

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/wire"
	"github.com/ddmtui/ddmtui/jdwp"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var artSizes = jdwp.IDSizes{FieldID: 8, MethodID: 8, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}

// The worked example of spec/jdwp.md §7, byte for byte.
const (
	specSetPacket = `00 00 00 2B  00 00 00 2A  00  0F 01
		02 02  00 00 00 01
		07
		01  00 00 00 00 00 00 1A 2B
		    00 00 00 00 70 C0 FF EE
		    00 00 00 00 00 00 00 10`
	specSetReply  = `00 00 00 0F  00 00 00 2A  80  00 00  20 00 00 03`
	specHitPacket = `00 00 00 36  10 00 00 07  00  40 64
		02  00 00 00 01
		02  20 00 00 03
		00 00 00 00 00 00 12 34
		01  00 00 00 00 00 00 1A 2B
		    00 00 00 00 70 C0 FF EE
		    00 00 00 00 00 00 00 10`
)

func TestDecodeSpecBreakpointExample(t *testing.T) {
	set, err := jdwp.Decode(unhex(t, specSetPacket), 0)
	if err != nil {
		t.Fatal(err)
	}
	if set.ID != 0x2a || set.CommandSet != 15 || set.Command != 1 {
		t.Fatalf("header: %+v", set)
	}
	er, err := DecodeEventRequest(set.Data, artSizes, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &EventRequest{
		EventKind: 2, EventKindName: "BREAKPOINT", SuspendPolicy: 2, SuspendPolicyName: "ALL", ModifierCount: 1,
		Modifiers: []Modifier{{Kind: 7, Name: "LocationOnly",
			Location: &Location{TypeTag: 1, ClassID: 0x1a2b, MethodID: 0x70c0ffee, Index: 0x10}}},
	}
	if !reflect.DeepEqual(er, want) {
		t.Fatalf("decoded %+v\nwant    %+v", er, want)
	}
	if got := er.String(); got != "BREAKPOINT suspend=ALL [LocationOnly class:0x1a2b.method:0x70c0ffee@16]" {
		t.Errorf("String() = %q", got)
	}

	rep, err := jdwp.Decode(unhex(t, specSetReply), 0)
	if err != nil || !rep.IsReply() || rep.ID != 0x2a || rep.ErrorCode != 0 {
		t.Fatalf("reply %+v %v", rep, err)
	}

	hit, err := jdwp.Decode(unhex(t, specHitPacket), 0)
	if err != nil {
		t.Fatal(err)
	}
	if hit.ID != 0x10000007 || hit.CommandSet != 64 || hit.Command != 100 {
		t.Fatalf("event header %+v", hit)
	}
	c, err := DecodeComposite(hit.Data, artSizes, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantC := &Composite{SuspendPolicy: 2, SuspendPolicyName: "ALL", EventCount: 1, Events: []Event{{
		Kind: 2, Name: "BREAKPOINT", RequestID: 0x20000003, Thread: ptr(ID(0x1234)),
		Location: &Location{TypeTag: 1, ClassID: 0x1a2b, MethodID: 0x70c0ffee, Index: 0x10},
	}}}
	if !reflect.DeepEqual(c, wantC) {
		t.Fatalf("decoded %+v\nwant    %+v", c, wantC)
	}
}

// The inspector pairs the worked example's request and reply, and shows
// the location by name once the debugger's own Signature and Methods
// replies taught it the ids.
func TestInspectorResolvesSpecExample(t *testing.T) {
	in := NewInspector(16)
	t0 := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	feed := func(dir Direction, hexPkt string, req *request, at time.Duration) Record {
		p, err := jdwp.Decode(unhex(t, hexPkt), 0)
		if err != nil {
			t.Fatal(err)
		}
		return in.decode(observation{at: t0.Add(at), vm: "adb:emu:42", port: 8600, dir: dir, pkt: p, req: req})
	}
	cmd := func(set, c uint8, data []byte) *request { return &request{set: set, cmd: c, data: data, sent: t0} }
	reply := func(id uint32, data []byte) string {
		return hex.EncodeToString(jdwp.NewReply(id, 0, data).Marshal())
	}
	classArg := jdwp.AppendID(nil, 8, 0x1a2b)

	// IDSizes, then Signature and Methods of class 0x1a2b.
	rec := feed(FromVM, reply(1, jdwp.AppendIDSizes(nil, artSizes)), cmd(1, 7, nil), 1500*time.Microsecond)
	if rec.Name != "VirtualMachine.IDSizes" || rec.LatencyMS != 1.5 || !strings.Contains(rec.Summary, "object=8") {
		t.Fatalf("IDSizes record %+v", rec)
	}
	feed(FromVM, reply(2, jdwp.AppendString(nil, "Lcom/example/Foo;")), cmd(2, 1, classArg), time.Millisecond)
	w := wire.Writer{}
	w.U4(2)
	for _, m := range []struct {
		id   uint64
		name string
	}{{0x70c0ffee, "work"}, {0x70c0fff0, "<init>"}} {
		w.ID(8, m.id)
		w.JDWPString(m.name)
		w.JDWPString("(I)V")
		w.JDWPString("") // generic signature (MethodsWithGeneric)
		w.U4(8)
	}
	rec = feed(FromVM, reply(3, w.B), cmd(2, 15, classArg), time.Millisecond)
	if rec.Summary != "com.example.Foo: 2 methods (work, <init>)" {
		t.Errorf("methods summary %q", rec.Summary)
	}

	rec = feed(ToVM, specSetPacket, nil, 0)
	if rec.Type != TypeCommand || rec.Name != "EventRequest.Set" || rec.ID != 0x2a {
		t.Fatalf("set record %+v", rec)
	}
	loc := rec.EventRequest.Modifiers[0].Location
	if loc.String() != "com.example.Foo.work@16" || rec.Summary != "BREAKPOINT suspend=ALL [LocationOnly com.example.Foo.work@16]" {
		t.Errorf("set record: location %s, summary %q", loc, rec.Summary)
	}
	set, _ := jdwp.Decode(unhex(t, specSetPacket), 0)
	rec = feed(FromVM, specSetReply, cmd(15, 1, set.Data), 2*time.Millisecond)
	if rec.Type != TypeReply || rec.RequestID == nil || *rec.RequestID != 0x20000003 || rec.LatencyMS != 2 {
		t.Errorf("set reply record %+v", rec)
	}
	feed(FromVM, reply(4, jdwp.AppendString(nil, "main\x1b[31m")), cmd(11, 1, jdwp.AppendID(nil, 8, 0x1234)), time.Millisecond)
	rec = feed(FromVM, specHitPacket, nil, 0)
	ev := rec.Composite.Events[0]
	if ev.ThreadName != "main\x1b[31m" || ev.Location.String() != "com.example.Foo.work@16" {
		t.Errorf("hit %+v", ev)
	}
	line := rec.Line()
	if !strings.Contains(line, `BREAKPOINT req=536870915 thread=0x1234 "main\x1b[31m" at com.example.Foo.work@16`) {
		t.Errorf("hit line %q", line)
	}
	if strings.ContainsRune(line, 0x1b) {
		t.Errorf("the VM's escape sequence reached the text: %q", line)
	}
	for _, d := range rec.Detail() {
		if strings.ContainsRune(d, 0x1b) {
			t.Errorf("detail line carries an escape: %q", d)
		}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"dir":"from_vm"`, `"name":"Event.Composite"`, `"thread":"0x1234"`, `"class":"com.example.Foo"`, `"method":"work"`, `"request_id":536870915`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
	// An error reply names the error.
	rec = feed(FromVM, hex.EncodeToString(jdwp.NewReply(9, jdwp.ErrInvalidThread, nil).Marshal()), cmd(11, 6, nil), time.Millisecond)
	if rec.Error != "INVALID_THREAD" || rec.ErrorCode != 10 || !strings.Contains(rec.Text(), "ERROR INVALID_THREAD (10)") {
		t.Errorf("error reply %+v: %s", rec, rec.Text())
	}
}

// appendEventRequest encodes an EventRequest.Set the way a debugger does
// (test helper, also the fuzz round trip's reference).
func appendEventRequest(sz jdwp.IDSizes, er *EventRequest) []byte {
	w := wire.Writer{}
	w.U1(er.EventKind)
	w.U1(er.SuspendPolicy)
	w.U4(uint32(len(er.Modifiers)))
	for _, m := range er.Modifiers {
		w.U1(m.Kind)
		switch m.Kind {
		case ModCount:
			w.S4(*m.Count)
		case ModConditional:
			w.S4(*m.ExprID)
		case ModThreadOnly:
			w.ID(sz.ObjectID, uint64(*m.Thread))
		case ModClassOnly:
			w.ID(sz.ReferenceTypeID, uint64(*m.Class))
		case ModClassMatch, ModClassExclude, ModSourceNameMatch:
			w.JDWPString(*m.Pattern)
		case ModLocationOnly:
			appendLocation(&w, sz, *m.Location)
		case ModExceptionOnly:
			w.ID(sz.ReferenceTypeID, uint64(*m.Class))
			w.Bool(*m.Caught)
			w.Bool(*m.Uncaught)
		case ModFieldOnly:
			w.ID(sz.ReferenceTypeID, uint64(*m.Class))
			w.ID(sz.FieldID, uint64(*m.Field))
		case ModStep:
			w.ID(sz.ObjectID, uint64(*m.Thread))
			w.S4(*m.StepSize)
			w.S4(*m.StepDepth)
		case ModInstanceOnly:
			w.ID(sz.ObjectID, uint64(*m.Instance))
		}
	}
	return w.B
}

func appendLocation(w *wire.Writer, sz jdwp.IDSizes, l Location) {
	w.U1(l.TypeTag)
	w.ID(sz.ReferenceTypeID, uint64(l.ClassID))
	w.ID(sz.MethodID, uint64(l.MethodID))
	w.U8(l.Index)
}

// Every modifier of spec/jdwp.md §7, with Dalvik's mixed id sizes (4-byte
// field and method ids) so a wrong size shows.
func TestDecodeEventRequestEveryModifier(t *testing.T) {
	dalvik := jdwp.IDSizes{FieldID: 4, MethodID: 4, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}
	loc := &Location{TypeTag: 1, ClassID: 0x11, MethodID: 0x22, Index: 7}
	mods := []Modifier{
		{Kind: ModCount, Name: "Count", Count: ptr(int32(3))},
		{Kind: ModConditional, Name: "Conditional", ExprID: ptr(int32(-1))},
		{Kind: ModThreadOnly, Name: "ThreadOnly", Thread: ptr(ID(0x1234))},
		{Kind: ModClassOnly, Name: "ClassOnly", Class: ptr(ID(0x11))},
		{Kind: ModClassMatch, Name: "ClassMatch", Pattern: ptr("java.lang.*")},
		{Kind: ModClassExclude, Name: "ClassExclude", Pattern: ptr("*.Foo")},
		{Kind: ModLocationOnly, Name: "LocationOnly", Location: loc},
		{Kind: ModExceptionOnly, Name: "ExceptionOnly", Class: ptr(ID(0)), Caught: ptr(true), Uncaught: ptr(false)},
		{Kind: ModFieldOnly, Name: "FieldOnly", Class: ptr(ID(0x11)), Field: ptr(ID(0xabcd))},
		{Kind: ModStep, Name: "Step", Thread: ptr(ID(0x1234)), StepSize: ptr(int32(1)), StepDepth: ptr(int32(1))},
		{Kind: ModInstanceOnly, Name: "InstanceOnly", Instance: ptr(ID(0x99))},
		{Kind: ModSourceNameMatch, Name: "SourceNameMatch", Pattern: ptr("Foo.kt")},
	}
	want := &EventRequest{EventKind: jdwp.EventSingleStep, EventKindName: "SINGLE_STEP", SuspendPolicy: 1,
		SuspendPolicyName: "EVENT_THREAD", ModifierCount: uint32(len(mods)), Modifiers: mods}
	data := appendEventRequest(dalvik, want)
	got, err := DecodeEventRequest(data, dalvik, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v", got)
	}
	text := got.String()
	for _, s := range []string{"[Count 3]", "[Conditional expr -1]", "[ThreadOnly thread 0x1234]", "[ClassOnly class:0x11]",
		`[ClassMatch "java.lang.*"]`, `[ClassExclude "*.Foo"]`, "[LocationOnly class:0x11.method:0x22@7]",
		"[ExceptionOnly any caught=true uncaught=false]", "[FieldOnly class:0x11 field 0xabcd]",
		"[Step thread 0x1234 size LINE depth OVER]", "[InstanceOnly object 0x99]", `[SourceNameMatch "Foo.kt"]`} {
		if !strings.Contains(text, s) {
			t.Errorf("String() lacks %s: %s", s, text)
		}
	}
	// Named by a resolver.
	names := newResolver(dalvik)
	names.learnClass(0x11, "Lcom/example/Foo;")
	names.methods[[2]uint64{0x11, 0x22}] = "bar"
	got, _ = DecodeEventRequest(data, dalvik, names)
	if got.Modifiers[3].ClassName != "com.example.Foo" || got.Modifiers[6].Location.String() != "com.example.Foo.bar@7" {
		t.Errorf("resolved: %+v / %s", got.Modifiers[3], got.Modifiers[6].Location)
	}

	// A modifier kind with no layout stops decoding; the rest is hex.
	bad := append(appendEventRequest(dalvik, &EventRequest{EventKind: 2, Modifiers: mods[:2]}), 13, 0xde, 0xad)
	bad[5] = 3 // three modifiers claimed
	got, err = DecodeEventRequest(bad, dalvik, nil)
	if !errors.Is(err, ErrUndecodable) || len(got.Modifiers) != 2 || got.Undecoded != "0ddead" {
		t.Errorf("unknown modifier: %+v, %v", got, err)
	}
	// Truncation is an error with the offset in the packet.
	got, err = DecodeEventRequest(data[:len(data)-3], dalvik, nil)
	var fe *wire.FormatError
	if !errors.As(err, &fe) || len(got.Modifiers) != len(mods)-1 {
		t.Errorf("truncated: %d modifiers, %v", len(got.Modifiers), err)
	}
	// Ids need sizes.
	if _, err := DecodeEventRequest(data, jdwp.IDSizes{}, nil); !errors.Is(err, ErrNoIDSizes) {
		t.Errorf("without id sizes: %v", err)
	}
}

// appendComposite encodes events (test helper).
func appendComposite(sz jdwp.IDSizes, policy uint8, events []Event) []byte {
	w := wire.Writer{}
	w.U1(policy)
	w.U4(uint32(len(events)))
	for _, e := range events {
		w.U1(e.Kind)
		w.S4(e.RequestID)
		if e.Thread != nil {
			w.ID(sz.ObjectID, uint64(*e.Thread))
		}
		switch e.Kind {
		case jdwp.EventClassPrepare:
			w.U1(e.RefType.Tag)
			w.ID(sz.ReferenceTypeID, uint64(e.RefType.ID))
			w.JDWPString(e.Signature)
			w.S4(*e.Status)
			continue
		case jdwp.EventClassUnload:
			w.JDWPString(e.Signature)
			continue
		case jdwp.EventMonitorContendedEnter, jdwp.EventMonitorContendedEntered, jdwp.EventMonitorWait, jdwp.EventMonitorWaited:
			w.U1(tagByte(e.Object.Tag))
			w.ID(sz.ObjectID, uint64(e.Object.ID))
		}
		if e.Location != nil {
			appendLocation(&w, sz, *e.Location)
		}
		switch e.Kind {
		case jdwp.EventException:
			w.U1(tagByte(e.Object.Tag))
			w.ID(sz.ObjectID, uint64(e.Object.ID))
			var c Location
			if e.CatchLocation != nil {
				c = *e.CatchLocation
			}
			appendLocation(&w, sz, c)
		case jdwp.EventMonitorWait:
			w.U8(uint64(*e.Timeout))
		case jdwp.EventMonitorWaited:
			w.Bool(*e.TimedOut)
		case jdwp.EventFieldAccess, jdwp.EventFieldModification:
			w.U1(e.RefType.Tag)
			w.ID(sz.ReferenceTypeID, uint64(e.RefType.ID))
			w.ID(sz.FieldID, uint64(*e.Field))
			w.U1(tagByte(e.Object.Tag))
			w.ID(sz.ObjectID, uint64(e.Object.ID))
		}
	}
	return w.B
}

// tagByte undoes tagString.
func tagByte(s string) byte {
	if len(s) == 1 {
		return s[0]
	}
	b, _ := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if len(b) != 1 {
		return 0
	}
	return b[0]
}

// Every event kind of spec/jdwp.md §7's composite table.
func TestDecodeCompositeEveryKind(t *testing.T) {
	sz := jdwp.IDSizes{FieldID: 4, MethodID: 4, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}
	th := ptr(ID(0x42))
	loc := &Location{TypeTag: 1, ClassID: 0x11, MethodID: 0x22, Index: 3}
	obj := &TaggedObject{Tag: "L", ID: 0x77}
	events := []Event{
		{Kind: 90, Name: "VM_START", Thread: th},
		{Kind: 1, Name: "SINGLE_STEP", RequestID: 1, Thread: th, Location: loc},
		{Kind: 2, Name: "BREAKPOINT", RequestID: 2, Thread: th, Location: loc},
		{Kind: 40, Name: "METHOD_ENTRY", RequestID: 3, Thread: th, Location: loc},
		{Kind: 41, Name: "METHOD_EXIT", RequestID: 4, Thread: th, Location: loc},
		{Kind: 43, Name: "MONITOR_CONTENDED_ENTER", RequestID: 5, Thread: th, Object: obj, Location: loc},
		{Kind: 44, Name: "MONITOR_CONTENDED_ENTERED", RequestID: 6, Thread: th, Object: obj, Location: loc},
		{Kind: 45, Name: "MONITOR_WAIT", RequestID: 7, Thread: th, Object: obj, Location: loc, Timeout: ptr(int64(500))},
		{Kind: 46, Name: "MONITOR_WAITED", RequestID: 8, Thread: th, Object: obj, Location: loc, TimedOut: ptr(true)},
		{Kind: 4, Name: "EXCEPTION", RequestID: 9, Thread: th, Location: loc, Object: &TaggedObject{Tag: "L", ID: 0x88}},
		{Kind: 4, Name: "EXCEPTION", RequestID: 10, Thread: th, Location: loc, Object: &TaggedObject{Tag: "L", ID: 0x88}, CatchLocation: &Location{TypeTag: 1, ClassID: 0x11, MethodID: 0x23, Index: 9}},
		{Kind: 6, Name: "THREAD_START", RequestID: 11, Thread: th},
		{Kind: 7, Name: "THREAD_DEATH", RequestID: 12, Thread: th},
		{Kind: 8, Name: "CLASS_PREPARE", RequestID: 13, Thread: th, RefType: &RefType{Tag: 1, ID: 0x11, Name: "com.example.Foo"}, Signature: "Lcom/example/Foo;", Status: ptr(int32(7))},
		{Kind: 9, Name: "CLASS_UNLOAD", RequestID: 14, Signature: "Lcom/example/Gone;"},
		{Kind: 20, Name: "FIELD_ACCESS", RequestID: 15, Thread: th, Location: loc, RefType: &RefType{Tag: 1, ID: 0x11}, Field: ptr(ID(0x5)), Object: &TaggedObject{Tag: "L", ID: 0}},
		{Kind: 99, Name: "VM_DEATH", RequestID: 16},
	}
	data := appendComposite(sz, 1, events)
	got, err := DecodeComposite(data, sz, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &Composite{SuspendPolicy: 1, SuspendPolicyName: "EVENT_THREAD", EventCount: uint32(len(events)), Events: events}
	if !reflect.DeepEqual(got, want) {
		for i := range events {
			if i < len(got.Events) && !reflect.DeepEqual(got.Events[i], events[i]) {
				t.Errorf("event %d: got %+v\nwant %+v", i, got.Events[i], events[i])
			}
		}
		t.Fatalf("decoded %d events", len(got.Events))
	}
	if s := got.String(); !strings.Contains(s, "EXCEPTION req=9 thread=0x42 at class:0x11.method:0x22@3 object=L:0x88 uncaught") ||
		!strings.Contains(s, "caught at class:0x11.method:0x23@9") || !strings.Contains(s, "CLASS_PREPARE req=13 thread=0x42 type=com.example.Foo") {
		t.Errorf("String() = %s", s)
	}

	// Values: METHOD_EXIT_WITH_RETURN_VALUE and FIELD_MODIFICATION carry
	// tagged values of every size.
	for _, tc := range []struct {
		tag   byte
		bytes string
		want  string
	}{
		{'I', "ffffffff", "-1"}, {'Z', "01", "true"}, {'B', "80", "-128"}, {'C', "0041", "'A'"}, {'S', "0102", "258"},
		{'J', "0000000100000000", "4294967296"}, {'F', "3fc00000", "1.5"}, {'D', "4004000000000000", "2.5"},
		{'V', "", "void"}, {'s', "0000000000000099", "0x99"}, {'[', "0000000000000001", "0x1"},
	} {
		w := wire.Writer{}
		w.U1(2)
		w.U4(2)
		w.U1(42)
		w.S4(1)
		w.ID(8, 0x42)
		appendLocation(&w, sz, *loc)
		w.U1(tc.tag)
		w.Bytes(unhex(t, tc.bytes))
		w.U1(21)
		w.S4(2)
		w.ID(8, 0x42)
		appendLocation(&w, sz, *loc)
		w.U1(1)
		w.ID(8, 0x11)
		w.ID(4, 0x5)
		w.U1('L')
		w.ID(8, 0x77)
		w.U1(tc.tag)
		w.Bytes(unhex(t, tc.bytes))
		c, err := DecodeComposite(w.B, sz, nil)
		if err != nil || len(c.Events) != 2 {
			t.Fatalf("tag %c: %+v %v", tc.tag, c, err)
		}
		for _, e := range c.Events {
			if e.Value == nil || e.Value.Tag != string(tc.tag) || e.Value.Value != tc.want {
				t.Errorf("tag %c: value %+v, want %s", tc.tag, e.Value, tc.want)
			}
		}
	}

	// An unknown event kind, or a value tag without a size, stops decoding.
	bad := append(appendComposite(sz, 0, events[:1]), 77, 1, 2, 3)
	bad[4] = 2
	got, err = DecodeComposite(bad, sz, nil)
	if !errors.Is(err, ErrUndecodable) || len(got.Events) != 1 || got.Undecoded != "4d010203" {
		t.Errorf("unknown kind: %+v, %v", got, err)
	}
	w := wire.Writer{}
	w.U1(0)
	w.U4(1)
	w.U1(42)
	w.S4(1)
	w.ID(8, 0x42)
	appendLocation(&w, sz, *loc)
	w.U1('Q')
	got, err = DecodeComposite(w.B, sz, nil)
	if !errors.Is(err, ErrUndecodable) || len(got.Events) != 0 || !strings.HasPrefix(got.Undecoded, "2a") {
		t.Errorf("unknown value tag: %+v, %v", got, err)
	}
}

func TestClassNameFromSignature(t *testing.T) {
	for sig, want := range map[string]string{
		"Ljava/lang/Thread;": "java.lang.Thread", "[I": "int[]", "[[Ljava/lang/String;": "java.lang.String[][]",
		"LTarget;": "Target", "Z": "boolean", "": "", "L": "L", "Q": "Q", "[": "[",
		// Hidden classes (lambdas): jdb prints a '/' before the suffix (issue 29 #18).
		"Lcom/example/Main$$Lambda.0x000001000c00a000;": "com.example.Main$$Lambda/0x000001000c00a000",
		"LMain$$Lambda$14.0x0000000801001000;":          "Main$$Lambda$14/0x0000000801001000",
		"[Lp/Q$$Lambda.0x10;":                           "p.Q$$Lambda/0x10[]",
	} {
		if got := ClassNameFromSignature(sig); got != want {
			t.Errorf("%q → %q, want %q", sig, got, want)
		}
	}
}

func TestInspectorRingAndFeeds(t *testing.T) {
	in := NewInspector(3)
	fast := in.Subscribe(10)
	slow := in.Subscribe(1)
	for i := 0; i < 5; i++ {
		in.add(Record{Summary: string(rune('a' + i))})
	}
	recs := in.Records()
	if len(recs) != 3 || recs[0].Summary != "c" || recs[2].Summary != "e" || recs[2].Seq != 5 {
		t.Fatalf("ring: %+v", recs)
	}
	if len(fast.C()) != 5 || fast.Dropped() != 0 {
		t.Errorf("fast feed: %d queued, %d dropped", len(fast.C()), fast.Dropped())
	}
	if len(slow.C()) != 1 || slow.Dropped() != 4 {
		t.Errorf("slow feed: %d queued, %d dropped", len(slow.C()), slow.Dropped())
	}
	slow.Close()
	in.add(Record{})
	if _, ok := <-slow.C(); !ok {
		t.Error("the queued record was lost on Close")
	}
	if _, ok := <-slow.C(); ok {
		t.Error("feed still open after Close")
	}
	fast.Close()
	// Observations beyond the queue are dropped and counted, never block.
	for i := 0; i < maxObservations+10; i++ {
		in.observe(observation{})
	}
	if in.Dropped() != 10 {
		t.Errorf("dropped %d observations, want 10", in.Dropped())
	}
}
