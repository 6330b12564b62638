package proxy

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Issue 30 item 4: a client that handshakes and closes without a command,
// over and over, costs the VM nothing: its session is never re-opened (the
// VM saw no debugger; before, each churn re-opened a DDM VM's connection,
// so the VM lost a third of its polls and a real debugger attached 4 times
// in 16), the debugger state goes back to none, and a real debugger that
// attaches between the churns is served every time.
func TestHandshakeChurnCostsNothing(t *testing.T) {
	leakcheck.Check(t)
	vm, pr := serveSim(t, sim.VMSpec{PID: 4444, App: "com.example.churn", Family: sim.ART, Threads: 2, Seed: 4})
	r := startRig(t, pr, Options{})
	key := localKey(pr.First)
	port := r.waitPort(key)
	waitFor(t, "the VM's HELO", 10*time.Second, func() bool { return r.vm(key).App != "" })
	conns := vm.Stats().Connections.Load()

	cctx, cancel := context.WithCancel(context.Background())
	churned := make(chan int, 1)
	go func() {
		churned <- hostile.HandshakeChurn(cctx, fmt.Sprintf("127.0.0.1:%d", port), 25*time.Millisecond)
	}()
	const attaches = 16
	served := 0
	for i := 0; i < attaches; i++ {
		ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		dbg := dialDebugger(t, port, 1)
		if _, err := dbg.Version(ctx); err == nil {
			served++
		} else {
			t.Logf("attach %d: %v", i+1, err)
		}
		dbg.Close()
		stop()
		time.Sleep(30 * time.Millisecond)
	}
	cancel()
	n := <-churned
	if n < attaches {
		t.Fatalf("only %d churn handshakes completed", n)
	}
	if served != attaches {
		for _, rec := range r.records(func(rec jdwpspy.Record) bool {
			return rec.Type == jdwpspy.TypeSession && !strings.Contains(rec.Summary, "without a command")
		}) {
			t.Logf("%s %s", rec.Summary, rec.Note)
		}
		t.Errorf("a real debugger was served %d times in %d beside %d churned handshakes", served, attaches, n)
	}
	// Each real debugger re-opens the VM's connection (ddmlib's way); a
	// churned handshake must not.
	waitFor(t, "every real debugger's leave record", 10*time.Second, func() bool { return len(r.records(summaryHas(" left: "))) >= attaches })
	if got := vm.Stats().Connections.Load() - conns; got > attaches {
		t.Errorf("the VM's connection was opened %d times for %d real debuggers and %d churned handshakes", got, attaches, n)
	}
	waitFor(t, "the debugger state back to none", 10*time.Second, func() bool {
		v := r.vm(key)
		return v.App != "" && v.Debugger == monitor.DebuggerNone
	})
	r.stop()
}

// A client that attached (the VM shows a debugger) and leaves without a
// command is noted as such; the VM's session is kept and nothing is
// cleaned up in it.
func TestIdleDebuggerKeepsSession(t *testing.T) {
	leakcheck.Check(t)
	vm, pr := serveSim(t, sim.VMSpec{PID: 4445, App: "com.example.idle", Family: sim.ART, Threads: 2, Seed: 5})
	r := startRig(t, pr, Options{})
	key := localKey(pr.First)
	port := r.waitPort(key)
	waitFor(t, "the VM's HELO", 10*time.Second, func() bool { return r.vm(key).App != "" })
	conns := vm.Stats().Connections.Load()
	for i := 0; i < 3; i++ {
		dbg := dialDebugger(t, port, 1)
		waitFor(t, "the debugger attached", 10*time.Second, func() bool { return r.vm(key).Debugger == monitor.DebuggerAttached })
		dbg.Close()
		waitFor(t, "the debugger gone", 10*time.Second, func() bool { return r.vm(key).Debugger == monitor.DebuggerNone })
	}
	waitFor(t, "three idle leaves", 10*time.Second, func() bool { return len(r.records(summaryHas("left without a command"))) == 3 })
	for _, rec := range r.records(summaryHas("left without a command")) {
		if rec.Note != "nothing to undo; the VM's session kept" {
			t.Errorf("note %q", rec.Note)
		}
	}
	if got := vm.Stats().Connections.Load() - conns; got != 0 {
		t.Errorf("the VM's connection was re-opened %d times by debuggers that sent nothing", got)
	}
	// A real debugger is served after them, and its leave re-opens the VM.
	ctx := ctxT(t)
	dbg := dialDebugger(t, port, 1)
	if _, err := dbg.Version(ctx); err != nil {
		t.Fatal(err)
	}
	dbg.Close()
	waitFor(t, "the re-open after a real debugger", 10*time.Second, func() bool { return vm.Stats().Connections.Load() > conns })
	r.stop()
}

// A client that handshakes and then holds the connection without a command
// yields the slot to a real debugger after idleYield (it loses nothing: it
// sent nothing); the real one is served and the takeover is noted.
func TestSilentAttachedClientYields(t *testing.T) {
	leakcheck.Check(t)
	vm, pr := serveSim(t, sim.VMSpec{PID: 4446, App: "com.example.silent", Family: sim.ART, Threads: 2, Seed: 6})
	r := startRig(t, pr, Options{})
	key := localKey(pr.First)
	port := r.waitPort(key)
	waitFor(t, "the VM's HELO", 10*time.Second, func() bool { return r.vm(key).App != "" })
	conns := vm.Stats().Connections.Load()
	silent := dialDebugger(t, port, 1)
	waitFor(t, "the silent client attached", 10*time.Second, func() bool { return r.vm(key).Debugger == monitor.DebuggerAttached })
	dbg := dialDebugger(t, port, 1)
	if _, err := dbg.Version(ctxT(t)); err != nil {
		t.Fatalf("the real debugger behind a silent attached client: %v", err)
	}
	rec := r.waitRecord("the takeover", summaryHas("takes over"))
	if !strings.Contains(rec.Note, "sent no command in") {
		t.Errorf("takeover note %q", rec.Note)
	}
	select {
	case <-silent.Done():
	case <-time.After(10 * time.Second):
		t.Error("the silent client's connection was not closed")
	}
	r.waitRecord("the silent client's idle leave", summaryHas("left without a command"))
	if got := vm.Stats().Connections.Load() - conns; got != 0 {
		t.Errorf("the VM's connection was re-opened %d times before the real debugger left", got)
	}
	dbg.Close()
	r.stop()
}
