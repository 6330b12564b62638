package tui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// shownScreen is a SimulationScreen that calls onShow after each Show (on
// the UI goroutine, right after tview drew a frame).
type shownScreen struct {
	tcell.SimulationScreen
	onShow func()
}

func (s *shownScreen) Show() {
	s.SimulationScreen.Show()
	if s.onShow != nil {
		s.onShow()
	}
}

// latencyHist is a histogram of latencies in 0.5 ms buckets up to 1 s
// (the last bucket takes the rest).
type latencyHist struct {
	buckets [2001]int
	n       int
	max     time.Duration
}

const histStep = 500 * time.Microsecond

func (h *latencyHist) add(d time.Duration) {
	i := min(int(d/histStep), len(h.buckets)-1)
	h.buckets[max(i, 0)]++
	h.n++
	h.max = max(h.max, d)
}

// quantile returns the upper edge of the bucket holding the q-quantile.
func (h *latencyHist) quantile(q float64) time.Duration {
	want := int(q*float64(h.n) + 0.5)
	seen := 0
	for i, c := range h.buckets {
		seen += c
		if seen >= max(want, 1) {
			return time.Duration(i+1) * histStep
		}
	}
	return h.max
}

// String draws the histogram in 5 ms rows.
func (h *latencyHist) String() string {
	var b strings.Builder
	const row = 10 // buckets per row: 5 ms
	for i := 0; i < len(h.buckets); i += row {
		c := 0
		for j := i; j < min(i+row, len(h.buckets)); j++ {
			c += h.buckets[j]
		}
		if c == 0 {
			continue
		}
		bar := strings.Repeat("#", max(1, c*60/max(h.n, 1)))
		fmt.Fprintf(&b, "%4d-%4d ms %6d %s\n", i/2, (i+row)/2, c, bar)
	}
	return b.String()
}

