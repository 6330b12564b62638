package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/treejson"
	"github.com/ddmtui/ddmtui/trace"
)

// decodeTreeJSON reads the call-tree document at the start of out
// (warnings may follow it).
func decodeTreeJSON(t *testing.T, out string) *treejson.Doc {
	t.Helper()
	var raw json.RawMessage
	decodeFirstJSON(t, out, &raw)
	doc, err := treejson.Decode(raw)
	if err != nil {
		t.Fatalf("%v\n%.400s", err, out)
	}
	return doc
}

// TestTraceTreeJSON: `trace FILE --tree --json` prints the library's trees
// on the chosen clock, and `--bottom-up` the bottom-up ones, whose top level
// is the flat profile.
func TestTraceTreeJSON(t *testing.T) {
	path, data := writeSynthTrace(t, trace.Synth{Seed: 22, Records: 4000, Threads: 2, Methods: 40})
	p, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{CallTree: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, clock := range []trace.Clock{trace.ClockCPU, trace.ClockWall} {
		out, err := runApp(t, "trace", path, "--tree", "--json", "--clock", clock.String(), "--tree-min-share", "0")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var want bytes.Buffer
		if err := trace.WriteTreeJSON(&want, p, trace.TreeJSONOptions{Clock: clock}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, want.String()) {
			t.Fatalf("%v: output differs from WriteTreeJSON:\n%.300s", clock, out)
		}
		doc := decodeTreeJSON(t, out)
		if doc.Clock != clock.String() || len(doc.Threads) != 2 || doc.Threads[0].Name == "" || len(doc.Merged.TopDown) == 0 {
			t.Fatalf("%v: %+v", clock, doc)
		}
		// The top level's children are the calls made with an empty stack:
		// the flat profile's edges from the top level.
		edges := map[string]trace.Edge{}
		for _, e := range p.All.Callees(trace.TopLevel) {
			m := &p.Methods[e.Callee]
			edges[m.FullName()+" "+m.Signature] = e
		}
		if len(doc.Merged.TopDown) != len(edges) {
			t.Errorf("%v: %d top-level nodes, %d edges", clock, len(doc.Merged.TopDown), len(edges))
		}
		for _, n := range doc.Merged.TopDown {
			if e := edges[n.Method]; n.Calls != e.Calls || n.Inclusive != e.Inclusive[clock] {
				t.Errorf("%v %s: %d calls %d µs; edge %d %d", clock, n.Method, n.Calls, n.Inclusive, e.Calls, e.Inclusive[clock])
			}
		}
	}
	out, err := runApp(t, "trace", path, "--json", "--tree", "--bottom-up", "--tree-min-share", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	doc := decodeTreeJSON(t, out)
	if len(doc.Merged.BottomUp) != len(p.All.Methods)-1 || doc.Merged.TopDown != nil {
		t.Fatalf("bottom up: %d methods, profile %d", len(doc.Merged.BottomUp), len(p.All.Methods)-1)
	}
	for _, n := range doc.Merged.BottomUp {
		var s trace.Stats
		for i := range p.Methods {
			m := &p.Methods[i]
			if m.FullName()+" "+m.Signature == n.Method {
				s = p.All.Stats(int32(i))
			}
		}
		if n.Calls != s.Calls || n.Inclusive != s.Inclusive[trace.ClockCPU] || n.Exclusive != s.Exclusive[trace.ClockCPU] {
			t.Errorf("%s: %d/%d/%d, flat %d/%d/%d", n.Method, n.Calls, n.Inclusive, n.Exclusive, s.Calls, s.Inclusive[0], s.Exclusive[0])
		}
	}
	if out, err := runApp(t, "trace", path, "--tree"); err == nil || !strings.Contains(err.Error(), "--json") {
		t.Fatalf("--tree without --json: %v\n%s", err, out)
	}
}

// TestTraceTreeJSONMinShare: by default `--tree --json` folds the nodes
// under 0.1% of their tree's time into "(other)" children, as the library
// does with DefaultTreeMinShare, ends the document with "cut", and says so
// on stderr; `--tree-min-share 0` prints every node and says nothing.
func TestTraceTreeJSONMinShare(t *testing.T) {
	path, data := writeSynthTrace(t, trace.Synth{Seed: 23, Records: 20000, Threads: 2, Methods: 300})
	p, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{CallTree: true})
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runAppSplit(t, "trace", path, "--tree", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var want bytes.Buffer
	var cut trace.TreeCut
	if err := trace.WriteTreeJSON(&want, p, trace.TreeJSONOptions{Clock: p.Clocks.First(), MinShare: trace.DefaultTreeMinShare, Cut: &cut}); err != nil {
		t.Fatal(err)
	}
	if out != want.String() || cut.Folded == 0 {
		t.Fatalf("default: output differs from WriteTreeJSON with the default share (%d folded):\n%.300s", cut.Folded, out)
	}
	if !strings.Contains(out, `"(other)"`) || !strings.Contains(out, `"cut": {"min_share": 0.001`) {
		t.Errorf("default: no (other) node or cut summary:\n%.300s", out)
	}
	if !strings.Contains(errOut, "folded into") || !strings.Contains(errOut, "--tree-min-share 0") {
		t.Errorf("default: stderr does not say the trees were cut: %q", errOut)
	}
	full, errOut, err := runAppSplit(t, "trace", path, "--tree", "--json", "--tree-min-share", "0")
	if err != nil || strings.Contains(full, "(other)") || strings.Contains(full, `"cut"`) || strings.Contains(errOut, "folded") {
		t.Fatalf("--tree-min-share 0: %v, stderr %q, output:\n%.300s", err, errOut, full)
	}
	if len(full) <= len(out) {
		t.Errorf("full output %d bytes, cut %d", len(full), len(out))
	}
	for _, bad := range []string{"-0.1", "1", "NaN"} {
		if _, err := runApp(t, "trace", path, "--tree", "--json", "--tree-min-share", bad); err == nil {
			t.Errorf("--tree-min-share %s: no error", bad)
		}
	}
}

// TestTraceFoldedDepthCap: `trace FILE --folded -` on a 2,000-deep
// recursion cuts its paths at --tree-depth (256) and says so on stderr;
// --tree-depth -1 writes every frame.
func TestTraceFoldedDepthCap(t *testing.T) {
	const depth = 2000
	tr := &trace.Trace{Header: trace.Header{Version: 3, Clocks: trace.Dual, Threads: []trace.Thread{{ID: 1, Name: "main"}},
		Methods: []trace.Method{{ID: 4, Class: "a", Name: "f", Signature: "()V"}}}}
	now := uint32(0)
	for i := 0; i < 2*depth; i++ {
		a := trace.Enter
		if i >= depth {
			a = trace.Exit
		}
		tr.Events = append(tr.Events, trace.Event{Thread: 1, Action: a, MethodID: 4, Time: [2]uint32{now, now}})
		now++
	}
	var buf bytes.Buffer
	if err := trace.Encode(&buf, tr); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "deep.trace")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runAppSplit(t, "trace", path, "--folded", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if len(out) > 1<<20 || !strings.Contains(out, ";(truncated) ") || !strings.Contains(errOut, "cut at 256 frames") {
		t.Fatalf("%d bytes, stderr %q", len(out), errOut)
	}
	full, errOut, err := runAppSplit(t, "trace", path, "--folded", "-", "--tree-depth", "-1")
	if err != nil || strings.Contains(full, "(truncated)") || strings.Count(full, "\n") != depth || errOut != "" {
		t.Fatalf("--tree-depth -1: %v, %d lines, stderr %q", err, strings.Count(full, "\n"), errOut)
	}
}

// TestTracePipedPrintsText: `trace FILE` whose output is not a terminal
// (trace FILE | cat) prints the flat profile as text, its totals labelled,
// instead of failing with "needs a terminal".
func TestTracePipedPrintsText(t *testing.T) {
	path, data := writeSynthTrace(t, trace.Synth{Seed: 24, Records: 4000, Threads: 3, Methods: 30})
	p, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runAppSplit(t, "trace", path)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var want bytes.Buffer
	if err := trace.WriteText(&want, p, p.Clocks.First()); err != nil {
		t.Fatal(err)
	}
	if out != want.String() {
		t.Fatalf("output is not WriteText's:\n%.400s", out)
	}
	for _, s := range []string{"whole trace: ", "ms wall, first record to last", "summed over the 3 threads", "methods by exclusive time on the thread-cpu clock"} {
		if !strings.Contains(out, s) {
			t.Errorf("no %q in:\n%.600s", s, out)
		}
	}
	// The exclusive percentages are of the summed time: they add to 100.
	var sum float64
	in := false
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "excl" {
			in = true
			continue
		}
		if in && len(f) >= 6 {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatalf("line %q", l)
			}
			sum += v
		}
	}
	if sum < 99 || sum > 101 {
		t.Errorf("exclusive percentages add to %.1f", sum)
	}
}
