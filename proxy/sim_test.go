package proxy

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// serveSim serves one simulated VM on a free port.
func serveSim(t *testing.T, spec sim.VMSpec) (*sim.VM, scan.PortRange) {
	t.Helper()
	dev := sim.NewDevice("proxy-test")
	vm := sim.NewVM(spec)
	dev.Add(vm)
	base := freeRange(t, 1)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		dev.Run(ctx, 20*time.Millisecond)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		dev.Close()
	})
	return vm, onePort(base)
}

// threadUpdates counts ThreadsUpdated events for key on the store's bus.
func threadUpdates(t *testing.T, store *monitor.Store, key string) *atomic.Int64 {
	var n atomic.Int64
	sub := store.Bus().Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sub.Ready():
				for _, ev := range sub.Drain() {
					if tu, ok := ev.(monitor.ThreadsUpdated); ok && tu.Key == key && len(tu.Threads) > 0 {
						n.Add(1)
					}
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		sub.Close()
	})
	return &n
}

// A debugger on a simulated ART VM: DDM thread updates go on while it is
// attached and after it left; the VM sees no non-DDM packet but the
// debugger's (nothing to clean up here); when the debugger leaves, the VM
// connection is re-opened as ddmlib does and the VM keeps its port.
func TestDDMVMDebugSession(t *testing.T) {
	leakcheck.Check(t)
	vm, ports := serveSim(t, sim.VMSpec{PID: 4242, App: "com.example.debuggee", Family: sim.ART, Threads: 3, Seed: 9})
	r := startRig(t, ports, Options{})
	key := localKey(ports.First)
	port := r.waitPort(key)
	updates := threadUpdates(t, r.store, key)
	waitFor(t, "the DDM session", 5*time.Second, func() bool { v := r.vm(key); return v.DDM && v.DebugPort == port })
	if n := vm.Stats().NonDDMPackets.Load(); n != 0 {
		t.Fatalf("%d non-DDM packets before any debugger", n)
	}

	ctx := ctxT(t)
	dbg := dialDebugger(t, port, 1)
	waitFor(t, "attached", 5*time.Second, func() bool { return r.vm(key).Debugger == monitor.DebuggerAttached })
	v, err := dbg.Version(ctx)
	if err != nil || !strings.Contains(v.Description, "Android Runtime") {
		t.Fatalf("Version through the proxy: %+v, %v", v, err)
	}
	if _, err := dbg.IDSizes(ctx); err != nil {
		t.Fatal(err)
	}
	// The simulator does not implement event requests: the error comes
	// back, nothing is live, nothing needs clearing.
	if _, err := dbg.Request(ctx, jdwp.CmdSetEventRequest, jdwp.CmdEventRequestSet, breakpointSet(2)); err == nil {
		t.Fatal("the simulator accepted an event request")
	}
	sent := int64(3)
	during := updates.Load()
	waitFor(t, "thread updates while debugging", 5*time.Second, func() bool { return updates.Load() >= during+3 })
	if r.vm(key).Debugger != monitor.DebuggerAttached {
		t.Fatal("debugger state changed while attached")
	}
	if n := vm.Stats().NonDDMPackets.Load(); n != sent {
		t.Fatalf("VM saw %d non-DDM packets, the debugger sent %d", n, sent)
	}
	rec := r.waitRecord("the error reply", func(r jdwpspy.Record) bool { return r.Name == "EventRequest.Set" && r.Type == jdwpspy.TypeReply })
	if rec.Error != "NOT_IMPLEMENTED" {
		t.Errorf("error reply record: %+v", rec)
	}

	conns := vm.Stats().Connections.Load()
	dbg.Close()
	left := r.waitRecord("leave record", summaryHas("left"))
	if !strings.Contains(left.Note, "re-opened the VM connection") || !strings.Contains(left.Note, "cleared 0 event request(s)") {
		t.Errorf("leave note: %s", left.Note)
	}
	waitFor(t, "the re-opened session", 10*time.Second, func() bool {
		v := r.vm(key)
		return vm.Stats().Connections.Load() > conns && v.DDM && v.DebugPort == port && v.Debugger == monitor.DebuggerNone
	})
	after := updates.Load()
	waitFor(t, "thread updates after the debugger left", 5*time.Second, func() bool { return updates.Load() >= after+3 })
	if n := vm.Stats().NonDDMPackets.Load(); n != sent {
		t.Fatalf("VM saw %d non-DDM packets after the cleanup, the debugger sent %d", n, sent)
	}
	if p, ok := r.proxy.Port(key); !ok || p != port {
		t.Fatalf("after the re-open the VM has port %d (listening %v), want %d", p, ok, port)
	}
	// And a new debugger gets the new session.
	dbg2 := dialDebugger(t, port, 1)
	if _, err := dbg2.Version(ctx); err != nil {
		t.Fatalf("debugger after the re-open: %v", err)
	}
	dbg2.Close()
	r.stop()
	t.Logf("thread updates: %d", updates.Load())
}
