package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/trace"
)

type treeDocNode struct {
	Method    string        `json:"method"`
	Inclusive uint64        `json:"inclusive_usec"`
	Exclusive uint64        `json:"exclusive_usec"`
	Calls     int64         `json:"calls"`
	Children  []treeDocNode `json:"children"`
}

type treeDoc struct {
	Clock   string `json:"clock"`
	Threads []struct {
		TID      uint32        `json:"tid"`
		Name     string        `json:"name"`
		TopDown  []treeDocNode `json:"top_down"`
		BottomUp []treeDocNode `json:"bottom_up"`
	} `json:"threads"`
	Merged struct {
		TopDown  []treeDocNode `json:"top_down"`
		BottomUp []treeDocNode `json:"bottom_up"`
	} `json:"merged"`
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
		out, err := runApp(t, "trace", path, "--tree", "--json", "--clock", clock.String())
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
		var doc treeDoc
		decodeFirstJSON(t, out, &doc)
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
	out, err := runApp(t, "trace", path, "--json", "--tree", "--bottom-up")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var doc treeDoc
	decodeFirstJSON(t, out, &doc)
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
