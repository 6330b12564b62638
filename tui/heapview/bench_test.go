package heapview

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/tui/style"
)

// benchDump returns $HPROF_BENCH_FILE, or an Android-like dump of about
// objects objects (scene.Android; 1 M objects is about 80 MB).
func benchDump(b *testing.B, objects int) string {
	b.Helper()
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

func benchObjects() int {
	if n, err := strconv.Atoi(os.Getenv("HEAPVIEW_BENCH_OBJECTS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// benchHarness is a viewer on a simulated 120 × 40 screen.
func benchHarness(b *testing.B, file string) *harness {
	hs := &harness{r: &testRunner{ctx: b.Context()}, screen: tcell.NewSimulationScreen("UTF-8"), w: 120, h: 40}
	if err := hs.screen.Init(); err != nil {
		b.Fatal(err)
	}
	hs.screen.SetSize(120, 40)
	hs.v = New(Options{File: file, Runner: hs.r, Palette: style.Palette{}})
	hs.v.SetRect(0, 0, 120, 40)
	return hs
}

// BenchmarkFirstScreen is the time from the file being chosen to the
// classes of the app heap drawn: the analysis and everything the viewer
// computes once (histograms of every heap in every order, leaks, strings,
// bitmaps, reverse edges), then the first draw. Target: ≤ 1.5 s for 1 M
// objects (docs/PERFORMANCE.md). HEAPVIEW_BENCH_OBJECTS sets the size.
func BenchmarkFirstScreen(b *testing.B) {
	file := benchDump(b, benchObjects())
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		hs := benchHarness(b, file)
		c0 := cpuTime()
		hs.v.Load()
		hs.draw()
		hs.r.step() // the analysis and the first screen's model
		hs.draw()
		cpu += cpuTime() - c0
		if hs.v.Model() == nil {
			b.Fatalf("not loaded: %v", hs.v.Err())
		}
		b.StopTimer()
		hs.r.run() // leaks, strings, bitmaps: after the first screen
		hs.v.Close()
		hs.screen.Fini()
		b.StartTimer()
	}
	// The process's CPU time: on a machine shared with other work the
	// wall time waits for a CPU, the CPU time does not.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkExtras is the second job: leaks with paths, bitmaps,
// duplicate strings and the reverse edges, found behind the first screen.
func BenchmarkExtras(b *testing.B) {
	file := benchDump(b, benchObjects())
	hs := benchHarness(b, file)
	hs.v.Load()
	hs.r.step()
	defer hs.v.Close()
	defer hs.screen.Fini()
	b.ResetTimer()
	for range b.N {
		FindExtras(hs.v.Model().Heap, nil)
	}
}

// BenchmarkKeys is one round of keys on the loaded 1 M-object dump, each
// followed by a draw: sort the classes three ways, step the heap, type a
// filter and clear it, open a class's largest instance and its page, go
// back, switch to the dominators and open the largest, then the leaks,
// strings and bitmaps. Reported per key: every key must be answered
// within a frame (≈ 16 ms).
func BenchmarkKeys(b *testing.B) {
	file := benchDump(b, benchObjects())
	hs := benchHarness(b, file)
	hs.v.Load()
	hs.r.run()
	defer hs.v.Close()
	defer hs.screen.Fini()
	seq := []func(){
		func() { hs.keys("s") }, func() { hs.keys("i") }, func() { hs.keys("t") },
		func() { hs.keys("z") }, func() { hs.keys("z") }, func() { hs.keys("z") },
		func() { hs.keys("/") }, func() { hs.keys("S") }, func() { hs.keys("t") }, func() { hs.enter() },
		func() { hs.key(tcell.KeyEscape, 0) },
		func() { hs.key(tcell.KeyDown, 0) }, func() { hs.enter() }, func() { hs.enter() },
		func() { hs.back() }, func() { hs.back() },
		func() { hs.keys("2") }, func() { hs.keys("l") }, func() { hs.keys("l") }, func() { hs.enter() }, func() { hs.back() },
		func() { hs.keys("h") },
		func() { hs.keys("3") }, func() { hs.keys("4") }, func() { hs.keys("5") }, func() { hs.keys("1") },
	}
	b.ResetTimer()
	for range b.N {
		for _, k := range seq {
			k()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(seq))/1e6, "ms/key")
}
