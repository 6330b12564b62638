package cli

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

// Issue 37 #13: the analysis of an HPROF file runs under a soft memory
// limit of twice the file plus a floor, so a dense dump's garbage does not
// grow by half its model again between collections (a 3 M-object chain,
// 63 MB: 272 MiB peak before, 210 MiB after); `hprof diff` adds the
// allowance of each of its two heaps.
func TestHprofAnalysisMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	debug.SetMemoryLimit(math.MaxInt64)
	path, _ := writeScene(t, t.TempDir(), "app.hprof", scene.Options{Seed: 3})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	want := hprofMemoryFactor*fi.Size() + hprofMemoryFloor
	if out, err := runApp(t, "hprof", "analyze", "--json", path); err != nil {
		t.Fatalf("%v\n%.300s", err, out)
	}
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Errorf("analyze: limit %d, want %d (2 x %d + %d)", got, want, fi.Size(), hprofMemoryFloor)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if out, err := runApp(t, "hprof", "diff", "--json", path, path); err != nil {
		t.Fatalf("%v\n%.300s", err, out)
	}
	if got := debug.SetMemoryLimit(-1); got != 2*want {
		t.Errorf("diff: limit %d, want %d (both heaps' allowances)", got, 2*want)
	}
}

// The standalone viewer takes the same allowance per file as the analysis
// (a 3 M-object chain: 298 MiB before, 213 MiB after), and a heap graph
// its own.
func TestLimitHeapMemory(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	dir := t.TempDir()
	hp, _ := writeScene(t, dir, "app.hprof", scene.Options{Seed: 3})
	graph, _, _, err := heapgraph.Scene(scene.Options{Seed: 3, API: 34}, heapgraph.WriterOptions{API: 34, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	hg := filepath.Join(dir, "app.bin") // sniffed, not named
	if err := os.WriteFile(hg, graph, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(hp)
	if err != nil {
		t.Fatal(err)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	limitHeapMemory(hg)
	if got := debug.SetMemoryLimit(-1); got != heapGraphMemoryLimit {
		t.Errorf("heap graph: limit %d, want %d", got, heapGraphMemoryLimit)
	}
	limitHeapMemory(hp)
	if got, want := debug.SetMemoryLimit(-1), heapGraphMemoryLimit+hprofMemoryFactor*fi.Size()+hprofMemoryFloor; got != want {
		t.Errorf("then an HPROF file: limit %d, want %d", got, want)
	}
}
