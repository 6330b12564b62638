package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ddmtui/ddmtui/trace"
)

// TestTraceReadsFormatV2 runs `ddmtui trace --json` on a version 5 file
// (ART's format V2, dual clock) written by trace.EncodeV2, and checks that
// the profile holds exactly the times the writer encoded.
func TestTraceReadsFormatV2(t *testing.T) {
	tr := &trace.Trace{
		Header: trace.Header{Clocks: trace.Dual,
			Threads: []trace.Thread{{ID: 4242, Name: "main"}},
			Methods: []trace.Method{
				{ID: 0, Class: "com.example.Foo", Name: "main", Signature: "()V", File: "Foo.java"},
				{ID: 4, Class: "com.example.Foo", Name: "work", Signature: "(I)I", File: "Foo.java"},
			}},
		Events: []trace.Event{
			{Thread: 4242, Action: trace.Enter, MethodID: 0, Time: [2]uint32{100, 150}},
			{Thread: 4242, Action: trace.Enter, MethodID: 4, Time: [2]uint32{130, 190}},
			{Thread: 4242, Action: trace.Exit, MethodID: 4, Time: [2]uint32{1130, 2190}},
			{Thread: 4242, Action: trace.Exit, MethodID: 0, Time: [2]uint32{1200, 2300}},
		},
	}
	var buf bytes.Buffer
	if err := trace.EncodeV2(&buf, tr, trace.V2Options{}); err != nil {
		t.Fatal(err)
	}
	if v := buf.Bytes()[4]; v != 5 {
		t.Fatalf("data version %d, want 5", v)
	}
	path := filepath.Join(t.TempDir(), "v5.trace")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "trace", path, "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var doc trace.JSONProfile
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Version != 5 || doc.Clock != "dual" || doc.Records != 4 || len(doc.Threads) != 1 || doc.Threads[0].ID != 4242 || doc.Threads[0].Name != "main" {
		t.Fatalf("header: %+v", doc)
	}
	want := map[string][4]uint64{ // inclusive cpu, exclusive cpu, inclusive wall, exclusive wall
		"main": {1100, 100, 2150, 150},
		"work": {1000, 1000, 2000, 2000},
	}
	seen := 0
	for _, m := range doc.Methods {
		w, ok := want[m.Method]
		if !ok {
			continue
		}
		seen++
		got := [4]uint64{*m.InclusiveCPUUsec, *m.ExclusiveCPUUsec, *m.InclusiveWallUsec, *m.ExclusiveWallUsec}
		if got != w || m.Calls != 1 {
			t.Errorf("%s: %v, %d calls; want %v, 1 call", m.Method, got, m.Calls, w)
		}
	}
	if seen != 2 || *doc.TotalCPUUsec != 1100 || *doc.TotalWallUsec != 2150 {
		t.Errorf("methods seen %d, totals %d/%d", seen, *doc.TotalCPUUsec, *doc.TotalWallUsec)
	}
}
