package cli

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/ddmtui/ddmtui/heapfile"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/internal/memlimit"
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
	path, _ := writeScene(t, t.TempDir(), "app.hprof", scene.Options{Seed: 3})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	want := 2*fi.Size() + 64<<20
	if got := heapfile.MemoryAllowance(path); got != want {
		t.Fatalf("allowance %d, want %d (2 x %d + 64 MiB)", got, want, fi.Size())
	}
	// A one-shot command keeps its allowance to its end: each adds its
	// own to what the earlier ones left (this process runs many).
	before := memlimit.Limit()
	if out, err := runApp(t, "hprof", "analyze", "--json", path); err != nil {
		t.Fatalf("%v\n%.300s", err, out)
	}
	if got := memlimit.Limit() - before; got != want {
		t.Errorf("analyze: raised by %d, want %d", got, want)
	}
	if got := debug.SetMemoryLimit(-1); got != memlimit.Limit() {
		t.Errorf("the runtime's limit %d, not memlimit's %d", got, memlimit.Limit())
	}
	before = memlimit.Limit()
	if out, err := runApp(t, "hprof", "diff", "--json", path, path); err != nil {
		t.Fatalf("%v\n%.300s", err, out)
	}
	if got := memlimit.Limit() - before; got != 2*want {
		t.Errorf("diff: raised by %d, want %d (both heaps' allowances)", got, 2*want)
	}
}

// limitHeapMemory (`hprof analyze|path|diff`) raises the limit by each
// file's allowance, a heap graph's its own; the viewer raises it through
// heapview.LoadPID instead (tui/heapview TestLoadRaisesMemoryLimitUntilClose).
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
	before := memlimit.Limit()
	limitHeapMemory(hg)
	if got := memlimit.Limit() - before; got != 80<<20 {
		t.Errorf("heap graph: raised by %d, want 80 MiB", got)
	}
	limitHeapMemory(hp)
	if got, want := memlimit.Limit()-before, 80<<20+2*fi.Size()+64<<20; got != want {
		t.Errorf("then an HPROF file: raised by %d, want %d", got, want)
	}
}
