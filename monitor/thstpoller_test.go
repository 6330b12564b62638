package monitor

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// pollPeer is the VM side of a poller test: it hands every packet it reads
// to the test (reqs), and can be paused after reading a packet's header.
type pollPeer struct {
	nc      net.Conn
	reqs    chan *jdwp.Packet
	pause   atomic.Bool
	paused  chan struct{} // gets a value when the peer pauses
	resume  chan struct{}
	stopped chan struct{}
}

func (v *pollPeer) run() {
	defer close(v.stopped)
	for {
		var hdr [jdwp.HeaderLen]byte
		if _, err := io.ReadFull(v.nc, hdr[:]); err != nil {
			return
		}
		if v.pause.Load() {
			v.paused <- struct{}{}
			<-v.resume
		}
		body := make([]byte, binary.BigEndian.Uint32(hdr[:])-jdwp.HeaderLen)
		if _, err := io.ReadFull(v.nc, body); err != nil {
			return
		}
		p, err := jdwp.Decode(append(hdr[:], body...), 0)
		if err != nil {
			return
		}
		v.reqs <- p
	}
}

// answer replies to a THST request with a table of n threads.
func (v *pollPeer) answer(t *testing.T, req *jdwp.Packet, n int) {
	t.Helper()
	tab := &ddm.ThreadStatusTable{}
	for i := range n {
		tab.Threads = append(tab.Threads, ddm.ThreadStatus{ID: uint32(i + 1), Status: 1, SysTID: uint32(100 + i)})
	}
	if err := jdwp.WritePacket(v.nc, jdwp.NewReply(req.ID, jdwp.ErrNone, ddm.AppendMessage(nil, tab))); err != nil {
		t.Fatal(err)
	}
}

// answerApplied answers req with n threads and waits until the table is in
// the store and the poll is over.
func (v *pollPeer) answerApplied(t *testing.T, s *Session, p *thstPoller, req *jdwp.Packet, n int) {
	t.Helper()
	v.answer(t, req, n)
	waitFor(t, "the table in the store", 5*time.Second, func() bool { vm, _ := s.store.VM("poll"); return len(vm.Threads) == n })
	waitFor(t, "the poll to end", 5*time.Second, func() bool { return !pollerWaiting(p) })
}

// next returns the next packet the peer read, failing after a while.
func (v *pollPeer) next(t *testing.T) *jdwp.Packet {
	t.Helper()
	select {
	case p := <-v.reqs:
		return p
	case <-time.After(5 * time.Second):
		t.Fatal("no request reached the VM")
	}
	return nil
}

// none checks that the peer read nothing (for a moment).
func (v *pollPeer) none(t *testing.T, what string) {
	t.Helper()
	select {
	case p := <-v.reqs:
		t.Fatalf("%s: the VM got %v", what, p)
	case <-time.After(30 * time.Millisecond):
	}
}

// newPollerRig is a session on a pipe to a pollPeer, with a THST poller
// driven by the test's own clock (tick(now)), never by a pollClock.
func newPollerRig(t *testing.T) (*Session, *thstPoller, *pollPeer, context.CancelFunc) {
	t.Helper()
	a, b := net.Pipe()
	store := NewStore(NewBus())
	s := NewSession(scan.Endpoint{Key: "poll", Source: "local:1"}, store, SessionOptions{RequestTimeout: 2 * time.Second, ProbeTimeout: 500 * time.Millisecond})
	s.conn.family = ddm.FamilyART
	s.conn.jc = jdwp.NewConn(a, jdwp.Options{})
	s.begin(time.Now())
	v := &pollPeer{nc: b, reqs: make(chan *jdwp.Packet, 64), paused: make(chan struct{}, 1), resume: make(chan struct{}), stopped: make(chan struct{})}
	go v.run()
	ctx, cancel := context.WithCancel(context.Background())
	p := newTHSTPoller(ctx, s, time.Now())
	t.Cleanup(func() {
		cancel()
		p.stop()
		s.conn.jc.Close()
		b.Close()
		close(v.resume) // a peer paused by a failed test goes on
		<-v.stopped
	})
	return s, p, v, cancel
}

func isTHST(p *jdwp.Packet) bool {
	chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
	return err == nil && len(chunks) == 1 && chunks[0].Type == ddm.TypeTHST && !p.IsReply()
}

func pollerWaiting(p *thstPoller) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting
}

func misses(s *Session) int { return s.threads.missedNow() }

// One request is outstanding at most; its reply goes into the store, and
// the next tick asks again.
func TestTHSTPollerOneRequestAtATime(t *testing.T) {
	leakcheck.Check(t)
	s, p, v, _ := newPollerRig(t)
	t0 := time.Now()
	p.tick(t0)
	req := v.next(t)
	if !isTHST(req) {
		t.Fatalf("first request %v is not THST", req)
	}
	p.tick(t0.Add(100 * time.Millisecond)) // unanswered, not late
	v.none(t, "a tick while the request is outstanding")
	v.answerApplied(t, s, p, req, 3)
	p.tick(t0.Add(200 * time.Millisecond))
	if req2 := v.next(t); !isTHST(req2) || req2.ID == req.ID {
		t.Fatalf("second request %v (first %v)", req2, req)
	}
	if m := misses(s); m != 0 {
		t.Fatalf("%d misses", m)
	}
}

