package trace

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Tests that state exact values at the points mutation testing found
// unchecked (scripts/mutation.sh ./trace; docs/TESTING.md).

func TestFormatErrorText(t *testing.T) {
	for _, c := range []struct {
		e    FormatError
		want string
	}{
		{FormatError{Offset: 7, What: "key", Err: ErrTruncated}, "trace: key at offset 7: data ends early"},
		{FormatError{Offset: 7, Line: 1, What: "key", Err: ErrTruncated}, "trace: key at line 1 (offset 7): data ends early"},
		{FormatError{Part: "data", Offset: 9, What: "record", Err: ErrMalformed}, "trace: record at data offset 9: malformed"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

func TestWarningKindBounds(t *testing.T) {
	if got := WarnReservedAction.String(); got != "reserved-action" {
		t.Errorf("last kind: %q", got)
	}
	if got := warnKinds.String(); got != "warning(8)" {
		t.Errorf("one past the last kind: %q", got)
	}
	var ws Warnings
	ws.add(Warning{Kind: WarnReservedAction})
	if ws.Count(WarnReservedAction) != 1 || ws.Count(warnKinds) != 0 {
		t.Errorf("counts %d %d", ws.Count(WarnReservedAction), ws.Count(warnKinds))
	}
}

// A zero Warnings keeps PerKindLimit of a kind; one with a limit keeps that
// many; both count all.
func TestWarningsLimit(t *testing.T) {
	var zero Warnings
	lim := Warnings{limit: 2}
	for i := range PerKindLimit + 1 {
		zero.add(Warning{Kind: WarnKey, Offset: int64(i)})
		lim.add(Warning{Kind: WarnKey, Offset: int64(i)})
	}
	if len(zero.List) != PerKindLimit || zero.Counts[WarnKey] != PerKindLimit+1 {
		t.Errorf("zero: kept %d counted %d", len(zero.List), zero.Counts[WarnKey])
	}
	if len(lim.List) != 2 || lim.List[1].Offset != 1 || lim.Counts[WarnKey] != PerKindLimit+1 {
		t.Errorf("limit 2: kept %v counted %d", lim.List, lim.Counts[WarnKey])
	}
	// Through Limits: MaxWarnings 1 keeps one of the two unknown ids.
	tr := &Trace{Header: Header{Version: 2, Methods: []Method{{ID: 4, Class: "a.A"}}},
		Events: []Event{{1, Enter, 8, [2]uint32{}}, {1, Enter, 12, [2]uint32{}}}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadProfile(bytes.NewReader(b), BuildOptions{Limits: Limits{MaxWarnings: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings.List) != 1 || p.Warnings.Counts[WarnUnknownMethod] != 2 {
		t.Errorf("MaxWarnings 1: kept %v, counted %d", p.Warnings.List, p.Warnings.Counts[WarnUnknownMethod])
	}
	if got := (Limits{}).withDefaults().MaxWarnings; got != PerKindLimit {
		t.Errorf("default MaxWarnings %d", got)
	}
	if got := (Limits{MaxWarnings: 3}).withDefaults().MaxWarnings; got != 3 {
		t.Errorf("MaxWarnings 3 became %d", got)
	}
}

// A key whose *end has no newline (a split key file): read, with a warning
// that names the line.
func TestKeyEndWithoutNewline(t *testing.T) {
	key := "*version\n2\nclock=thread-cpu\n*threads\n*methods\n0x4\ta.A\tf\t()V\n*end"
	tr := &Trace{Header: Header{Version: 2, Methods: []Method{{ID: 4, Class: "a.A", Name: "f", Signature: "()V"}}},
		Events: []Event{{1, Enter, 4, [2]uint32{1}}, {1, Exit, 4, [2]uint32{3}}}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	data := b[bytes.Index(b, []byte("*end\n"))+5:]
	p, err := ReadProfileSplit(strings.NewReader(key), bytes.NewReader(data), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{{Kind: WarnKey, Part: "key", Offset: int64(len(key) - 4), Message: "line 7: *end line has no newline"}}
	if !equalWarnings(p.Warnings.List, want) || p.Records != 2 {
		t.Errorf("warnings %v, want %v; %d records", p.Warnings.List, want, p.Records)
	}
}

func equalWarnings(a, b []Warning) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The key may be exactly Limits.MaxKeyBytes long, not one byte more.
func TestKeyBytesLimitExact(t *testing.T) {
	tr := &Trace{Header: Header{Version: 2, Methods: []Method{{ID: 4, Class: "a.A"}}},
		Events: []Event{{1, Enter, 4, [2]uint32{1}}}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	n := int64(bytes.Index(b, []byte("*end\n")) + 5)
	p, err := ReadProfile(bytes.NewReader(b), BuildOptions{Limits: Limits{MaxKeyBytes: n}})
	if err != nil {
		t.Fatalf("key of exactly the limit: %v", err)
	}
	if p.Header.KeyBytes != n {
		t.Errorf("KeyBytes %d, want %d", p.Header.KeyBytes, n)
	}
	_, err = ReadProfile(bytes.NewReader(b), BuildOptions{Limits: Limits{MaxKeyBytes: n - 1}})
	if !errors.Is(err, ErrLimit) {
		t.Errorf("key one byte over the limit: %v", err)
	}
}

// Unknown sections and option lines are quoted in warnings up to 60 bytes.
func TestKeyMessageTruncation(t *testing.T) {
	s60 := strings.Repeat("x", 60)
	if got := truncateForMessage([]byte(s60)); got != s60 {
		t.Errorf("60 bytes: %q", got)
	}
	if got := truncateForMessage([]byte(s60 + "y")); got != s60+"…" {
		t.Errorf("61 bytes: %q", got)
	}
}

// An empty key line is skipped, wherever it is.
func TestKeyEmptyLines(t *testing.T) {
	text := "*version\n\n2\n\n*threads\n\n1\tmain\n*methods\n\n0x4\ta.A\tf\t()V\n*end\n"
	kp := keyParser{src: newSourceBytes([]byte(text)), lim: Limits{}.withDefaults(), ws: &Warnings{}}
	h, err := kp.parse()
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != 2 || len(h.Threads) != 1 || len(h.Methods) != 1 || h.KeyBytes != int64(len(text)) || len(kp.ws.List) != 0 {
		t.Errorf("%+v warnings %v", h, kp.ws.List)
	}
}

func TestMethodLineShapes(t *testing.T) {
	for _, c := range []struct {
		m    Method
		line string
	}{
		{Method{ID: 4, Class: "a.A"}, "0x4\ta.A"},
		{Method{ID: 4, Class: "a.A", Name: "f"}, "0x4\ta.A\tf\t"},
		{Method{ID: 4, Class: "a.A", Signature: "()V"}, "0x4\ta.A\t\t()V"},
		{Method{ID: 4, Class: "a.A", File: "A.java"}, "0x4\ta.A\t\t\tA.java"},
		{Method{ID: 4, Class: "a.A", Line: 7}, "0x4\ta.A\t\t\t\t7"},
		{Method{ID: 0, Class: "a.A", Name: "f", Signature: "()V", File: "A.java"}, "0\ta.A\tf\t()V\tA.java"},
	} {
		if got := formatMethodLine(&c.m); got != c.line {
			t.Errorf("%+v: %q, want %q", c.m, got, c.line)
		}
		back, problem := parseMethodLine(c.line)
		if problem != "" || back != c.m {
			t.Errorf("%q read back as %+v (%s)", c.line, back, problem)
		}
	}
	if m, problem := parseMethodLine("0X10\ta.A\tf"); problem != "" || m != (Method{ID: 0x10, Class: "a.A", Name: "f"}) {
		t.Errorf("three fields, 0X: %+v %q", m, problem)
	}
}

func TestThreadLineSeparators(t *testing.T) {
	for _, c := range []struct {
		line, problem string
		want          Thread
	}{
		{"\tmain", `thread id "" is not a number`, Thread{}},
		{" main", `thread id "" is not a number`, Thread{}},
		{"7 main thread", "", Thread{7, "main thread"}},
		{"0x10\tmain", "", Thread{16, "main"}},
		{"main", "thread line has no name", Thread{}},
	} {
		got, problem := parseThreadLine(c.line)
		if got != c.want || problem != c.problem {
			t.Errorf("%q: %+v %q, want %+v %q", c.line, got, problem, c.want, c.problem)
		}
	}
}

// A ten-byte LEB128 value that never ends is too long, not truncated.
func TestLEB128TenBytes(t *testing.T) {
	ten := bytes.Repeat([]byte{0x80}, 10)
	if _, k := uleb128(ten); k != -1 {
		t.Errorf("uleb128 of ten continuation bytes: k=%d, want -1", k)
	}
	if _, k := uleb128(ten[:9]); k != 0 {
		t.Errorf("uleb128 of nine: k=%d, want 0", k)
	}
	if _, k := sleb128(ten); k != -1 {
		t.Errorf("sleb128 of ten continuation bytes: k=%d, want -1", k)
	}
	if _, k := sleb128(ten[:9]); k != 0 {
		t.Errorf("sleb128 of nine: k=%d, want 0", k)
	}
}

func TestCallTreePath(t *testing.T) {
	p := goldenProfile(t, BuildOptions{CallTree: true})
	tree := p.Thread(1).Tree
	if tree.Parent(0) != -1 || tree.Method(0) != TopLevel {
		t.Fatalf("root: parent %d method %d", tree.Parent(0), tree.Method(0))
	}
	var paths []string
	for n := range int32(tree.Len()) {
		var names []string
		for _, m := range tree.Path(n) {
			names = append(names, p.Name(m))
		}
		paths = append(paths, strings.Join(names, ">"))
	}
	// Depth first; a node's children most recently called first.
	want := []string{"", "a.A.run", "a.A.run>(unknown)", "a.A.run>a.C.loop", "a.A.run>a.C.loop>a.C.loop", "a.A.run>a.B.<init>"}
	if strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Errorf("paths %q, want %q", paths, want)
	}
}

// Chrome's pid is the pid option when it is a positive number, else 1; the
// process is named "dmtrace" without a vm option; a single clock has no
// CPU durations.
func TestChromePidAndSingleClock(t *testing.T) {
	for _, c := range []struct {
		pid  string
		want string
	}{{"0", `"pid":1,`}, {"-3", `"pid":1,`}, {"x", `"pid":1,`}, {"1", `"pid":1,`}, {"2", `"pid":2,`}} {
		tr := &Trace{Header: Header{Version: 2, Options: []Option{{"pid", c.pid}},
			Methods: []Method{{ID: 4, Class: "a.A", Name: "f"}}},
			Events: []Event{{1, Enter, 4, [2]uint32{5}}, {1, Exit, 4, [2]uint32{9}}}}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(bytes.NewReader(b), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		cw := NewChromeWriter(rd.Header())
		p, err := Build(rd, BuildOptions{OnCall: cw.Collect})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := cw.WriteTo(&out, p); err != nil {
			t.Fatal(err)
		}
		want := `{"displayTimeUnit":"ms","otherData":{"producer":"ddmtui","clock":"thread-cpu"},"traceEvents":[
{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"dmtrace"}},
{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"thread 1"}},
{"name":"a.A.f","cat":"method","ph":"X","pid":1,"tid":1,"ts":5,"dur":4,"args":{"signature":""}}
]}
`
		want = strings.ReplaceAll(want, `"pid":1,`, c.want)
		if out.String() != want {
			t.Errorf("pid %q:\n%s\nwant\n%s", c.pid, out.String(), want)
		}
	}
}

// A thread's methods and edges come out sorted however they were first
// used: methods by index, edges by (caller, callee), callers by caller.
func TestGraphOrder(t *testing.T) {
	p := goldenProfile(t, BuildOptions{})
	g := &p.Thread(1).Graph
	var methods []int32
	for _, m := range g.Methods {
		methods = append(methods, m.Index)
	}
	// First used in the order a.A (2), a.B (3), a.C (4), (unknown) (1).
	if want := []int32{TopLevel, Unknown, 2, 3, 4}; !slices.Equal(methods, want) {
		t.Errorf("methods %v, want %v", methods, want)
	}
	var edges [][2]int32
	for _, e := range g.Edges {
		edges = append(edges, [2]int32{e.Caller, e.Callee})
	}
	// Completed in the order 2→3, 4→4, 2→4, 2→1, 0→2.
	if want := [][2]int32{{0, 2}, {2, 1}, {2, 3}, {2, 4}, {4, 4}}; !slices.Equal(edges, want) {
		t.Errorf("edges %v, want %v", edges, want)
	}
	if s := g.Stats(4); s.Calls != 2 || s.RecursiveCalls != 1 || s.Inclusive != [2]uint64{20, 30} {
		t.Errorf("a.C on thread 1: %+v", s)
	}
	var callers []int32
	for _, e := range p.All.Callers(3) {
		callers = append(callers, e.Caller)
	}
	if want := []int32{0, 2, 4}; !slices.Equal(callers, want) {
		t.Errorf("callers of a.B %v, want %v", callers, want)
	}
	var tcallers []int32
	for _, e := range g.Callers(4) {
		tcallers = append(tcallers, e.Caller)
	}
	if want := []int32{2, 4}; !slices.Equal(tcallers, want) {
		t.Errorf("callers of a.C on thread 1 %v, want %v", tcallers, want)
	}
}

// In a larger graph (past the sizes sorted by insertion) every method's
// callers come out by ascending caller, and each edge once.
func TestCallersOrderLarge(t *testing.T) {
	tr, err := Synth{Seed: 3, Records: 20000, Methods: 200}.Trace()
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for i := range int32(len(p.Methods)) {
		cs := p.All.Callers(i)
		for k := range cs {
			if cs[k].Callee != i || k > 0 && cs[k-1].Caller >= cs[k].Caller {
				t.Fatalf("callers of %d: %v", i, cs)
			}
		}
		seen += len(cs)
	}
	if seen != len(p.All.Edges) || seen < 100 {
		t.Errorf("%d edges through Callers, %d in the graph", seen, len(p.All.Edges))
	}
}

// JSON lists "(unknown)" when an unknown method was called, even for no
// time, and not otherwise.
func TestJSONUnknownListedWhenCalled(t *testing.T) {
	for _, c := range []struct {
		id      uint32
		methods int
		want    string
	}{
		{4, 1, `"id":4,"class":"a.A","method":"f","signature":"","calls":1,`},
		{8, 2, `"id":-1,"class":"(unknown)","method":"","signature":"","calls":1,`},
	} {
		tr := &Trace{Header: Header{Version: 2, Methods: []Method{{ID: 4, Class: "a.A", Name: "f"}}},
			Events: []Event{{1, Enter, c.id, [2]uint32{5}}, {1, Exit, c.id, [2]uint32{5}}}}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		json := p.JSON()
		if c.id == 4 && json.Warnings != nil {
			t.Errorf("no warnings, but %+v", json.Warnings)
		}
		if len(json.Methods) != c.methods {
			t.Errorf("id %#x: %d methods listed: %+v", c.id, len(json.Methods), json.Methods)
		}
		if err := WriteJSON(&out, p); err != nil {
			t.Fatal(err)
		}
		compact := strings.Join(strings.Fields(out.String()), "")
		if !strings.Contains(compact, c.want) {
			t.Errorf("id %#x: no %s in %s", c.id, c.want, compact)
		}
	}
}

// Methods with equal inclusive times are listed by id, whatever their key
// order.
func TestJSONTiesByID(t *testing.T) {
	tr := &Trace{Header: Header{Version: 2, Methods: []Method{{ID: 0x20, Class: "b.B"}, {ID: 0x10, Class: "a.A"}, {ID: 0x30, Class: "c.C"}}},
		Events: []Event{{1, Enter, 0x30, [2]uint32{5}}, {1, Exit, 0x30, [2]uint32{6}}}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, m := range p.JSON().Methods {
		ids = append(ids, m.ID)
	}
	if want := []int64{0x30, 0x10, 0x20}; !slices.Equal(ids, want) {
		t.Errorf("ids %#x, want %#x", ids, want)
	}
}

// A data offset equal to the fixed header (16 bytes for version 2, 18 for
// version 3) is valid: records start right after it. One less is refused.
func TestDataOffsetAtHeaderSize(t *testing.T) {
	for _, c := range []struct{ version, offset int }{{2, 16}, {3, 18}} {
		tr := &Trace{Header: Header{Version: c.version, DataOffset: c.offset, Methods: []Method{{ID: 4, Class: "a.A"}}},
			Events: []Event{{1, Enter, 4, [2]uint32{1, 1}}, {1, Exit, 4, [2]uint32{3, 4}}}}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
		if err != nil {
			t.Fatalf("version %d offset %d: %v", c.version, c.offset, err)
		}
		if p.Records != 2 || p.Header.DataOffset != c.offset || p.All.Stats(firstKeyMethod).Inclusive[ClockCPU] != 2 {
			t.Errorf("version %d: %d records, offset %d, %+v", c.version, p.Records, p.Header.DataOffset, p.All.Stats(firstKeyMethod))
		}
		keyLen := bytes.Index(b, []byte("*end\n")) + 5
		b[keyLen+6] = byte(c.offset - 1)
		_, err = ReadProfile(bytes.NewReader(b), BuildOptions{})
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrMalformed) || fe.Offset != int64(keyLen+6) {
			t.Errorf("version %d offset %d: %v", c.version, c.offset-1, err)
		}
	}
}

// An exit of a method that is not on the stack is ignored, however deep
// the stack; one whose frame is further down closes the frames above it.
func TestExitNotOnTop(t *testing.T) {
	m := []Method{{ID: 4, Class: "a.A", Name: "a"}, {ID: 8, Class: "a.B", Name: "b"}, {ID: 12, Class: "a.C", Name: "c"}}
	for _, c := range []struct {
		events       []Event
		warning      string
		aIncl, bIncl uint64
	}{
		{[]Event{{1, Enter, 4, [2]uint32{1}}, {1, Enter, 8, [2]uint32{2}}, {1, Exit, 12, [2]uint32{5}}, {1, Enter, 4, [2]uint32{10}}},
			"thread 1: exit from a.C.c, which is not on the stack (top is a.B.b); record ignored", 9, 8},
		{[]Event{{1, Enter, 4, [2]uint32{1}}, {1, Enter, 8, [2]uint32{2}}, {1, Exit, 4, [2]uint32{5}}, {1, Enter, 4, [2]uint32{10}}},
			"thread 1: exit from a.A.a while a.B.b is on top; 1 frames without exits closed here", 4, 3},
		{[]Event{{1, Enter, 4, [2]uint32{1}}, {1, Enter, 8, [2]uint32{2}}, {1, Enter, 12, [2]uint32{3}}, {1, Enter, 12, [2]uint32{4}}, {1, Exit, 8, [2]uint32{6}}},
			"thread 1: exit from a.B.b while a.C.c is on top; 2 frames without exits closed here", 5, 4},
	} {
		tr := &Trace{Header: Header{Version: 2, Methods: m}, Events: c.events}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Warnings.List) != 1 || p.Warnings.List[0].Message != c.warning {
			t.Errorf("%s: warnings %v", c.warning, p.Warnings.List)
		}
		a, bs := p.All.Stats(firstKeyMethod), p.All.Stats(firstKeyMethod+1)
		if a.Inclusive[ClockCPU] != c.aIncl || bs.Inclusive[ClockCPU] != c.bIncl {
			t.Errorf("%s: a %+v b %+v", c.warning, a, bs)
		}
	}
}

// In the time-first V2 layout the reader keeps each thread's open entries
// within 4 × MaxStackDepth in all; closed calls give their room back, so
// many shallow calls are all read.
func TestV2TimeFirstStackRoomGivenBack(t *testing.T) {
	var ev []Event
	for i := range uint32(20) {
		ev = append(ev, Event{1, Enter, 4, [2]uint32{10 * i, 10 * i}}, Event{1, Exit, 4, [2]uint32{10*i + 3, 10*i + 3}})
	}
	tr := &Trace{Header: Header{Version: 3, Clocks: Dual, Methods: []Method{{ID: 4, Class: "a.A", Name: "f"}}}, Events: ev}
	var b bytes.Buffer
	if err := EncodeV2(&b, tr, V2Options{Layout: V2TimeFirst}); err != nil {
		t.Fatal(err)
	}
	p, err := ReadProfile(bytes.NewReader(b.Bytes()), BuildOptions{Limits: Limits{MaxStackDepth: 2}})
	if err != nil {
		t.Fatal(err)
	}
	s := p.All.Stats(firstKeyMethod)
	if s.Calls != 20 || s.Inclusive != [2]uint64{60, 60} || p.Warnings.Total() != 0 {
		t.Errorf("%+v, warnings %v", s, p.Warnings.List)
	}
}

// OnCall reports each call's depth: 0 for a call made with an empty stack,
// also for calls still open at the end and those closed by unwinding.
func TestOnCallDepths(t *testing.T) {
	m := []Method{{ID: 4, Class: "a.A"}, {ID: 8, Class: "a.B"}, {ID: 12, Class: "a.C"}}
	tr := &Trace{Header: Header{Version: 2, Methods: m}, Events: []Event{
		{1, Enter, 4, [2]uint32{1}}, {1, Enter, 8, [2]uint32{2}}, {1, Enter, 12, [2]uint32{3}},
		{1, Exit, 8, [2]uint32{4}},                                // closes C (unwound) and B
		{1, Enter, 8, [2]uint32{5}}, {1, Enter, 12, [2]uint32{6}}, // open at the end
	}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	_, err = ReadProfile(bytes.NewReader(b), BuildOptions{OnCall: func(c *Call) {
		got = append(got, fmt.Sprintf("%d@%d/%d", c.Method, c.Depth, c.Kind))
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := "4@2/2 3@1/0 4@2/3 3@1/3 2@0/3"
	if strings.Join(got, " ") != want {
		t.Errorf("calls %q, want %q", strings.Join(got, " "), want)
	}
}

// Record threads take their key thread by exact id first, by the low 16
// bits of a key id only in a second round, and keep the first they take.
func TestThreadNamesExactBeforeLowBits(t *testing.T) {
	tr := &Trace{Header: Header{Version: 2, Methods: []Method{{ID: 4, Class: "a.A"}},
		Threads: []Thread{{0x10005, "low-bits"}, {5, "exact"}, {1, "one"}, {0x10001, "other"}}},
		Events: []Event{{5, Enter, 4, [2]uint32{1}}, {1, Enter, 4, [2]uint32{1}}}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range p.Threads {
		got = append(got, fmt.Sprintf("%#x %s %d", th.ID, th.Name, th.Records))
	}
	want := "0x10005 low-bits 0|0x5 exact 1|0x1 one 1|0x10001 other 0"
	if strings.Join(got, "|") != want {
		t.Errorf("threads %q, want %q", strings.Join(got, "|"), want)
	}
}
