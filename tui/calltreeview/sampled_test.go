package calltreeview

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/simpleperf"
	"github.com/ddmtui/ddmtui/testkit/screentext"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// sampledProfile is a generated recording loaded with its call index:
// threads busy threads at 1 kHz for d, 32 frames a sample.
func sampledProfile(t testing.TB, threads int, d time.Duration) *trace.Profile {
	t.Helper()
	var buf bytes.Buffer
	if _, err := simpleperf.Gen(&buf, simpleperf.GenOptions{Threads: threads, Duration: d, Frequency: 1000, Depth: 32, Stacks: 256, Seed: 36}); err != nil {
		t.Fatal(err)
	}
	p, err := simpleperf.Load(&buf, simpleperf.LoadOptions{CallIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Trace
}

// sampledView opens tab ("3": the flame chart) of p at w×h.
func sampledView(t testing.TB, p *trace.Profile, tab string, w, h int) (*View, tcell.SimulationScreen) {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Fini)
	s.SetSize(w, h)
	v := New(viewer.Host{Title: "samples", Palette: style.Palette{NoColor: true}, Quit: func() {}}, p, trace.ClockCPU)
	v.SetRect(0, 0, w, h)
	v.Focus(func(tview.Primitive) {})
	press(v, tcell.KeyRune, rune(tab[0]))
	v.Draw(s)
	return v, s
}

// The flame chart of a sampled profile is drawn by samples: its status
// counts samples, its widest frame is the root frame with the most
// samples, and it fits 80x24 and 120x40 (logged with -v for the docs).
func TestSampledFlameChart(t *testing.T) {
	p := sampledProfile(t, 4, 2*time.Second)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		v, s := sampledView(t, p, "3", size[0], size[1])
		press(v, tcell.KeyUp, 0)
		v.Draw(s)
		s.Show()
		rows := screentext.Trimmed(s)
		text := strings.Join(rows, "\n")
		t.Logf("flame chart at %dx%d:\n%s", size[0], size[1], text)
		if !strings.Contains(text, "samples (") || !strings.Contains(text, "android.view.") {
			t.Fatalf("%dx%d: no sample counts or frames:\n%s", size[0], size[1], text)
		}
	}
}

var sampledBench struct {
	once sync.Once
	p    *trace.Profile
}

// BenchmarkSampledFlameChartKey is BenchmarkFlameChartKey on a sampled
// profile (four threads, 1 kHz, 2 minutes: 480k samples of 32 frames):
// one key and the redraw at 200x60 (the bound: 16 ms).
func BenchmarkSampledFlameChartKey(b *testing.B) {
	sampledBench.once.Do(func() { sampledBench.p = sampledProfile(b, 4, 2*time.Minute) })
	v, s := sampledView(b, sampledBench.p, "3", 200, 60)
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
