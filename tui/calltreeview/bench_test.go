package calltreeview

import (
	"bytes"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

var benchProfile struct {
	once sync.Once
	p    *trace.Profile
	err  error
}

// bigProfile is the anchor trace named by DDMTUI_TRACE_FILE (10 M records,
// scripts/bench-trace.sh), or a 2 M-record trace.Synth, with call trees
// and call indexes.
func bigProfile(b *testing.B) *trace.Profile {
	benchProfile.once.Do(func() {
		opt := trace.BuildOptions{CallTree: true, CallIndex: true}
		if path := os.Getenv("DDMTUI_TRACE_FILE"); path != "" {
			f, err := os.Open(path)
			if err != nil {
				benchProfile.err = err
				return
			}
			defer f.Close()
			benchProfile.p, benchProfile.err = trace.ReadProfile(f, opt)
			return
		}
		var buf bytes.Buffer
		if _, err := (trace.Synth{Seed: 1, Records: 2_000_000, Threads: 8, Methods: 2000, MaxDepth: 48}).WriteTo(&buf); err != nil {
			benchProfile.err = err
			return
		}
		benchProfile.p, benchProfile.err = trace.ReadProfile(&buf, opt)
	})
	if benchProfile.err != nil {
		b.Fatal(benchProfile.err)
	}
	return benchProfile.p
}

// benchView is a 200x60 view on a simulation screen, on tab tab.
func benchView(b *testing.B, tab string) (*View, tcell.SimulationScreen) {
	p := bigProfile(b)
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Fini)
	s.SetSize(200, 60)
	v := New(viewer.Host{Title: "bench", Palette: style.Palette{}, Quit: func() {}}, p, p.Clocks.First())
	v.SetRect(0, 0, 200, 60)
	v.Focus(func(tview.Primitive) {})
	key := func(k tcell.Key, r rune) {
		v.InputHandler()(tcell.NewEventKey(k, r, tcell.ModNone), func(tview.Primitive) {})
	}
	key(tcell.KeyRune, rune(tab[0]))
	v.Draw(s)
	return v, s
}

func press(v *View, k tcell.Key, r rune) {
	v.InputHandler()(tcell.NewEventKey(k, r, tcell.ModNone), func(tview.Primitive) {})
}

// BenchmarkFlameChartKey is one key and the redraw at 200x60: the
// selection moves along a row and up and down the stack, and the chart
// zooms in and out, in turn.
func BenchmarkFlameChartKey(b *testing.B) {
	v, s := benchView(b, "3")
	keys := []tcell.Key{tcell.KeyUp, tcell.KeyUp, tcell.KeyRight, tcell.KeyEnter, tcell.KeyUp, tcell.KeyLeft, tcell.KeyBackspace2, tcell.KeyDown, tcell.KeyDown}
	b.ResetTimer()
	start := cpuTime()
	i := 0
	for b.Loop() {
		press(v, keys[i%len(keys)], 0)
		v.Draw(s)
		i++
	}
	reportCPU(b, start)
}

// BenchmarkCallChartKey is one key and the redraw at 200x60 of the busiest
// thread: the whole thread (hundreds of thousands of calls merged into
// columns), then zoomed in step by step to a few µs and out again, with
// the selection moving.
func BenchmarkCallChartKey(b *testing.B) {
	v, s := benchView(b, "4")
	press(v, tcell.KeyDown, 0)
	var keys []rune
	for range 14 {
		keys = append(keys, '+')
	}
	keys = append(keys, '>', '<')
	for range 14 {
		keys = append(keys, '-')
	}
	b.ResetTimer()
	start := cpuTime()
	i := 0
	for b.Loop() {
		press(v, tcell.KeyRune, keys[i%len(keys)])
		if i%3 == 0 {
			press(v, tcell.KeyRight, 0)
		}
		v.Draw(s)
		i++
	}
	reportCPU(b, start)
}

// BenchmarkCallChartWhole is the redraw of a whole thread at 200x60, the
// widest window.
func BenchmarkCallChartWhole(b *testing.B) {
	v, s := benchView(b, "4")
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		v.Draw(s)
	}
	reportCPU(b, start)
}

// cpuTime is the process's CPU time (user + system) so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per operation since start: on
// a loaded machine wall time per op says little, CPU time what a redraw
// costs.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
