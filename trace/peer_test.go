package trace

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// dmtProfile is what dmtracedump's default text output says about a trace,
// keyed by method name ("class.method signature", or "(toplevel)").
type dmtProfile struct {
	total     uint64
	exclusive map[string]uint64
	methods   map[string]*dmtMethod
}

type dmtMethod struct {
	calls, recursive  int64
	inclusive         uint64
	parents, children map[string]*dmtEdge
}

type dmtEdge struct {
	calls int64
	usecs uint64
}

var (
	dmtTotalRe    = regexp.MustCompile(`^Total cycles: (\d+)$`)
	dmtExclRe     = regexp.MustCompile(`^\s*(\d+)\s+[\d.]+\s+[\d.]+\s+\[(\d+)\] (.*)$`)
	dmtMainRe     = regexp.MustCompile(`^\[(\d+)\]\s+[\d.]+%\s+(\d+)\+(\d+)\s+(\d+) (.*)$`)
	dmtRelativeRe = regexp.MustCompile(`^\s+(?:[\d.]+%)?\s+\[(\d+)\]\s+(\d+)/(\d+)\s+(\d+) (.*)$`)
	dmtExclRowRe  = regexp.MustCompile(`^\s+[\d.]+%\s+excl\s+\d+$`)
)

// dmtName cuts a printed method name at its first tab: dmtracedump appends
// the source file of ART's five-field lines to the signature (spec §2.3).
func dmtName(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		return s[:i]
	}
	return s
}

// parseDmtracedump reads the "Total cycles", exclusive and inclusive sections
// of dmtracedump's default output.
func parseDmtracedump(t *testing.T, out []byte) *dmtProfile {
	t.Helper()
	p := &dmtProfile{exclusive: map[string]uint64{}, methods: map[string]*dmtMethod{}}
	const (
		none = iota
		excl
		incl
		done
	)
	section := none
	var block []string
	names := map[int]string{}
	var blocks [][]string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	sawTotal, started := false, false
	for sc.Scan() {
		line := sc.Text()
		if m := dmtTotalRe.FindStringSubmatch(line); m != nil {
			p.total, _ = strconv.ParseUint(m[1], 10, 64)
			sawTotal = true
			continue
		}
		switch {
		case strings.HasPrefix(line, "Exclusive elapsed times for each method"):
			section = excl
			continue
		case strings.HasPrefix(line, "Inclusive elapsed times"):
			section = incl
			continue
		case strings.HasPrefix(line, "======") && section == incl:
			if len(block) > 0 {
				blocks = append(blocks, block)
			}
			section = done
			continue
		}
		switch section {
		case excl:
			if m := dmtExclRe.FindStringSubmatch(line); m != nil {
				us, _ := strconv.ParseUint(m[1], 10, 64)
				idx, _ := strconv.Atoi(m[2])
				names[idx] = dmtName(m[3])
				p.exclusive[dmtName(m[3])] = us
			}
		case incl:
			if strings.HasPrefix(line, "-----") {
				started = true
				if len(block) > 0 {
					blocks = append(blocks, block)
				}
				block = nil
				continue
			}
			if started {
				block = append(block, line)
			}
		}
	}
	if !sawTotal || section != done {
		t.Fatalf("dmtracedump output not understood (total %v, section %d):\n%s", sawTotal, section, out)
	}
	// First pass: the main row of each block names its index.
	for _, b := range blocks {
		for _, line := range b {
			if m := dmtMainRe.FindStringSubmatch(line); m != nil {
				idx, _ := strconv.Atoi(m[1])
				names[idx] = dmtName(m[5])
			}
		}
	}
	for _, b := range blocks {
		var me *dmtMethod
		parents := map[string]*dmtEdge{}
		for _, line := range b {
			if strings.Contains(line, "+++++") || line == "" || dmtExclRowRe.MatchString(line) {
				continue
			}
			if m := dmtMainRe.FindStringSubmatch(line); m != nil {
				me = &dmtMethod{parents: parents, children: map[string]*dmtEdge{}}
				me.calls, _ = strconv.ParseInt(m[2], 10, 64)
				me.recursive, _ = strconv.ParseInt(m[3], 10, 64)
				me.calls += me.recursive
				me.inclusive, _ = strconv.ParseUint(m[4], 10, 64)
				p.methods[dmtName(m[5])] = me
				continue
			}
			m := dmtRelativeRe.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("unexpected dmtracedump line %q", line)
			}
			idx, _ := strconv.Atoi(m[1])
			name, ok := names[idx]
			if !ok {
				t.Fatalf("dmtracedump line %q refers to unnamed index %d", line, idx)
			}
			calls, _ := strconv.ParseInt(m[2], 10, 64)
			us, _ := strconv.ParseUint(m[4], 10, 64)
			// Rows before the main row are parents, after it children; the
			// recursive and non-recursive lists of a method are summed.
			list := parents
			if me != nil {
				list = me.children
			}
			e := list[name]
			if e == nil {
				e = &dmtEdge{}
				list[name] = e
			}
			e.calls += calls
			e.usecs += us
		}
		if me == nil {
			t.Fatalf("dmtracedump block without a main row: %q", b)
		}
	}
	return p
}

