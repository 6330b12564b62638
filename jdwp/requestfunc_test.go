package jdwp

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

type funcResult struct {
	p   *Packet
	err error
}

// collect returns a callback that sends what it gets on a channel, and
// fails the test if it is called twice.
func collect(t *testing.T) (func(*Packet, error), chan funcResult) {
	ch := make(chan funcResult, 2)
	var once sync.Once
	return func(p *Packet, err error) {
		called := false
		once.Do(func() { called = true })
		if !called {
			t.Error("callback called twice")
		}
		ch <- funcResult{p, err}
	}, ch
}

func waitResult(t *testing.T, ch chan funcResult) funcResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("callback not called")
	}
	return funcResult{}
}

// Replies reach their callbacks by id, in whatever order the peer answers;
// an error code comes as a *ReplyError with the reply.
func TestTryRequestFuncReplies(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, echoVM(3))
	c := dial(t, addr, Options{})
	var chans []chan funcResult
	for _, d := range []string{"a", "b", "c"} {
		fn, ch := collect(t)
		if _, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, []byte(d), fn); err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	for i, d := range []string{"a", "b", "c"} {
		if r := waitResult(t, chans[i]); r.err != nil || r.p == nil || string(r.p.Data) != d {
			t.Errorf("request %q: %v %v", d, r.p, r.err)
		}
	}

}

// A request taken back with Forget is never answered to its callback: the
// late reply is dropped and counted.
func TestForgetDropsLateReply(t *testing.T) {
	leakcheck.Check(t)
	release := make(chan struct{})
	addr := listen(t, func(nc net.Conn) {
		p, err := ReadPacket(nc, 0)
		if err != nil {
			return
		}
		<-release
		WritePacket(nc, NewReply(p.ID, ErrNone, nil))
		p, err = ReadPacket(nc, 0) // a second request, answered at once
		if err == nil {
			WritePacket(nc, NewReply(p.ID, ErrNone, []byte("second")))
		}
		ReadPacket(nc, 0)
	})
	c := dial(t, addr, Options{})
	fn, ch := collect(t)
	id, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, nil, fn)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Forget(id) {
		t.Fatal("Forget: the request was not pending")
	}
	if c.Forget(id) {
		t.Fatal("Forget twice reported pending twice")
	}
	close(release)
	fn2, ch2 := collect(t)
	if _, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, nil, fn2); err != nil {
		t.Fatal(err)
	}
	if r := waitResult(t, ch2); r.err != nil || string(r.p.Data) != "second" {
		t.Fatalf("second request: %v %v", r.p, r.err)
	}
	select {
	case r := <-ch:
		t.Fatalf("a forgotten request's callback was called: %v %v", r.p, r.err)
	default:
	}
	if d := c.Stats().DroppedReplies.Load(); d != 1 {
		t.Fatalf("dropped replies %d, want 1", d)
	}
}

// An error code in the reply reaches the callback as a *ReplyError.
func TestTryRequestFuncReplyError(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, func(nc net.Conn) {
		p, err := ReadPacket(nc, 0)
		if err == nil {
			WritePacket(nc, NewReply(p.ID, ErrInvalidThread, nil))
		}
		ReadPacket(nc, 0)
	})
	c := dial(t, addr, Options{})
	fn, ch := collect(t)
	if _, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, nil, fn); err != nil {
		t.Fatal(err)
	}
	r := waitResult(t, ch)
	var re *ReplyError
	if !errors.As(r.err, &re) || re.Code != ErrInvalidThread || re.CommandSet != CmdSetDDM || r.p == nil {
		t.Fatalf("reply error: %v %v", r.p, r.err)
	}
}

// When the connection ends first, each pending callback gets its error once;
// a request made after the end is refused and its callback never called.
func TestTryRequestFuncConnectionEnds(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, func(nc net.Conn) {
		ReadPacket(nc, 0)
		ReadPacket(nc, 0) // two requests read, none answered; then the peer hangs up
	})
	c := dial(t, addr, Options{})
	var chans []chan funcResult
	for range 2 {
		fn, ch := collect(t)
		if _, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, nil, fn); err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
	}
	for _, ch := range chans {
		if r := waitResult(t, ch); r.err == nil || r.p != nil {
			t.Errorf("pending at the end: %v %v, want the connection's error", r.p, r.err)
		}
	}
	<-c.Done()
	fn, ch := collect(t)
	if _, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, nil, fn); err == nil {
		t.Fatal("a request after the end was accepted")
	}
	select {
	case r := <-ch:
		t.Fatalf("refused request's callback called: %v", r.err)
	case <-time.After(50 * time.Millisecond):
	}
}

