package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// heapNumbers are the HPIF numbers `snapshot --json` prints for a heap.
type heapNumbers struct {
	size, allocated, objects uint64
	gcs                      int
}

func heapNumbersOf(vms []monitor.VM) map[string]heapNumbers {
	out := map[string]heapNumbers{}
	for _, vm := range vms {
		if len(vm.Heaps) > 0 {
			h := vm.Heaps[0]
			out[vm.Key] = heapNumbers{h.SizeBytes, h.AllocatedBytes, h.Objects, h.GCCount}
		}
	}
	return out
}

// Issue 30 item 18: three VMs, two of them waiting for a debugger from
// their start, recorded with the commands' default session options (as
// `ddmtui record` does) while their heaps change twice a second; the live
// heap numbers are read at every instant, not only at still ones (as
// TestRecordReplayEqualsLive compares whole documents), between two
// readings of the recording's clock, and the replay at one of those two
// times must show the same numbers: an HPIF recorded late, dropped, or
// applied out of order would show the numbers from before it.
func TestReplayHeapsEqualLiveAtEveryInstant(t *testing.T) {
	leakcheck.Check(t)
	specs := sim.Scenario(1, 3) // system_process, systemui, mail (waiting)
	specs[1].WaitingForDebugger = true
	dev := sim.NewDevice("emulator-rec")
	for _, spec := range specs {
		dev.Add(sim.NewVM(spec))
	}
	defer dev.Close()
	base, err := freeLocalRange(39420, len(specs))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.rec")
	r, err := startRecording(path, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go dev.Run(ctx, 100*time.Millisecond) // a GC, so an HPIF, every 0.5 s
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{Recorder: r.rec})
	disc := monitor.Discovery{Local: &scan.Local{Ports: scan.PortRange{First: base, Last: base + len(specs) - 1}, Interval: 200 * time.Millisecond}}
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, disc) }()

	type sample struct {
		from, to time.Duration
		heaps    map[string]heapNumbers
	}
	var samples []sample
	for end := time.Now().Add(4 * time.Second); time.Now().Before(end); {
		time.Sleep(30 * time.Millisecond)
		from := r.rec.Since()
		heaps := heapNumbersOf(store.VMs())
		samples = append(samples, sample{from, r.rec.Since(), heaps})
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := monitor.ReadRecording(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}

	waiting := map[string]bool{}
	for _, vm := range replayAt(rec, rec.Duration()) {
		waiting[vm.Key] = vm.Debugger == monitor.DebuggerWaiting
	}
	compared, waitingChanges, mismatches := 0, 0, 0
	last := map[string]heapNumbers{}
	for _, s := range samples {
		from, to := heapNumbersOf(replayAt(rec, s.from)), heapNumbersOf(replayAt(rec, s.to))
		for key, live := range s.heaps {
			compared++
			if waiting[key] && live != last[key] {
				waitingChanges++
			}
			last[key] = live
			if live != from[key] && live != to[key] {
				mismatches++
				if mismatches <= 3 {
					t.Errorf("%s at %v..%v: live %+v, replayed %+v .. %+v", key, s.from, s.to, live, from[key], to[key])
				}
			}
		}
	}
	n := 0
	for _, w := range waiting {
		if w {
			n++
		}
	}
	if n != 2 || waitingChanges < 4 {
		t.Errorf("%d VMs waiting for a debugger at the end (want 2), their heaps changed %d times among the samples (want several)", n, waitingChanges)
	}
	if mismatches > 0 {
		t.Errorf("%d of %d heap readings differ from the replay", mismatches, compared)
	}
	t.Logf("%d samples, %d heap readings compared, waiting VMs' heaps changed %d times", len(samples), compared, waitingChanges)
}
