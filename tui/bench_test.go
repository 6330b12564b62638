package tui

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// bigHeap is a 64 Mi-unit heap (512 MiB at 8 bytes) as VMs send it.
func bigHeap(b *testing.B) *heap.Snapshot {
	rng := rand.New(rand.NewPCG(3, 4))
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.Start(0x12C00000)
	var total uint64
	for total < 64<<20 {
		u := uint32(2 + rng.IntN(12))
		st := ddm.NewState(ddm.Kind(rng.IntN(6)), ddm.SolidityHard)
		if rng.IntN(4) == 0 {
			st = ddm.StateFree
		}
		if err := w.Append(st, u); err != nil {
			b.Fatal(err)
		}
		total += uint64(u)
	}
	return heap.NewSnapshot(1, ddm.TypeHPSG, w.Segments())
}

// BenchmarkFrame200VMs measures one dashboard frame at 120x40 while 200
// VMs each deliver a new 30-thread table: folding the events in, rendering
// the tables, and drawing the screen, with the selected VM's 64 Mi-unit heap
// on show (its cells cached, as between GCs). The budget is the 33 ms frame
// interval; docs/PERFORMANCE.md reports the ratio.
func BenchmarkFrame200VMs(b *testing.B) {
	store := monitor.NewStore(monitor.NewBus())
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		b.Fatal(err)
	}
	d := New(Config{Store: store, Palette: style.Palette{}, Discovery: "bench", Screen: screen})
	screen.SetSize(120, 40)
	d.width, d.height = 120, 40
	d.relayout()
	snap := bigHeap(b)
	now := time.Now().Add(-time.Minute)
	var vms []monitor.VM
	threads := make([][]monitor.Thread, 200)
	for i := range 200 {
		key := fmt.Sprintf("local:%d", 8000+i)
		vms = append(vms, monitor.VM{Key: key, Source: key, PID: 1000 + i, App: fmt.Sprintf("com.example.app%03d", i), DDM: true, Connected: now,
			Heaps: []monitor.Heap{{ID: 1, MaxBytes: 512 << 20, SizeBytes: 512 << 20, AllocatedBytes: 300 << 20, Objects: 4_000_000}}})
		for j := range 30 {
			threads[i] = append(threads[i], monitor.Thread{ID: uint64(j + 1), Name: fmt.Sprintf("worker-%d", j), Status: 1, State: "running", Created: now})
		}
	}
	d.loadInitial(vms)
	d.m.snaps[vms[0].Key] = snap
	d.heapP.view.ComputeInline = true
	d.heapP.Update(ChangeHeap)
	d.pages.SetRect(0, 0, 120, 40)
	d.pages.Draw(screen) // fills the heap cell cache once (a GC's worth of work)
	states := []string{"running", "wait", "sleeping", "monitor"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		evs := make([]monitor.Event, 0, 200)
		for v := range 200 {
			ts := append([]monitor.Thread(nil), threads[v]...)
			ts[i%30].State = states[i%4]
			ts[i%30].Changed = time.Now()
			evs = append(evs, monitor.ThreadsUpdated{Key: vms[v].Key, Threads: ts})
		}
		d.apply(evs)
		d.pages.Draw(screen)
		screen.Show()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/33.0, "frame-budget-fraction")
}
