package heapgraph

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
)

// benchTrace returns $HEAPGRAPH_BENCH_FILE, or a heap graph (API 34) of
// scene.Large's Android-like heap of about objects objects, the heap the
// HPROF benchmarks use (`go run ./perfetto/internal/heapgraphgen` writes
// the same file).
func benchTrace(b *testing.B, objects int) []byte {
	if p := os.Getenv("HEAPGRAPH_BENCH_FILE"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	path := filepath.Join(b.TempDir(), "bench.hprof")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := scene.Large(w, scene.LargeOptions{Objects: objects, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if err := FromHPROF(f, &out, WriterOptions{API: 34, PID: 1}); err != nil {
		b.Fatal(err)
	}
	return out.Bytes()
}

// BenchmarkRead is one plain decoding pass over a 1 M-object heap graph:
// the packets joined, names and types resolved, the field names of
// per-type lists filled in (the figure `hprof analyze --json` on a heap
// graph is reported against, docs/PERFORMANCE.md).
func BenchmarkRead(b *testing.B) {
	data := benchTrace(b, 1_000_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	var objects int
	for range b.N {
		tr, err := Read(bytes.NewReader(data), Options{})
		if err != nil {
			b.Fatal(err)
		}
		objects = tr.Dumps[0].NumObjects()
	}
	b.ReportMetric(float64(objects), "objects")
}

// BenchmarkReadAndWalk adds the adapter's pass (Model and EachNode), what
// a model builder costs beyond its own work.
func BenchmarkReadAndWalk(b *testing.B) {
	data := benchTrace(b, 1_000_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		tr, err := Read(bytes.NewReader(data), Options{})
		if err != nil {
			b.Fatal(err)
		}
		g := tr.Dumps[0]
		g.Model()
		edges := 0
		_ = g.EachNode(func(n *Node) error { edges += len(n.Edges); return nil })
	}
}