// While another write holds the connection, TryRequestFunc sends nothing
// and says ErrBusy; the request is not left pending.
func TestTryRequestFuncBusy(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, echoVM(1))
	c := dial(t, addr, Options{})
	c.wmu.Lock()
	fn, ch := collect(t)
	_, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, nil, fn)
	c.wmu.Unlock()
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("with the write lock held: %v, want ErrBusy", err)
	}
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d requests left pending after ErrBusy", n)
	}
	if _, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, []byte("ok"), fn); err != nil {
		t.Fatal(err)
	}
	if r := waitResult(t, ch); r.err != nil || string(r.p.Data) != "ok" {
		t.Fatalf("after the write lock: %v %v", r.p, r.err)
	}
}

// The write deadline is renewed when less than half of WriteTimeout is left,
// not for every packet.
func TestWriteDeadlineRenewedAtHalf(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, echoVM(1))
	const wt = 400 * time.Millisecond
	c := dial(t, addr, Options{WriteTimeout: wt})
	send := func() time.Time {
		t.Helper()
		fn, ch := collect(t)
		if _, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, nil, fn); err != nil {
			t.Fatal(err)
		}
		waitResult(t, ch)
		c.wmu.Lock()
		defer c.wmu.Unlock()
		return c.wdeadline
	}
	d1 := send()
	if left := time.Until(d1); left <= wt/2 || left > wt {
		t.Fatalf("first deadline %v ahead, want within (%v, %v]", left, wt/2, wt)
	}
	if d2 := send(); !d2.Equal(d1) {
		t.Fatalf("deadline renewed with more than half left: %v then %v", d1, d2)
	}
	time.Sleep(time.Until(d1.Add(-wt/2)) + 10*time.Millisecond)
	if d3 := send(); !d3.After(d1) {
		t.Fatalf("deadline not renewed with under half left: %v then %v", d1, d3)
	}
}

// Route is offered every packet but the replies to this Conn's requests, on
// the reader, in order; what it takes never reaches Incoming, the rest does.
func TestRouteTakesPacketsInOrder(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, func(nc net.Conn) {
		p, err := ReadPacket(nc, 0) // our request: answered after four VM packets
		if err != nil {
			return
		}
		for i := range uint32(4) {
			WritePacket(nc, NewCommand(0x10000000+i, CmdSetDDM, CmdDDMChunk, []byte{byte(i)}))
		}
		WritePacket(nc, NewReply(p.ID, ErrNone, []byte("mine")))
		WritePacket(nc, NewReply(5, ErrNone, []byte("a debugger's")))
		ReadPacket(nc, 0)
	})
	var mu sync.Mutex
	var routed []uint32
	c := dial(t, addr, Options{Route: func(p *Packet) bool {
		mu.Lock()
		defer mu.Unlock()
		routed = append(routed, p.ID)
		return p.ID%2 == 0 // takes the even ids
	}})
	fn, ch := collect(t)
	if _, err := c.TryRequestFunc(CmdSetDDM, CmdDDMChunk, nil, fn); err != nil {
		t.Fatal(err)
	}
	if r := waitResult(t, ch); r.err != nil || string(r.p.Data) != "mine" {
		t.Fatalf("own reply: %v %v", r.p, r.err)
	}
	var queued []uint32
	for len(queued) < 3 {
		select {
		case p := <-c.Incoming():
			queued = append(queued, p.ID)
		case <-time.After(5 * time.Second):
			t.Fatalf("Incoming got %#x", queued)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(routed) != fmt.Sprint([]uint32{0x10000000, 0x10000001, 0x10000002, 0x10000003, 5}) {
		t.Errorf("offered %#x", routed)
	}
	if fmt.Sprint(queued) != fmt.Sprint([]uint32{0x10000001, 0x10000003, 5}) {
		t.Errorf("queued %#x, want the packets Route left", queued)
	}
}
