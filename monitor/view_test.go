package monitor

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// A peer that never answers the handshake must not keep a session (and so
// `ddmtui list`) running past its context.
func TestHandshakeEndsWithContext(t *testing.T) {
	leakcheck.Check(t)
	srv, err := hostile.Serve("127.0.0.1:0", hostile.Slowloris)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	store := NewStore(NewBus())
	s := NewSession(scan.Endpoint{Key: "local:1", Source: "local:1", Conn: nc}, store, SessionOptions{HandshakeTimeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, nc) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run still in the handshake 10s after its context ended")
	}
}

// The engine's view keeps failed endpoints with their reason beside working
// VMs, and forgets a failure once that endpoint serves a working VM.
func TestViewReportsFailures(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, []sim.VMSpec{{PID: 301, App: "com.example.ok", Family: sim.ART, Threads: 2, Seed: 1}}, 3, SessionOptions{RequestTimeout: 100 * time.Millisecond})
	var servers []*hostile.Server
	for i, b := range []hostile.Behaviour{hostile.BadLength, hostile.NoHELO, hostile.Garbage} {
		srv, err := hostile.Serve(net.JoinHostPort("127.0.0.1", itoa(r.ports.First+1+i)), b)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		servers = append(servers, srv)
	}
	want := map[string]string{
		r.key(0): "",
		r.key(1): "shorter than its header",
		r.key(2): "no reply to HELO",
		r.key(3): "not a JDWP VM",
	}
	var view []Found
	waitFor(t, "every endpoint decided", 5*time.Second, func() bool {
		view = r.engine.View()
		if len(view) != len(want) {
			return false
		}
		for _, f := range view {
			w, ok := want[f.VM.Key]
			if !ok || (w == "") != (f.Failed == "") || !strings.Contains(f.Failed, w) || strings.HasSuffix(f.Failed, " yet") {
				return false
			}
		}
		return true
	})
	if view[0].VM.PID != 301 || view[0].VM.App != "com.example.ok" {
		t.Errorf("working VM %+v", view[0].VM)
	}

	// The bad-length port becomes a working VM: its failure is forgotten.
	servers[0].Close()
	vm := sim.NewVM(sim.VMSpec{PID: 302, App: "com.example.next", Family: sim.ART, Threads: 1, Seed: 2})
	r.dev.Add(vm)
	if _, err := r.dev.ServeVM(vm, net.JoinHostPort("127.0.0.1", itoa(r.ports.First+1))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the failure replaced by the VM", 5*time.Second, func() bool {
		for _, f := range r.engine.View() {
			if f.VM.Key == r.key(1) {
				return f.Failed == "" && f.VM.PID == 302
			}
		}
		return false
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
