package trace

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

func TestJSONLeavesOutMissingClocks(t *testing.T) {
	for _, c := range []struct {
		clocks  Clocks
		present []string
		absent  []string
	}{
		{Dual, []string{"inclusive_cpu_usec", "exclusive_cpu_usec", "inclusive_wall_usec", "exclusive_wall_usec"}, nil},
		{CPUOnly, []string{"inclusive_cpu_usec", "exclusive_cpu_usec"}, []string{"inclusive_wall_usec", "exclusive_wall_usec"}},
		{WallOnly, []string{"inclusive_wall_usec", "exclusive_wall_usec"}, []string{"inclusive_cpu_usec", "exclusive_cpu_usec"}},
	} {
		s := Synth{Seed: 3, Records: 2000, Clocks: c.clocks, Methods: 40, UnknownMethods: 1}
		if c.clocks != Dual {
			s.Version = 2
		}
		tr, _ := s.Trace()
		b, _ := tr.MarshalBinary()
		p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := WriteJSON(&out, p); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Version int              `json:"version"`
			Clock   string           `json:"clock"`
			Threads []map[string]any `json:"threads"`
			Methods []map[string]any `json:"methods"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Version != s.Version && !(s.Version == 0 && doc.Version == 3) || doc.Clock != c.clocks.String() {
			t.Errorf("%v: version %d clock %q", c.clocks, doc.Version, doc.Clock)
		}
		if len(doc.Threads) != 4 || doc.Threads[0]["name"] != "main" || doc.Threads[0]["id"] != float64(4242) {
			t.Errorf("%v: threads %v", c.clocks, doc.Threads)
		}
		if len(doc.Methods) != 40 { // 39 in the key plus (unknown)
			t.Errorf("%v: %d methods", c.clocks, len(doc.Methods))
		}
		first := c.clocks.First()
		for i, m := range doc.Methods {
			for _, k := range []string{"id", "class", "method", "signature", "calls", "recursive_calls"} {
				if _, ok := m[k]; !ok {
					t.Fatalf("%v: method lacks %s: %v", c.clocks, k, m)
				}
			}
			for _, k := range c.present {
				if _, ok := m[k]; !ok {
					t.Fatalf("%v: method lacks %s: %v", c.clocks, k, m)
				}
			}
			for _, k := range c.absent {
				if _, ok := m[k]; ok {
					t.Fatalf("%v: method has %s although the trace lacks that clock", c.clocks, k)
				}
			}
			// Values are the profile's.
			idx := int32(Unknown)
			if id := int64(m["id"].(float64)); id >= 0 {
				for j := firstKeyMethod; j < len(p.Methods); j++ {
					if int64(p.Methods[j].ID) == id {
						idx = int32(j)
					}
				}
			}
			st := p.All.Stats(idx)
			key := "inclusive_cpu_usec"
			if first == ClockWall {
				key = "inclusive_wall_usec"
			}
			if m[key] != float64(st.Inclusive[first]) || m["calls"] != float64(st.Calls) {
				t.Fatalf("%v: method %v, profile %+v", c.clocks, m, st)
			}
			if i > 0 && doc.Methods[i-1][key].(float64) < m[key].(float64) {
				t.Fatalf("methods not sorted by inclusive time")
			}
		}
	}
}

func TestFoldedStacksAddUpToExclusiveTimes(t *testing.T) {
	tr, _ := Synth{Seed: 11, Records: 20000, Methods: 80}.Trace()
	b, _ := tr.MarshalBinary()
	p, err := ReadProfile(bytes.NewReader(b), BuildOptions{CallTree: true})
	if err != nil {
		t.Fatal(err)
	}
	// In the tree: self time per method equals its exclusive time, and per
	// thread all self time is the thread's traced time.
	for _, c := range []Clock{ClockCPU, ClockWall} {
		self := map[int32]uint64{}
		for _, tp := range p.Threads {
			var sum uint64
			for i := range int32(tp.Tree.Len()) {
				self[tp.Tree.Method(i)] += tp.Tree.Self(i, c)
				sum += tp.Tree.Self(i, c)
			}
			if sum != tp.Total()[c] {
				t.Errorf("thread %d clock %v: self sums to %d, traced %d", tp.ID, c, sum, tp.Total()[c])
			}
		}
		for _, ms := range p.All.Methods {
			if self[ms.Index] != ms.Exclusive[c] {
				t.Errorf("%s: tree self %d, exclusive %d", p.Name(ms.Index), self[ms.Index], ms.Exclusive[c])
			}
		}
	}
	var out bytes.Buffer
	if err := WriteFolded(&out, p, ClockCPU); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	paths := map[string]bool{}
	for _, l := range lines {
		path := l[:strings.LastIndexByte(l, ' ')]
		if paths[path] {
			t.Errorf("path %q twice", path)
		}
		paths[path] = true
	}
	var total uint64
	perLeaf := map[string]uint64{}
	for _, l := range lines {
		sp := strings.LastIndexByte(l, ' ')
		v, err := strconv.ParseUint(l[sp+1:], 10, 64)
		if err != nil || v == 0 {
			t.Fatalf("bad line %q", l)
		}
		frames := strings.Split(l[:sp], ";")
		if !strings.HasSuffix(frames[0], ")") { // "main (4242)"
			t.Fatalf("root frame is not the thread: %q", l)
		}
		perLeaf[frames[len(frames)-1]] += v
		total += v
	}
	if total != p.All.Total()[ClockCPU] {
		t.Errorf("folded total %d, traced %d", total, p.All.Total()[ClockCPU])
	}
	// Per class.method name (overloads merged), leaf sums are exclusive sums.
	want := map[string]uint64{}
	for _, ms := range p.All.Methods {
		if ms.Index != TopLevel {
			want[p.Name(ms.Index)] += ms.Exclusive[ClockCPU]
		}
	}
	for name, v := range want {
		if v != perLeaf[name] {
			t.Errorf("%s: folded leaves %d, exclusive %d", name, perLeaf[name], v)
		}
	}
	// Without call trees the export refuses.
	plain, _ := ReadProfile(bytes.NewReader(b), BuildOptions{})
	if err := WriteFolded(&out, plain, ClockCPU); err != ErrNoCallTree {
		t.Errorf("got %v", err)
	}
}

type chromeEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Ts   *uint64        `json:"ts"`
	Dur  uint64         `json:"dur"`
	Args map[string]any `json:"args"`
}

func TestChromeTraceNestsPerThread(t *testing.T) {
	for _, tr := range []*Trace{edgeCaseTrace(), must(Synth{Seed: 12, Records: 20000}.Trace())} {
		b, _ := tr.MarshalBinary()
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
		var doc struct {
			TraceEvents []chromeEvent `json:"traceEvents"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("not JSON: %v\n%.500s", err, out.String())
		}
		var calls int64
		for _, ms := range p.All.Methods {
			calls += ms.Calls
		}
		// Replay per thread in file order: every X event must lie inside
		// the enclosing open one (what a strict importer requires).
		type open struct{ end uint64 }
		stacks := map[int][]open{}
		var xs int64
		names := map[int]string{}
		for _, e := range doc.TraceEvents {
			switch e.Ph {
			case "M":
				if e.Name == "thread_name" {
					names[e.Tid] = e.Args["name"].(string)
				}
			case "X":
				xs++
				if e.Ts == nil {
					t.Fatalf("X event without ts: %+v", e)
				}
				st := stacks[e.Tid]
				for len(st) > 0 && st[len(st)-1].end <= *e.Ts {
					st = st[:len(st)-1] // ended before this one starts
				}
				if len(st) > 0 && *e.Ts+e.Dur > st[len(st)-1].end {
					t.Fatalf("thread %d: %s [%d,+%d] overlaps its parent ending at %d", e.Tid, e.Name, *e.Ts, e.Dur, st[len(st)-1].end)
				}
				stacks[e.Tid] = append(st, open{end: *e.Ts + e.Dur})
			}
		}
		if xs != calls {
			t.Errorf("%d X events, %d calls", xs, calls)
		}
		if names[int(tr.Threads[0].ID)] != tr.Threads[0].Name {
			t.Errorf("thread names %v", names)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestDOTLikeDmtracedump(t *testing.T) {
	p, err := ReadProfile(bytes.NewReader(specExampleBytes(t)), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteDOT(&out, p, DOTOptions{}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// dmtracedump -g on this file shows (toplevel), main and compute (abs is
	// under the 20% threshold) and the edges toplevel→main, main→compute,
	// toplevel→compute.
	for _, want := range []string{
		`node0[label = "[0] (toplevel) (0.070 ms, 0.000 ms, 0)"];`,
		`node1[label = "[1] com.example.Foo.main (0.070 ms, 0.030 ms, 1)"];`,
		`node2[label = "[2] com.example.Foo.compute (0.045 ms, 0.035 ms, 2)"];`,
		`node0 -> node1 [label = "1"];`, `node1 -> node2 [label = "1"];`, `node0 -> node2 [label = "1"];`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("DOT lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "abs") {
		t.Errorf("abs is below the threshold:\n%s", got)
	}
	if err := WriteDOT(&out, p, DOTOptions{ThresholdPercent: -1}); err != nil || !strings.Contains(out.String(), "java.lang.Math.abs") {
		t.Errorf("no threshold should show abs")
	}
}

func TestDOTEscapesHostileNames(t *testing.T) {
	tr := &Trace{Header: Header{Version: 2, Threads: []Thread{{1, "main"}},
		Methods: []Method{{ID: 4, Class: `a."B|{x}`, Name: "<init>", Signature: "()V"}, {ID: 8, Class: "c\x1bD", Name: `back\slash`}}},
		Events: []Event{{1, Enter, 4, [2]uint32{1}}, {1, Enter, 8, [2]uint32{2}}, {1, Exit, 8, [2]uint32{5}}, {1, Exit, 4, [2]uint32{9}}}}
	b, _ := tr.MarshalBinary()
	p, _ := ReadProfile(bytes.NewReader(b), BuildOptions{})
	var out bytes.Buffer
	WriteDOT(&out, p, DOTOptions{ThresholdPercent: -1})
	got := out.String()
	for _, want := range []string{`a.\"B\|\{x\}.\<init\>`, `c\\x1bD.back\\slash`} {
		if !strings.Contains(got, want) {
			t.Errorf("DOT lacks %s:\n%s", want, got)
		}
	}
	if strings.ContainsRune(got, 0x1b) {
		t.Error("control character in DOT output")
	}
	dot := testpeer.Require(t, "dot")
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = strings.NewReader(got)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("graphviz rejects the file: %v\n%s", err, msg)
	}
}
