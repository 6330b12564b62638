package proxy

import (
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Issue 29 #5: an endpoint that handshakes and then sends garbage is no
// VM: it takes no debugger port, however often discovery retries it.
func TestFailedEndpointTakesNoPort(t *testing.T) {
	leakcheck.Check(t)
	srv, err := hostile.Serve("127.0.0.1:0", hostile.BadLength)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	r := startRig(t, onePort(srv.Port()), Options{})
	key := localKey(srv.Port())
	deadline := time.Now().Add(1500 * time.Millisecond) // dozens of retries at the rig's 40 ms scan
	sessions := 0
	for time.Now().Before(deadline) {
		if r.engine.Session(key) != nil {
			sessions++
		}
		for _, ps := range r.proxy.Ports() {
			if ps.VM == key {
				t.Fatalf("the failed endpoint has a port: %+v", ps)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	tried := sessions > 0
	for _, f := range r.engine.View() {
		tried = tried || f.VM.Key == key && f.Failed != ""
	}
	if !tried {
		t.Fatal("discovery never opened a session on the endpoint: the test proves nothing")
	}
	r.stop()
}
