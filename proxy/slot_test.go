package proxy

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Issue 16 item 7: a connection that never sends the handshake does not
// take the debugger slot; the real debugger behind it attaches at once.
func TestSilentConnectionDoesNotLockOutDebugger(t *testing.T) {
	leakcheck.Check(t)
	vm := startFakeVM(t)
	r := startRig(t, onePort(vm.port()), Options{})
	key := localKey(vm.port())
	port := r.waitPort(key)
	var silent []net.Conn
	for i := 0; i < maxHandshakes+8; i++ { // more than the proxy holds in the handshake
		nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		silent = append(silent, nc)
	}
	time.Sleep(50 * time.Millisecond) // the proxy has accepted them
	ctx := ctxT(t)
	dbg := dialDebugger(t, port, 1)
	if _, err := dbg.Version(ctx); err != nil {
		t.Fatalf("debugger behind silent connections: %v", err)
	}
	dbg.Close()
	for _, nc := range silent {
		nc.Close()
	}
	r.stop()
}

// Issue 16 item 7: a debugger that attaches while the previous one's
// cleanup (and, for a DDM VM, the re-open of the VM connection) runs waits
// for it and is served; before, nearly every such attach was refused.
func TestQuickReattachIsQueued(t *testing.T) {
	leakcheck.Check(t)
	for _, kind := range []string{"jdwp", "ddm"} {
		t.Run(kind, func(t *testing.T) {
			var ports [2]int
			if kind == "jdwp" {
				vm := startFakeVM(t)
				ports = [2]int{vm.port(), vm.port()}
			} else {
				_, pr := serveSim(t, sim.VMSpec{PID: 4343, App: "com.example.reattach", Family: sim.ART, Threads: 2, Seed: 3})
				ports = [2]int{pr.First, pr.Last}
			}
			r := startRig(t, onePort(ports[0]), Options{})
			key := localKey(ports[0])
			port := r.waitPort(key)
			ctx := ctxT(t)
			const attaches = 15
			for i := 0; i < attaches; i++ {
				dbg := dialDebugger(t, port, 1)
				if _, err := dbg.Version(ctx); err != nil {
					for _, rec := range r.records(func(jdwpspy.Record) bool { return true }) {
						if rec.Type == jdwpspy.TypeSession {
							t.Logf("%s %s", rec.Summary, rec.Note)
						}
					}
					t.Fatalf("attach %d of %d: %v", i+1, attaches, err)
				}
				dbg.Close()
			}
			if n := len(r.records(summaryHas("refused"))); n != 0 {
				t.Errorf("%d debuggers refused", n)
			}
			waitFor(t, "every leave record", 10*time.Second, func() bool { return len(r.records(summaryHas(" left: "))) == attaches })
			if q := r.records(func(rec jdwpspy.Record) bool { return strings.Contains(rec.Summary, "waits") }); len(q) == 0 {
				t.Logf("no attach had to wait (the cleanups were quicker than the re-attaches)")
			}
			r.stop()
		})
	}
}