// ourName is the name dmtracedump prints for profile method i, up to a tab.
func ourName(p *Profile, i int32) string {
	m := &p.Methods[i]
	if i < firstKeyMethod || m.Name == "" {
		return m.Class
	}
	return m.Class + "." + m.Name + " " + m.Signature
}

// compareWithDmtracedump runs dmtracedump on the file and compares every
// number of its exclusive and inclusive profiles with ours on the first
// clock: total, exclusive per method, calls and recursive calls, inclusive,
// and the calls and time of every parent and child edge.
func compareWithDmtracedump(t *testing.T, dmtracedump, path string) {
	t.Helper()
	out, err := exec.Command(dmtracedump, path).Output()
	if err != nil {
		t.Fatalf("dmtracedump %s: %v", path, err)
	}
	want := parseDmtracedump(t, out)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ReadProfile(bufio.NewReader(f), BuildOptions{CallTree: true})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Clocks.First()
	compareTreesWithDmtracedump(t, p, want, c)
	if got := p.All.Total()[c]; got != want.total {
		t.Errorf("total: ours %d, dmtracedump %d", got, want.total)
	}
	compared := 0
	for _, ms := range p.All.Methods {
		name := ourName(p, ms.Index)
		if ms.Exclusive[c] != want.exclusive[name] {
			t.Errorf("%s exclusive: ours %d, dmtracedump %d", name, ms.Exclusive[c], want.exclusive[name])
		}
		if ms.Index == TopLevel {
			continue
		}
		dm := want.methods[name]
		if dm == nil {
			if ms.Calls != 0 {
				t.Errorf("%s: %d calls here, absent from dmtracedump's inclusive profile", name, ms.Calls)
			}
			continue
		}
		compared++
		if ms.Calls != dm.calls || ms.RecursiveCalls != dm.recursive || ms.Inclusive[c] != dm.inclusive {
			t.Errorf("%s: ours calls %d recursive %d inclusive %d; dmtracedump %d %d %d", name,
				ms.Calls, ms.RecursiveCalls, ms.Inclusive[c], dm.calls, dm.recursive, dm.inclusive)
		}
		compareEdges(t, p, name, "parent", p.All.Callers(ms.Index), func(e Edge) int32 { return e.Caller }, dm.parents, c)
		compareEdges(t, p, name, "child", p.All.Callees(ms.Index), func(e Edge) int32 { return e.Callee }, dm.children, c)
	}
	for name := range want.exclusive {
		if i := findByOurName(p, name); i < 0 || p.All.Stats(i).Exclusive[c] != want.exclusive[name] {
			t.Errorf("dmtracedump lists %s with exclusive %d; ours differs or lacks it", name, want.exclusive[name])
		}
	}
	if compared < 3 && len(want.methods) > 4 {
		t.Errorf("only %d methods compared", compared)
	}
	t.Logf("%s: %d methods and their edges equal dmtracedump's (total %d µs, %d records, %d warnings)",
		filepath.Base(path), compared, want.total, p.Records, p.Warnings.Total())
}

// compareTreesWithDmtracedump: the call trees' per-method sums (top down:
// exclusive; bottom up: calls, inclusive, exclusive) are dmtracedump's.
func compareTreesWithDmtracedump(t *testing.T, p *Profile, want *dmtProfile, c Clock) {
	t.Helper()
	var trees []*CallTree
	for i := range p.Threads {
		if p.Threads[i].Tree != nil {
			trees = append(trees, p.Threads[i].Tree)
		}
	}
	excl := map[string]uint64{}
	td := NewTopDownView(trees, c)
	excl[ourName(p, TopLevel)] = td.Nodes[0].Self[c]
	td.Walk(0, func(n int32, _ int) bool {
		excl[ourName(p, td.Nodes[n].Method)] += td.Nodes[n].Self[c]
		return true
	})
	for name, v := range want.exclusive {
		if excl[name] != v {
			t.Errorf("%s: top-down tree exclusive %d, dmtracedump %d", name, excl[name], v)
		}
	}
	bu := NewBottomUpView(trees, c)
	for n := range bu.Children(0) {
		nd := &bu.Nodes[n]
		name := ourName(p, nd.Method)
		if dm := want.methods[name]; dm != nil && (nd.Calls != dm.calls || nd.Inclusive[c] != dm.inclusive) {
			t.Errorf("%s: bottom-up tree calls %d inclusive %d, dmtracedump %d %d", name, nd.Calls, nd.Inclusive[c], dm.calls, dm.inclusive)
		}
		if nd.Self[c] != want.exclusive[name] {
			t.Errorf("%s: bottom-up tree exclusive %d, dmtracedump %d", name, nd.Self[c], want.exclusive[name])
		}
	}
}

