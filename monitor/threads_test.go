package monitor

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// floodRig runs an engine over one hostile VM that answers HELO and then
// sends a THCR for each of n new thread ids.
func floodRig(t *testing.T, n int, opts SessionOptions) (*Engine, string) {
	t.Helper()
	srv, err := hostile.Serve("127.0.0.1:0", hostile.HelloVM(777, func(send func(ddm.Message) error, stop <-chan struct{}) {
		for i := 0; i < n; i++ {
			if send(&ddm.ThreadCreated{ID: uint32(100 + i), Name: fmt.Sprintf("flood-%d", i)}) != nil {
				return
			}
		}
		<-stop
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if opts.ThreadInterval == 0 {
		opts.ThreadInterval = time.Hour // THST is not answered; keep to the flood
	}
	e := NewEngine(NewStore(NewBus()), opts)
	startEngine(t, e, scan.PortRange{First: srv.Port(), Last: srv.Port()})
	return e, fmt.Sprintf("local:%d", srv.Port())
}

// Issue 16 item 8: a THCR flood no longer copies and sorts the whole table
// per chunk: 5,000 new threads cost a bounded number of table copies (they
// cost about 1.6 GB of copies, one table per chunk).
func TestTHCRFloodIsIncremental(t *testing.T) {
	leakcheck.Check(t)
	const n = 5000
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	e, key := floodRig(t, n, SessionOptions{})
	waitFor(t, "every flooded thread in the store", 20*time.Second, func() bool {
		vm, ok := e.Store().VM(key)
		return ok && len(vm.Threads) == n
	})
	runtime.ReadMemStats(&m1)
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 300<<20 {
		t.Errorf("a flood of %d THCR allocated %d MiB", n, alloc>>20)
	}
	if vm, _ := e.Store().VM(key); vm.TooManyThreads {
		t.Error("TooManyThreads below the cap")
	}
}

// Past MaxThreads new threads are not added and the VM says so.
func TestThreadCap(t *testing.T) {
	leakcheck.Check(t)
	e, key := floodRig(t, 300, SessionOptions{MaxThreads: 100})
	waitFor(t, "the capped VM", 10*time.Second, func() bool {
		vm, ok := e.Store().VM(key)
		return ok && vm.TooManyThreads && len(vm.Threads) == 100
	})
	vm, _ := e.Store().VM(key)
	if !strings.Contains(vm.Err, "too many threads") || vm.Threads[99].Name != "flood-99" {
		t.Errorf("capped VM: err %q, last thread %+v", vm.Err, vm.Threads[99])
	}
}

// startEngine runs e over a local port range until the test ends.
func startEngine(t *testing.T, e *Engine, ports scan.PortRange) {
	t.Helper()
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(done)
		e.Run(ctx, Discovery{Local: &scan.Local{Ports: ports, Interval: 30 * time.Millisecond}})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}
