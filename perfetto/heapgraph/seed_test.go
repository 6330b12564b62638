package heapgraph

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
	// The writer's other encodings of the vector (small seeds keep the
	// fuzzer's minimising quick; the scene's 45 KB graphs made it stall).
	put("vector-api30", writeVector(30))
	put("vector-api34", writeVector(34))
}