func findByOurName(p *Profile, name string) int32 {
	for i := range p.Methods {
		if ourName(p, int32(i)) == name {
			return int32(i)
		}
	}
	return -1
}

func compareEdges(t *testing.T, p *Profile, name, role string, edges []Edge, other func(Edge) int32, want map[string]*dmtEdge, c Clock) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range edges {
		rel := ourName(p, other(e))
		seen[rel] = true
		w := want[rel]
		if w == nil {
			t.Errorf("%s: %s %s missing from dmtracedump", name, role, rel)
			continue
		}
		if w.calls != e.Calls || w.usecs != e.Inclusive[c] {
			t.Errorf("%s: %s %s: ours %d calls %d µs, dmtracedump %d calls %d µs", name, role, rel, e.Calls, e.Inclusive[c], w.calls, w.usecs)
		}
	}
	for rel := range want {
		if !seen[rel] {
			t.Errorf("%s: dmtracedump lists %s %s that we lack", name, role, rel)
		}
	}
}

func writeTraceFile(t *testing.T, dir, name string, tr *Trace) string {
	t.Helper()
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// edgeCaseTrace is a hand-written trace with every situation dmtracedump
// handles specially: exits with empty stacks on several threads (entered
// before tracing), unknown method ids on entry and exit, direct and mutual
// recursion, zero-length calls, thread switches in the middle of calls,
// an unroll exit, and calls still open when the trace ends.
func edgeCaseTrace() *Trace {
	m := func(i int) uint32 { return uint32(i) << 2 }
	tr := &Trace{Header: Header{Version: 3, Clocks: Dual,
		Threads: []Thread{{1, "main"}, {2, "worker"}, {3, "idle"}},
		Methods: []Method{
			{ID: m(0), Class: "a.A", Name: "run", Signature: "()V"},
			{ID: m(1), Class: "a.A", Name: "fib", Signature: "(I)I"},
			{ID: m(2), Class: "a.B", Name: "ping", Signature: "(I)V"},
			{ID: m(3), Class: "a.B", Name: "pong", Signature: "(I)V"},
			{ID: m(4), Class: "a.C", Name: "leaf", Signature: "()V"},
			{ID: m(5), Class: "a.C", Name: "outer", Signature: "()V"},
		}}}
	ev := func(th uint16, a Action, id uint32, cpu, wall uint32) {
		tr.Events = append(tr.Events, Event{Thread: th, Action: a, MethodID: id, Time: [2]uint32{cpu, wall}})
	}
	ev(2, Exit, m(4), 3, 4)    // worker: unmatched exit of leaf
	ev(1, Enter, m(0), 5, 5)   // main: run
	ev(1, Enter, m(1), 7, 8)   // fib
	ev(1, Enter, m(1), 9, 10)  // fib (recursive)
	ev(1, Enter, m(1), 9, 11)  // fib (recursive, zero cpu)
	ev(2, Enter, m(2), 6, 12)  // worker: ping
	ev(2, Enter, m(3), 8, 13)  // pong
	ev(2, Enter, m(2), 11, 15) // ping (mutual recursion)
	ev(1, Exit, m(1), 12, 16)
	ev(1, Exit, m(1), 15, 18)
	ev(1, Enter, 0x400, 16, 19) // unknown id
	ev(1, Exit, 0x400, 20, 22)
	ev(2, Unroll, m(2), 14, 23)
	ev(2, Exit, m(3), 14, 24)
	ev(1, Exit, m(1), 21, 26)
	ev(1, Enter, m(4), 21, 27)
	ev(1, Exit, m(4), 21, 27) // zero-length call
	ev(3, Exit, m(5), 2, 28)  // idle: unmatched exits only
	ev(3, Exit, m(0), 2, 29)
	ev(1, Enter, m(5), 30, 31)
	ev(1, Enter, m(4), 31, 33) // open at the end
	ev(2, Exit, m(2), 17, 34)
	ev(2, Exit, 0x404, 18, 35) // unmatched exit of an unknown id
	ev(2, Enter, m(4), 19, 36) // open at the end
	return tr
}

func TestDmtracedumpAgrees(t *testing.T) {
	dmtracedump := testpeer.Require(t, "dmtracedump")
	dir := t.TempDir()
	files := map[string]func() (*Trace, error){
		"spec-example.trace": func() (*Trace, error) { return specExampleModel(), nil },
		"edge-cases.trace":   func() (*Trace, error) { return edgeCaseTrace(), nil },
		"v3-dual.trace": func() (*Trace, error) {
			return Synth{Seed: 1, Records: 40000, Threads: 5}.Trace()
		},
		"v2-cpu-unknown.trace": func() (*Trace, error) {
			return Synth{Seed: 2, Records: 20000, Version: 2, UnknownMethods: 6, Methods: 120}.Trace()
		},
		"v2-wall-unroll.trace": func() (*Trace, error) {
			return Synth{Seed: 3, Records: 20000, Version: 2, Clocks: WallOnly, Unroll: 30}.Trace()
		},
		"v1-dalvik.trace": func() (*Trace, error) {
			return Synth{Seed: 4, Records: 20000, Version: 1, Threads: 3}.Trace()
		},
		"v3-deep-recursion.trace": func() (*Trace, error) {
			return Synth{Seed: 5, Records: 30000, Methods: 12, MaxDepth: 300, Threads: 2}.Trace()
		},
	}
	for name, gen := range files {
		t.Run(name, func(t *testing.T) {
			tr, err := gen()
			if err != nil {
				t.Fatal(err)
			}
			compareWithDmtracedump(t, dmtracedump, writeTraceFile(t, dir, name, tr))
		})
	}
}

// TestDmtracedumpStopsOnMismatchedExit documents the one input dmtracedump
// cannot profile (it exits 1) and that we profile with a warning.
func TestDmtracedumpStopsOnMismatchedExit(t *testing.T) {
	dmtracedump := testpeer.Require(t, "dmtracedump")
	tr := &Trace{Header: Header{Version: 2, Threads: []Thread{{1, "main"}},
		Methods: []Method{{ID: 4, Class: "a.A", Name: "f", Signature: "()V"}, {ID: 8, Class: "a.A", Name: "g", Signature: "()V"}}},
		Events: []Event{{1, Enter, 4, [2]uint32{1, 0}}, {1, Enter, 8, [2]uint32{2, 0}}, {1, Exit, 4, [2]uint32{5, 0}}}}
	path := writeTraceFile(t, t.TempDir(), "mismatch.trace", tr)
	out, err := exec.Command(dmtracedump, path).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "does not match stack") {
		t.Fatalf("dmtracedump accepted a mismatched exit: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(path)
	p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Warnings.Count(WarnMismatchedExit) != 1 {
		t.Fatalf("warnings: %v", p.Warnings.List)
	}
	g := p.All.Stats(firstKeyMethod + 1)
	f := p.All.Stats(firstKeyMethod)
	if g.Calls != 1 || g.Inclusive[ClockCPU] != 3 || f.Inclusive[ClockCPU] != 4 || f.Exclusive[ClockCPU] != 1 || g.Exclusive[ClockCPU] != 3 {
		t.Fatalf("after unwinding: f %+v g %+v", f, g)
	}
}

// TestDmtracedumpRejectsStreaming: ART's streaming format (spec §5) is
// refused by dmtracedump ("Unsupported trace file version"); we profile it,
// and its numbers equal those of the same events written as a normal file,
// which dmtracedump does read.
func TestDmtracedumpRejectsStreaming(t *testing.T) {
	dmtracedump := testpeer.Require(t, "dmtracedump")
	dir := t.TempDir()
	s := Synth{Seed: 31, Records: 5000, Threads: 3, Methods: 60}
	normal, err := s.Trace()
	if err != nil {
		t.Fatal(err)
	}
	streamed := *normal
	streamed.Streaming = true
	streamPath := writeTraceFile(t, dir, "streaming.trace", &streamed)
	out, err := exec.Command(dmtracedump, streamPath).CombinedOutput()
	if err == nil && !strings.Contains(string(out), "Unsupported trace file version") {
		t.Fatalf("dmtracedump read a streaming trace:\n%.300s", out)
	}
	b, _ := os.ReadFile(streamPath)
	p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	normalPath := writeTraceFile(t, dir, "normal.trace", normal)
	compareWithDmtracedump(t, dmtracedump, normalPath)
	nb, _ := os.ReadFile(normalPath)
	ref, _ := ReadProfile(bytes.NewReader(nb), BuildOptions{})
	if !reflect.DeepEqual(byName(p), byName(ref)) {
		t.Fatal("streaming profile differs from the normal file's")
	}
}