// BenchmarkTHSTToRowDrawn measures, with 200 VMs each publishing a
// 30-thread table at 2 Hz through the real Store and Bus, the time from a
// table's publication (a THST reply's arrival, as the session publishes
// it) to the first frame that shows it: for the selected VM its row drawn
// on screen, for the others the frame drawn after the table entered the
// dashboard's model (the VM list). The dashboard runs its real event loop
// (pump, QueueUpdateDraw, frame coalescing) on a SimulationScreen at
// 120x40; a hook after Show stamps each frame. A table replaced by a newer
// one before it was drawn counts until the newer one is drawn. Each
// iteration is one 500 ms round of every VM publishing once; run with e.g.
// -benchtime=20x. The target (issue 15) is p99 within 50 ms.
func BenchmarkTHSTToRowDrawn(b *testing.B) {
	const (
		nVMs     = 200
		nThreads = 30
		period   = 500 * time.Millisecond
	)
	store := monitor.NewStore(monitor.NewBus())
	sim := tcell.NewSimulationScreen("UTF-8")
	if err := sim.Init(); err != nil {
		b.Fatal(err)
	}
	screen := &shownScreen{SimulationScreen: sim}
	now := time.Now().Add(-time.Minute)
	keys := make([]string, nVMs)
	for i := range nVMs {
		key := fmt.Sprintf("local:%d", 8000+i)
		keys[i] = key
		store.UpdateVM(key, func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = key, 1000+i, fmt.Sprintf("com.example.app%03d", i), true, now
			vm.Heaps = []monitor.Heap{{ID: 1, MaxBytes: 256 << 20, SizeBytes: 64 << 20, AllocatedBytes: 40 << 20, Objects: 400_000}}
		})
	}
	table := func(i, seq int, at time.Time) []monitor.Thread {
		ts := make([]monitor.Thread, nThreads)
		states := [...]string{"running", "wait", "sleeping", "monitor", "native"}
		for j := range ts {
			ts[j] = monitor.Thread{ID: uint64(j + 1), Name: fmt.Sprintf("worker-%d", j), Status: 1, State: "wait",
				SysTID: 2000 + j, UTime: j * 7, Created: now, Changed: now}
		}
		// The stamp: thread 1's name and stime carry the sequence number.
		ts[0].Name, ts[0].STime = fmt.Sprintf("main-%d", seq), seq
		k := 1 + seq%(nThreads-1)
		ts[k].State, ts[k].Changed = states[seq%len(states)], at // one state changes per poll (a blink)
		return ts
	}
	for i, key := range keys {
		store.SetThreads(key, table(i, 0, now))
	}

	d := New(Config{Store: store, Palette: style.Palette{}, Discovery: "bench", Screen: screen})
	sim.SetSize(120, 40)

	type stamp struct {
		seq int
		at  time.Time
	}
	var (
		mu      sync.Mutex
		pending = make([][]stamp, nVMs)
		hist    latencyHist
		selHist latencyHist
		frames  int
	)
	index := make(map[string]int, nVMs)
	for i, k := range keys {
		index[k] = i
	}
	first := make(chan struct{})
	var firstOnce sync.Once
	screen.onShow = func() { // UI goroutine: d.m is what this frame drew
		at := time.Now()
		firstOnce.Do(func() { close(first) })
		mu.Lock()
		defer mu.Unlock()
		frames++
		var selText string
		for i, key := range keys {
			p := pending[i]
			if len(p) == 0 {
				continue
			}
			ts := d.m.threads[key]
			if len(ts) == 0 {
				continue
			}
			shown := ts[0].STime
			if key == d.m.sel { // the selected VM: its row must be on screen
				if selText == "" {
					cells, w, h := sim.GetContents()
					selText = strings.Join(cellText(cells, w, h), "\n")
				}
				if !strings.Contains(selText, fmt.Sprintf(" main-%d ", shown)) {
					continue
				}
			}
			n := 0
			for _, s := range p {
				if s.seq > shown {
					p[n] = s
					n++
					continue
				}
				hist.add(at.Sub(s.at))
				if key == d.m.sel {
					selHist.add(at.Sub(s.at))
				}
			}
			pending[i] = p[:n]
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		b.Fatal("no frame drawn")
	}

	b.ResetTimer()
	cpu0 := cpuTime()
	var wg sync.WaitGroup
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Now()
	for i, key := range keys {
		phase := time.Duration(rng.Int64N(int64(period))) // sessions poll out of step
		wg.Add(1)
		go func() { // one session's poll loop
			defer wg.Done()
			next := start.Add(phase)
			for seq := 1; seq <= b.N; seq++ {
				time.Sleep(time.Until(next))
				next = next.Add(period)
				at := time.Now()
				ts := table(i, seq, at)
				mu.Lock()
				pending[i] = append(pending[i], stamp{seq, at})
				mu.Unlock()
				store.SetThreads(key, ts)
			}
		}()
	}
	wg.Wait()
	// Wait for the last tables to be drawn.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		left := 0
		for _, p := range pending {
			left += len(p)
		}
		mu.Unlock()
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d tables never drawn", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	mu.Lock()
	defer mu.Unlock()
	if hist.n != nVMs*b.N {
		b.Fatalf("measured %d tables, published %d", hist.n, nVMs*b.N)
	}
	b.ReportMetric(float64(hist.quantile(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(hist.quantile(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(hist.max.Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(selHist.quantile(0.99).Microseconds())/1000, "selected-p99-ms")
	b.ReportMetric(float64(frames)/time.Since(start).Seconds(), "frames/s")
	// The process's CPU (publishers, bus, dashboard) per second of traffic:
	// the part of the latency the machine's load does not explain.
	b.ReportMetric(float64(cpu.Milliseconds())/time.Since(start).Seconds(), "cpu-ms/s")
	b.Logf("%d tables, %d of the selected VM, %d frames; latency histogram:\n%s", hist.n, selHist.n, frames, &hist)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestLatencyHistQuantiles pins the histogram the latency benchmark reports
// from.
func TestLatencyHistQuantiles(t *testing.T) {
	var h latencyHist
	for i := 1; i <= 100; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	if got := h.quantile(0.5); got != 50500*time.Microsecond {
		t.Errorf("p50 = %v, want 50.5ms (the bucket holding 50ms)", got)
	}
	if got := h.quantile(0.99); got != 99500*time.Microsecond {
		t.Errorf("p99 = %v, want 99.5ms", got)
	}
	if h.max != 100*time.Millisecond || h.n != 100 {
		t.Errorf("max %v n %d", h.max, h.n)
	}
	h.add(5 * time.Second)
	if h.buckets[len(h.buckets)-1] != 1 {
		t.Error("a latency past 1s is not in the last bucket")
	}
}