// A request older than the probe timeout (the first: THST not yet known)
// is missed: counted, the session told to start /proc, and its late reply
// dropped. After three misses the VM shows an error and is asked at every
// 8th tick only.
func TestTHSTPollerMissesAndBacksOff(t *testing.T) {
	leakcheck.Check(t)
	s, p, v, _ := newPollerRig(t)
	t0 := time.Now()
	p.tick(t0)
	first := v.next(t)
	p.tick(t0.Add(499 * time.Millisecond))
	if m := misses(s); m != 0 || !pollerWaiting(p) {
		t.Fatalf("before the probe timeout: %d misses, waiting %v", m, pollerWaiting(p))
	}
	p.tick(t0.Add(500 * time.Millisecond)) // ProbeTimeout, not RequestTimeout
	if m := misses(s); m != 1 {
		t.Fatalf("after the probe timeout: %d misses, want 1", m)
	}
	select {
	case <-p.unanswered:
	default:
		t.Fatal("the session was not told that THST is unanswered")
	}
	v.answer(t, first, 5) // too late: dropped
	time.Sleep(50 * time.Millisecond)
	if vm, _ := s.store.VM("poll"); len(vm.Threads) != 0 {
		t.Fatalf("a late reply was applied: %d threads", len(vm.Threads))
	}
	// Misses 2 and 3, each after RequestTimeout now that THST is known
	// unanswered.
	now := t0.Add(time.Second)
	for miss := 2; miss <= 3; miss++ {
		p.tick(now)
		v.next(t)
		p.tick(now.Add(2*time.Second - time.Millisecond))
		if m := misses(s); m != miss-1 {
			t.Fatalf("before RequestTimeout: %d misses, want %d", m, miss-1)
		}
		now = now.Add(2 * time.Second)
		p.tick(now)
		if m := misses(s); m != miss {
			t.Fatalf("after RequestTimeout: %d misses, want %d", m, miss)
		}
		now = now.Add(500 * time.Millisecond)
	}
	if vm, _ := s.store.VM("poll"); !strings.Contains(vm.Err, "does not answer thread status") {
		t.Fatalf("after three misses the VM's error is %q", vm.Err)
	}
	// The next request comes at the 8th tick.
	for k := 1; k <= 7; k++ {
		p.tick(now)
		now = now.Add(500 * time.Millisecond)
	}
	v.none(t, "seven ticks after the third miss")
	p.tick(now)
	req := v.next(t)
	v.answerApplied(t, s, p, req, 2)
	// Answered again: every tick asks.
	p.tick(now.Add(500 * time.Millisecond))
	v.next(t)
}

// While another write holds the connection (a debugger's large command), a
// tick sends nothing and waits for nothing: the next tick asks.
func TestTHSTPollerSkipsBusyConnection(t *testing.T) {
	leakcheck.Check(t)
	s, p, v, _ := newPollerRig(t)
	v.pause.Store(true)
	written := make(chan error, 1)
	go func() {
		written <- s.conn.jc.WritePacket(jdwp.NewCommand(7, 1, 1, make([]byte, 1<<20)))
	}()
	<-v.paused // the big command's header is read, its body is being written
	v.pause.Store(false)
	t0 := time.Now()
	p.tick(t0)
	if pollerWaiting(p) {
		t.Fatal("the poller waits for a request that was not sent")
	}
	v.resume <- struct{}{}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if big := v.next(t); isTHST(big) {
		t.Fatal("a THST request went out during the other write")
	}
	p.tick(t0.Add(500 * time.Millisecond))
	if req := v.next(t); !isTHST(req) {
		t.Fatalf("after the write: %v", req)
	}
	if m := misses(s); m != 0 {
		t.Fatalf("a busy connection counted %d misses", m)
	}
}

// A request whose connection ends is not a miss; after stop, ticks send
// nothing.
func TestTHSTPollerConnectionEndAndStop(t *testing.T) {
	leakcheck.Check(t)
	s, p, v, _ := newPollerRig(t)
	p.tick(time.Now())
	v.next(t)
	s.conn.jc.Close()
	waitFor(t, "the poll to end", 5*time.Second, func() bool { return !pollerWaiting(p) })
	if m := misses(s); m != 0 {
		t.Fatalf("the connection's end counted %d misses", m)
	}

	_, p2, v2, _ := newPollerRig(t)
	p2.stop()
	p2.tick(time.Now())
	v2.none(t, "a tick after stop")

	// A reply that comes after stop is not applied.
	s3, p3, v3, _ := newPollerRig(t)
	p3.tick(time.Now())
	req := v3.next(t)
	p3.stop()
	v3.answer(t, req, 4)
	time.Sleep(50 * time.Millisecond)
	if vm, _ := s3.store.VM("poll"); len(vm.Threads) != 0 {
		t.Fatalf("a reply after stop was applied: %d threads", len(vm.Threads))
	}
}
