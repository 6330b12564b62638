package heapgraph

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
)

// TestWriteSeeds rewrites the fuzz seed corpus when HEAPGRAPH_SEEDS is set.
func TestWriteSeeds(t *testing.T) {
	if os.Getenv("HEAPGRAPH_SEEDS") == "" {
		t.Skip("set HEAPGRAPH_SEEDS=1 to rewrite testdata/fuzz/FuzzRead")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	put := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("vector", vector)
	put("split-late", writeSmall(t))
	for _, api := range []int{30, 31, 34} {
		b, _, _, err := Scene(scene.Options{Seed: 1, API: api}, WriterOptions{API: api, PID: 1, PacketBytes: 2048})
		if err != nil {
			t.Fatal(err)
		}
		put(fmt.Sprintf("scene-api%d", api), b)
	}
}
