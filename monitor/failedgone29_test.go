package monitor

import (
	"net"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Issue 29 #5: an endpoint that handshakes and then sends garbage leaves
// with VMGone.Failed, and is never Working; a VM that worked leaves
// without it.
func TestFailedEndpointGoneAsFailed(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, []sim.VMSpec{{PID: 311, App: "com.example.ok", Family: sim.ART, Threads: 2, Seed: 1}}, 1, SessionOptions{RequestTimeout: 100 * time.Millisecond})
	sub := r.store.Bus().Subscribe()
	defer sub.Close()
	srv, err := hostile.Serve(net.JoinHostPort("127.0.0.1", itoa(r.ports.First+1)), hostile.BadLength)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	waitFor(t, "the working VM", 5*time.Second, func() bool {
		s := r.engine.Session(r.key(0))
		return s != nil && s.Link().Working()
	})
	var gone VMGone
	waitFor(t, "the bad endpoint gone as failed", 5*time.Second, func() bool {
		for _, ev := range sub.Drain() {
			if g, ok := ev.(VMGone); ok && g.Key == r.key(1) {
				gone = g
				return true
			}
			if g, ok := ev.(VMGone); ok && g.Key == r.key(0) {
				t.Fatalf("the working VM went: %+v", g)
			}
		}
		if s := r.engine.Session(r.key(1)); s != nil && s.Link().Working() {
			t.Fatal("the bad endpoint is Working")
		}
		return false
	})
	if !gone.Failed {
		t.Fatalf("VMGone %+v, want Failed", gone)
	}
}
