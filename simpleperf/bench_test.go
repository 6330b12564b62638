package simpleperf

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/trace"
)

// The recordings of the targets (docs/PERFORMANCE.md): four busy
// threads at 1 kHz, 32 frames a sample, for 2 and 10 minutes. The files
// are generated once into the temporary directory and kept there
// (DDMTUI_BENCH_DIR to choose another), since writing 2.4 M samples takes
// longer than reading them.
func benchFile(b *testing.B, d time.Duration, movingLeaf bool) (string, int64) {
	b.Helper()
	dir := os.Getenv("DDMTUI_BENCH_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	name := filepath.Join(dir, fmt.Sprintf("ddmtui-simpleperf-%s.trace", d))
	if movingLeaf {
		name = filepath.Join(dir, fmt.Sprintf("ddmtui-simpleperf-%s-leaf.trace", d))
	}
	opt := GenOptions{Threads: 4, Duration: d, Frequency: 1000, Depth: 32, Stacks: 256, Seed: 36, MovingLeaf: movingLeaf}
	if fi, err := os.Stat(name); err == nil {
		return name, fi.Size()
	}
	f, err := os.Create(name + ".tmp")
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if _, err := Gen(bw, opt); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	if err := os.Rename(name+".tmp", name); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(name)
	return name, fi.Size()
}

// decodePass reads every record once and keeps nothing: the floor a load
// is compared with.
func decodePass(r io.Reader) (int64, error) { return decodeLimited(r, Limits{}) }

// decodeLimited is decodePass under lim, returning the frames decoded.
func decodeLimited(r io.Reader, lim Limits) (int64, error) {
	rd, err := NewReader(r, lim)
	if err != nil {
		return 0, err
	}
	var frames int64
	for {
		k, err := rd.Next()
		if err == io.EOF {
			return frames, nil
		}
		if err != nil {
			return 0, err
		}
		if k == KindSample {
			frames += int64(len(rd.Sample.Callchain))
		}
	}
}

func benchRecording(b *testing.B, d time.Duration, movingLeaf bool) {
	name, size := benchFile(b, d, movingLeaf)
	run := func(b *testing.B, f func(io.Reader) error) {
		b.SetBytes(size)
		b.ReportAllocs()
		var peak uint64
		for i := 0; i < b.N; i++ {
			fh, err := os.Open(name)
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			if err := f(fh); err != nil {
				b.Fatal(err)
			}
			fh.Close()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapSys)
		}
		b.ReportMetric(float64(peak)/(1<<20), "MiB-heap-sys")
	}
	b.Run("decode", func(b *testing.B) {
		run(b, func(r io.Reader) error { _, err := decodePass(r); return err })
	})
	b.Run("load", func(b *testing.B) {
		run(b, func(r io.Reader) error {
			p, err := Load(r, LoadOptions{})
			if err != nil {
				return err
			}
			// Every tree: each thread's top-down tree (built by Load), and
			// the merged top-down and bottom-up views as the viewer opens them.
			trees := make([]*trace.CallTree, len(p.Trace.Threads))
			for i := range p.Trace.Threads {
				trees[i] = p.Trace.Threads[i].Tree
			}
			td := trace.NewTopDownView(trees, trace.ClockCPU)
			bu := trace.NewBottomUpView(trees, trace.ClockCPU)
			if !td.HasChildren(0) || !bu.HasChildren(0) {
				return fmt.Errorf("no samples")
			}
			return nil
		})
	})
	b.Run("load+index", func(b *testing.B) {
		run(b, func(r io.Reader) error { _, err := Load(r, LoadOptions{CallIndex: true}); return err })
	})
}

// BenchmarkRecording2Min: about 480k samples (the 2-minute case:
// ≤ 0.4 s, ≤ 160 MiB).
func BenchmarkRecording2Min(b *testing.B) { benchRecording(b, 2*time.Minute, false) }

// BenchmarkRecording10Min: 2.4 M samples (≤ 1.5 s, ≤ 200 MiB).
func BenchmarkRecording10Min(b *testing.B) { benchRecording(b, 10*time.Minute, false) }

// BenchmarkRecording2MinLeaf: the 2-minute case with each sample's leaf at
// another address (GenOptions.MovingLeaf), so no stack repeats its bytes.
func BenchmarkRecording2MinLeaf(b *testing.B) { benchRecording(b, 2*time.Minute, true) }

// BenchmarkRecordingSmall: 10 s, for quick comparisons.
func BenchmarkRecordingSmall(b *testing.B) { benchRecording(b, 10*time.Second, false) }
