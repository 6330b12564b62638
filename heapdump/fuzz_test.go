package heapdump

import (
	"encoding/json"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
)

// FuzzAnalyze: any input gives a Heap or an error, never a panic, and every
// query on a Heap answers. The committed corpus is in testdata/fuzz.
func FuzzAnalyze(f *testing.F) {
	_, android := scenario(f, ScenarioOptions{})
	_, std8 := scenario(f, ScenarioOptions{IDSize: 8, Version: hprof.VersionStandard, Internal: true})
	f.Add(android)
	f.Add(std8)
	f.Add(android[:len(android)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Analyze(data, Options{})
		if err != nil {
			return
		}
		if _, err := json.Marshal(h.Report(3)); err != nil {
			t.Fatal(err)
		}
		n := h.NumNodes()
		for i := 0; i < n && i < 64; i++ {
			x := Node(i)
			h.Fields(x)
			h.ArrayElements(x, 0, 4)
			h.Referrers(x)
			h.Dominators().Children(x)
			h.Strings().Value(x)
			if p := h.Paths().ToRoot(x); len(p) != h.Paths().Depth(x) {
				t.Fatalf("node %d: path %d, depth %d", i, len(p), h.Paths().Depth(x))
			}
		}
		_ = Diff(h.Histogram(), nil)
	})
}
