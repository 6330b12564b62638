package heapfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

// MemoryAllowance: twice an HPROF file plus 64 MiB; 4.5 times a heap
// graph, at least 80 MiB (a large graph grows past the floor: the file is
// grown sparse, only its start is read); nothing for a file that is not
// there.
func TestMemoryAllowance(t *testing.T) {
	dir := t.TempDir()
	graph, hprofBytes, _, err := heapgraph.Scene(scene.Options{Seed: 7, API: 34}, heapgraph.WriterOptions{API: 34, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	hp, hg := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin")
	if err := os.WriteFile(hp, hprofBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hg, graph, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := MemoryAllowance(hp), 2*int64(len(hprofBytes))+64<<20; got != want {
		t.Errorf("HPROF: %d, want %d", got, want)
	}
	if got := MemoryAllowance(hg); got != 80<<20 {
		t.Errorf("small heap graph: %d, want the 80 MiB floor", got)
	}
	if err := os.Truncate(hg, 40<<20); err != nil {
		t.Fatal(err)
	}
	if got, want := MemoryAllowance(hg), int64(4.5*float64(40<<20)); got != want {
		t.Errorf("40 MiB heap graph: %d, want %d", got, want)
	}
	if got := MemoryAllowance(filepath.Join(dir, "none")); got != 0 {
		t.Errorf("no file: %d", got)
	}
}
