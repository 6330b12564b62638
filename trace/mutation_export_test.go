package trace

import (
	"bytes"
	"testing"
)

// goldenTrace is a small dual-clock trace that reaches every branch of the
// exports: a thread named in the key, one that is not, a key thread without
// records, recursion, an unknown method id, an exit with an empty stack, a
// call still open at the end, methods with equal inclusive times, options
// with a repeated key, and a method exactly at DOT's default threshold.
//
// CPU totals: thread 1 spans 100 µs, thread 7 25 µs, thread 2 0 µs: 125.
// a.B's inclusive CPU time is 20+5+0 = 25, exactly 20% of 125.
func goldenTrace(t *testing.T) []byte {
	t.Helper()
	tr := &Trace{Header: Header{Version: 3, Clocks: Dual, StartTime: 1700000000000000,
		Options: []Option{{"clock", "dual"}, {"vm", "art"}, {"pid", "4321"}, {"pid", "99"}, {"x", "1"}},
		Threads: []Thread{{1, "main"}, {2, "bg;x"}, {3, "idle"}},
		Methods: []Method{
			{ID: 0x10, Class: "a.A", Name: "run", Signature: "()V", File: "A.java"},
			{ID: 0x20, Class: "a.B", Name: "<init>", Signature: "(I)V"},
			{ID: 0x30, Class: "a.C", Name: "loop", Signature: "()V"},
			{ID: 0x40, Class: "a.D", Name: "idle", Signature: "()V"},
			{ID: 0x44, Class: "a.E", Name: "tie", Signature: "()V"},
		}},
		Events: []Event{
			{1, Enter, 0x10, [2]uint32{0, 0}},
			{1, Enter, 0x20, [2]uint32{10, 15}},
			{1, Exit, 0x20, [2]uint32{30, 40}},
			{1, Enter, 0x30, [2]uint32{30, 40}},
			{1, Enter, 0x30, [2]uint32{35, 50}},
			{1, Exit, 0x30, [2]uint32{45, 60}},
			{1, Exit, 0x30, [2]uint32{50, 70}},
			{7, Enter, 0x44, [2]uint32{0, 5}},
			{7, Exit, 0x44, [2]uint32{20, 25}},
			{7, Enter, 0x20, [2]uint32{20, 25}},
			{7, Exit, 0x20, [2]uint32{25, 30}},
			{1, Enter, 0x98, [2]uint32{50, 70}},
			{1, Exit, 0x98, [2]uint32{60, 75}},
			{1, Exit, 0x10, [2]uint32{100, 120}},
			{2, Exit, 0x10, [2]uint32{5, 10}},
			{2, Enter, 0x30, [2]uint32{5, 12}},
			{2, Enter, 0x20, [2]uint32{5, 13}},
			{2, Exit, 0x20, [2]uint32{5, 13}},
		}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func goldenProfile(t *testing.T, opt BuildOptions) *Profile {
	t.Helper()
	p, err := ReadProfile(bytes.NewReader(goldenTrace(t)), opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// goldenOutputs writes every export of the golden trace, one after the
// other, so one comparison states them all.
func goldenOutputs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	var b bytes.Buffer
	if err := WriteJSON(&b, goldenProfile(t, BuildOptions{})); err != nil {
		t.Fatal(err)
	}
	out["json"] = b.String()
	p := goldenProfile(t, BuildOptions{})
	for name, opt := range map[string]DOTOptions{
		"dot-default": {},
		"dot-all":     {ThresholdPercent: -1},
		"dot-wall-10": {Clock: ClockWall, ThresholdPercent: 10},
	} {
		b.Reset()
		if err := WriteDOT(&b, p, opt); err != nil {
			t.Fatal(err)
		}
		out[name] = b.String()
	}
	rd, err := NewReader(bytes.NewReader(goldenTrace(t)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cw := NewChromeWriter(rd.Header())
	p, err = Build(rd, BuildOptions{OnCall: cw.Collect, CallTree: true})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if _, err := cw.WriteTo(&b, p); err != nil {
		t.Fatal(err)
	}
	out["chrome"] = b.String()
	for name, c := range map[string]Clock{"folded-cpu": ClockCPU, "folded-wall": ClockWall} {
		b.Reset()
		if err := WriteFolded(&b, p, c); err != nil {
			t.Fatal(err)
		}
		out[name] = b.String()
	}
	return out
}

// TestGoldenExports states every export of goldenTrace byte for byte.
func TestGoldenExports(t *testing.T) {
	got := goldenOutputs(t)
	for name, want := range goldenWant {
		if got[name] != want {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", name, got[name], want)
		}
	}
	if len(got) != len(goldenWant) {
		t.Errorf("%d outputs, %d expected", len(got), len(goldenWant))
	}
}

var goldenWant = map[string]string{
	"chrome": `{"displayTimeUnit":"ms","otherData":{"producer":"ddmtui","clock":"dual"},"traceEvents":[
{"name":"process_name","ph":"M","pid":4321,"tid":0,"args":{"name":"art pid 4321"}},
{"name":"thread_name","ph":"M","pid":4321,"tid":1,"args":{"name":"main"}},
{"name":"thread_name","ph":"M","pid":4321,"tid":2,"args":{"name":"bg;x"}},
{"name":"thread_name","ph":"M","pid":4321,"tid":7,"args":{"name":"thread 7"}},
{"name":"a.A.run","cat":"method","ph":"X","pid":4321,"tid":1,"ts":0,"dur":120,"args":{"signature":"()V","cpu_dur_us":100}},
{"name":"a.B.\u003cinit\u003e","cat":"method","ph":"X","pid":4321,"tid":1,"ts":15,"dur":25,"args":{"signature":"(I)V","cpu_dur_us":20}},
{"name":"a.C.loop","cat":"method","ph":"X","pid":4321,"tid":1,"ts":40,"dur":30,"args":{"signature":"()V","cpu_dur_us":20}},
{"name":"a.C.loop","cat":"method","ph":"X","pid":4321,"tid":1,"ts":50,"dur":10,"args":{"signature":"()V","cpu_dur_us":10}},
{"name":"(unknown)","cat":"method","ph":"X","pid":4321,"tid":1,"ts":70,"dur":5,"args":{"signature":"","cpu_dur_us":10}},
{"name":"a.A.run","cat":"method","ph":"X","pid":4321,"tid":2,"ts":0,"dur":10,"args":{"signature":"()V","cpu_dur_us":5}},
{"name":"a.C.loop","cat":"method","ph":"X","pid":4321,"tid":2,"ts":12,"dur":1,"args":{"signature":"()V","cpu_dur_us":0}},
{"name":"a.B.\u003cinit\u003e","cat":"method","ph":"X","pid":4321,"tid":2,"ts":13,"dur":0,"args":{"signature":"(I)V","cpu_dur_us":0}},
{"name":"a.E.tie","cat":"method","ph":"X","pid":4321,"tid":7,"ts":5,"dur":20,"args":{"signature":"()V","cpu_dur_us":20}},
{"name":"a.B.\u003cinit\u003e","cat":"method","ph":"X","pid":4321,"tid":7,"ts":25,"dur":5,"args":{"signature":"(I)V","cpu_dur_us":5}}
]}
`,
	"dot-all": `digraph g {
node [shape = record,height=.1];
node0[label = "[0] (toplevel) (0.125 ms, 0.000 ms, 0)"];
node1[label = "[1] a.A.run (0.105 ms, 0.050 ms, 2)"];
node2[label = "[2] a.B.\<init\> (0.025 ms, 0.025 ms, 3)"];
node3[label = "[3] a.C.loop (0.020 ms, 0.020 ms, 3)"];
node4[label = "[4] a.E.tie (0.020 ms, 0.020 ms, 1)"];
node5[label = "[5] (unknown) (0.010 ms, 0.010 ms, 1)"];
node0 -> node1 [label = "2"];
node0 -> node2 [label = "1"];
node0 -> node3 [label = "1"];
node0 -> node4 [label = "1"];
node1 -> node5 [label = "1"];
node1 -> node2 [label = "1"];
node1 -> node3 [label = "1"];
node3 -> node2 [label = "1"];
node3 -> node3 [label = "1"];
}
`,
	"dot-default": `digraph g {
node [shape = record,height=.1];
node0[label = "[0] (toplevel) (0.125 ms, 0.000 ms, 0)"];
node1[label = "[1] a.A.run (0.105 ms, 0.050 ms, 2)"];
node2[label = "[2] a.B.\<init\> (0.025 ms, 0.025 ms, 3)"];
node0 -> node1 [label = "2"];
node0 -> node2 [label = "1"];
node1 -> node2 [label = "1"];
}
`,
	"dot-wall-10": `digraph g {
node [shape = record,height=.1];
node0[label = "[0] (toplevel) (0.148 ms, 0.002 ms, 0)"];
node1[label = "[1] a.A.run (0.130 ms, 0.060 ms, 2)"];
node2[label = "[2] a.C.loop (0.031 ms, 0.031 ms, 3)"];
node3[label = "[3] a.B.\<init\> (0.030 ms, 0.030 ms, 3)"];
node4[label = "[4] a.E.tie (0.020 ms, 0.020 ms, 1)"];
node0 -> node1 [label = "2"];
node0 -> node3 [label = "1"];
node0 -> node2 [label = "1"];
node0 -> node4 [label = "1"];
node1 -> node3 [label = "1"];
node1 -> node2 [label = "1"];
node2 -> node3 [label = "1"];
node2 -> node2 [label = "1"];
}
`,
	"folded-cpu": `main (1);a.A.run 50
main (1);a.A.run;(unknown) 10
main (1);a.A.run;a.B.<init> 20
main (1);a.A.run;a.C.loop 10
main (1);a.A.run;a.C.loop;a.C.loop 10
thread 7;a.B.<init> 5
thread 7;a.E.tie 20
`,
	"folded-wall": `bg:x (2) 2
bg:x (2);a.C.loop 1
main (1);a.A.run 60
main (1);a.A.run;(unknown) 5
main (1);a.A.run;a.B.<init> 25
main (1);a.A.run;a.C.loop 20
main (1);a.A.run;a.C.loop;a.C.loop 10
thread 7;a.B.<init> 5
thread 7;a.E.tie 20
`,
	"json": `{
  "version": 3,
  "clock": "dual",
  "records": 18,
  "start_time_usec": 1700000000000000,
  "total_cpu_usec": 125,
  "total_wall_usec": 148,
  "total_threads": 3,
  "span_wall_usec": 120,
  "options": {
    "clock": "dual",
    "pid": "4321",
    "vm": "art",
    "x": "1"
  },
  "threads": [
    {
      "id": 1,
      "name": "main",
      "records": 10,
      "cpu_usec": 100,
      "wall_usec": 120
    },
    {
      "id": 2,
      "name": "bg;x",
      "records": 4,
      "cpu_usec": 0,
      "wall_usec": 3
    },
    {
      "id": 3,
      "name": "idle",
      "records": 0,
      "cpu_usec": 0,
      "wall_usec": 0
    },
    {
      "id": 7,
      "name": "",
      "records": 4,
      "cpu_usec": 25,
      "wall_usec": 25
    }
  ],
  "methods": [
    {
      "id": 16,
      "class": "a.A",
      "method": "run",
      "signature": "()V",
      "file": "A.java",
      "calls": 2,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 105,
      "exclusive_cpu_usec": 50,
      "inclusive_wall_usec": 130,
      "exclusive_wall_usec": 60
    },
    {
      "id": 32,
      "class": "a.B",
      "method": "<init>",
      "signature": "(I)V",
      "calls": 3,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 25,
      "exclusive_cpu_usec": 25,
      "inclusive_wall_usec": 30,
      "exclusive_wall_usec": 30
    },
    {
      "id": 48,
      "class": "a.C",
      "method": "loop",
      "signature": "()V",
      "calls": 3,
      "recursive_calls": 1,
      "inclusive_cpu_usec": 20,
      "exclusive_cpu_usec": 20,
      "inclusive_wall_usec": 31,
      "exclusive_wall_usec": 31
    },
    {
      "id": 68,
      "class": "a.E",
      "method": "tie",
      "signature": "()V",
      "calls": 1,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 20,
      "exclusive_cpu_usec": 20,
      "inclusive_wall_usec": 20,
      "exclusive_wall_usec": 20
    },
    {
      "id": -1,
      "class": "(unknown)",
      "method": "",
      "signature": "",
      "calls": 1,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 10,
      "exclusive_cpu_usec": 10,
      "inclusive_wall_usec": 5,
      "exclusive_wall_usec": 5
    },
    {
      "id": 64,
      "class": "a.D",
      "method": "idle",
      "signature": "()V",
      "calls": 0,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 0,
      "exclusive_cpu_usec": 0,
      "inclusive_wall_usec": 0,
      "exclusive_wall_usec": 0
    }
  ],
  "edges": [
    {
      "callee": 16,
      "calls": 2,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 105,
      "inclusive_wall_usec": 130
    },
    {
      "callee": 32,
      "calls": 1,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 5,
      "inclusive_wall_usec": 5
    },
    {
      "callee": 48,
      "calls": 1,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 0,
      "inclusive_wall_usec": 1
    },
    {
      "callee": 68,
      "calls": 1,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 20,
      "inclusive_wall_usec": 20
    },
    {
      "caller": 16,
      "callee": -1,
      "calls": 1,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 10,
      "inclusive_wall_usec": 5
    },
    {
      "caller": 16,
      "callee": 32,
      "calls": 1,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 20,
      "inclusive_wall_usec": 25
    },
    {
      "caller": 16,
      "callee": 48,
      "calls": 1,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 20,
      "inclusive_wall_usec": 30
    },
    {
      "caller": 48,
      "callee": 32,
      "calls": 1,
      "recursive_calls": 0,
      "inclusive_cpu_usec": 0,
      "inclusive_wall_usec": 0
    },
    {
      "caller": 48,
      "callee": 48,
      "calls": 1,
      "recursive_calls": 1,
      "inclusive_cpu_usec": 10,
      "inclusive_wall_usec": 10
    }
  ],
  "unknown_method_ids": [
    152
  ],
  "warnings": {
    "total": 2,
    "by_kind": {
      "unknown-method": 1,
      "unmatched-exit": 1
    },
    "first": [
      {
        "kind": "unknown-method",
        "offset": 377,
        "message": "method id 0x98 is not in the key"
      },
      {
        "kind": "unmatched-exit",
        "offset": 419,
        "message": "thread 2: exit from a.A.run with an empty stack; counted from the trace start"
      }
    ]
  }
}
`,
}

// WriteJSON writes exactly what encoding/json writes for p.JSON(), for
// every clock kind, empty lists, and names that need escaping (quotes,
// backslashes, control characters, HTML characters, non-ASCII, invalid
// UTF-8, U+2028).
func TestWriteJSONEqualsEncodingJSON(t *testing.T) {
	odd := []string{"a\"b", `c\d`, "e\rf", "g\x01h", "<i&j>", "ü€", "k\xffl", "m\u2028n", "o\bp\fq"}
	for _, c := range []struct {
		version int
		clocks  Clocks
		methods []Method
		events  []Event
	}{
		{3, Dual, nil, nil},
		{2, CPUOnly, []Method{{ID: 4, Class: odd[0], Name: odd[1], Signature: odd[2], File: odd[3]}}, nil},
		{2, WallOnly, []Method{{ID: 4, Class: odd[4], Name: odd[5], Signature: odd[6], File: odd[7]}, {ID: 8, Class: odd[8]}},
			[]Event{{1, Enter, 4, [2]uint32{1, 1}}, {1, Enter, 8, [2]uint32{2, 2}}, {1, Exit, 8, [2]uint32{5, 5}}, {1, Exit, 4, [2]uint32{9, 9}}, {1, Enter, 12, [2]uint32{9, 9}}}},
		{3, Dual, []Method{{ID: 4, Class: "a.A", Name: "f", File: "A.java"}},
			[]Event{{1, Enter, 4, [2]uint32{1, 2}}, {2, Exit, 4, [2]uint32{3, 4}}, {1, Exit, 4, [2]uint32{5, 9}}}},
	} {
		tr := &Trace{Header: Header{Version: c.version, Clocks: c.clocks, Methods: c.methods, Threads: []Thread{{1, odd[2]}},
			Options: []Option{{"vm", odd[4]}}}, Events: c.events}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := encodeJSON(p.JSON(), "")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteJSON(&got, p); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("version %d %v:\n%s\nwant\n%s", c.version, c.clocks, got.String(), want)
		}
	}
}
