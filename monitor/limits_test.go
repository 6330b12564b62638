package monitor

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Issue 16 item 4: the packets a VM sends a session are bounded by what real
// VMs send (DefaultVMPacketLen); a VM that sends more unasked loses its
// session with the reason shown, while a streamed heap dump, awaited, may be
// far larger than that bound.
func TestSessionPacketLimits(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, []sim.VMSpec{{PID: 401, App: "com.example.dumps", Family: sim.ART, HeapBytes: 2 << 20, Seed: 4}}, 1,
		SessionOptions{MaxPacketLen: 4 << 10})
	flood, err := hostile.Serve(net.JoinHostPort("127.0.0.1", itoa(r.ports.First+1)), hostile.HelloVM(402, func(send func(ddm.Message) error, stop <-chan struct{}) {
		_ = send(&ddm.HeapDumpData{HPROF: make([]byte, 1<<20)}) // unasked: past the 4 KiB bound
		<-stop
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer flood.Close()
	waitFor(t, "the oversized VM's failure", 5*time.Second, func() bool {
		for _, f := range r.engine.View() {
			if f.VM.Key == r.key(1) {
				return strings.Contains(f.Failed, "exceeds the limit")
			}
		}
		return false
	})
	var s *Session
	waitFor(t, "the simulated VM", 5*time.Second, func() bool { s = r.engine.Session(r.key(0)); return s != nil })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	data, err := s.HeapDump(ctx, nil)
	if err != nil || len(data) <= 4<<10 {
		t.Fatalf("streamed heap dump: %d bytes, %v (want more than the 4 KiB bound)", len(data), err)
	}
	if got := s.conn.jc.MaxPacketLen(); got != 4<<10 {
		t.Errorf("after the dump the packet bound is %d, want it back at 4 KiB", got)
	}
	var o SessionOptions
	o.fill()
	if o.MaxPacketLen != DefaultVMPacketLen || o.MaxPacketLen > 64<<20 || o.StreamPacketLen < 256<<20 {
		t.Errorf("default bounds %d, streamed %d", o.MaxPacketLen, o.StreamPacketLen)
	}
}
