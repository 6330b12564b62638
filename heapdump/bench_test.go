package heapdump

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
)

// benchFile returns $HPROF_BENCH_FILE, or a generated Android-like dump of
// objects objects (scripts/bench-hprof-analyze.sh measures the 1 M and 10 M
// files under /usr/bin/time).
func benchFile(b *testing.B, objects int) string {
	if p := os.Getenv("HPROF_BENCH_FILE"); p != "" {
		return p
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
	f.Close()
	return path
}

// BenchmarkAnalyze is the whole `analyze --json` work: open, graph,
// dominators, retained sizes, then the report (leaks with paths, strings,
// bitmaps).
func BenchmarkAnalyze(b *testing.B) {
	path := benchFile(b, 200000)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ResetTimer()
	for range b.N {
		h, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		h.Report(0)
		h.Close()
	}
}
