package monitor

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// On a device whose API level says the VM has no DDM heap handler (API 30
// on), a heap dump goes to `am dumpheap` at once: the session does not wait
// HeapDumpWait for an HPDS answer that never comes, nor send the request
// (issue 38 #9: `H` on an Android 14 VM took 5 s more than it needed).
func TestHeapDumpOnModernDeviceUsesAmAtOnce(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("emulator-5554")
	dev.SetAPI(34)
	dev.Add(sim.NewVM(sim.VMSpec{PID: 4200, App: "com.example.modern", Package: "com.example.modern", Family: sim.ART, API: 34, Threads: 2, HeapBytes: 1 << 20, Seed: 9}))
	defer dev.Close()
	store := NewStore(NewBus())
	const wait = 4 * time.Second
	e := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond, HeapDumpWait: wait,
		ProbeTimeout: 200 * time.Millisecond, RequestTimeout: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx, Discovery{ADB: []Runner{&sim.Endpoints{Device: dev}}}) }()
	defer func() {
		cancel()
		<-done
	}()
	var key string
	waitFor(t, "the VM with its API level and HPROF through am", 10*time.Second, func() bool {
		vms := store.VMs()
		if len(vms) != 1 || vms[0].API != 34 || vms[0].Capabilities.Source(FeatHPROF) != SourceAm {
			return false
		}
		key = vms[0].Key
		return true
	})
	before := dev.VM(4200).Stats().DDMRequests.Load()
	dctx, dcancel := context.WithTimeout(ctx, 30*time.Second)
	defer dcancel()
	start := time.Now()
	var buf bytes.Buffer
	n, err := e.Session(key).HeapDumpTo(dctx, &buf, nil)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hprof.Summarize(bytes.NewReader(buf.Bytes())); err != nil || n != int64(buf.Len()) {
		t.Fatalf("the dump: %d bytes written, %d held: %v", n, buf.Len(), err)
	}
	t.Logf("the dump took %s", took)
	if took >= wait/2 {
		t.Errorf("the dump took %s: it waited for DDM (HeapDumpWait %s) before am dumpheap", took, wait)
	}
	// A THST poll may happen meanwhile; an HPDS request would be one more.
	if sent := dev.VM(4200).Stats().DDMRequests.Load() - before; sent > 2 {
		t.Errorf("%d DDM requests sent during the dump", sent)
	}
}
