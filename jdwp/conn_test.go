package jdwp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// listen starts a loopback listener whose single accepted connection is
// handed to serve after the server side of the handshake.
func listen(t *testing.T, serve func(nc net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		if err := ServerHandshake(nc, time.Second); err != nil {
			return
		}
		serve(nc)
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().String()
}

func dial(t *testing.T, addr string, opts Options) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := Dial(ctx, addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// echoVM answers every command with a reply whose data is the command's data,
// in a shuffled order (it collects n requests, then answers them backwards),
// so matching by id is really exercised.
func echoVM(batch int) func(net.Conn) {
	return func(nc net.Conn) {
		for {
			var got []*Packet
			for len(got) < batch {
				p, err := ReadPacket(nc, 0)
				if err != nil {
					return
				}
				got = append(got, p)
			}
			for i := len(got) - 1; i >= 0; i-- {
				if err := WritePacket(nc, NewReply(got[i].ID, ErrNone, got[i].Data)); err != nil {
					return
				}
			}
		}
	}
}

func TestConcurrentRequestsMatchedById(t *testing.T) {
	leakcheck.Check(t)
	const n = 400
	addr := listen(t, echoVM(8))
	c := dial(t, addr, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			want := fmt.Sprintf("request-%d", i)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			p, err := c.Request(ctx, CmdSetDDM, CmdDDMChunk, []byte(want))
			if err != nil {
				errs <- err
				return
			}
			if string(p.Data) != want {
				errs <- fmt.Errorf("request %d got reply %q", i, p.Data)
			}
			if !c.OwnsID(p.ID) {
				errs <- fmt.Errorf("id %#x outside our range", p.ID)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := c.Stats().PacketsOut.Load(); got != n {
		t.Errorf("packets out = %d, want %d", got, n)
	}
}

func TestIncomingGetsUnsolicitedAndForeignReplies(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, func(nc net.Conn) {
		// A VM-issued DDM chunk, an Event.Composite, a reply to a debugger id (7)
		// and a late reply to one of our ids nobody waits for.
		WritePacket(nc, NewCommand(0x10000001, CmdSetDDM, CmdDDMChunk, []byte("THCR")))
		WritePacket(nc, NewCommand(0x10000002, CmdSetEvent, CmdEventComposite, []byte{0, 0, 0, 0, 0}))
		WritePacket(nc, NewReply(7, ErrNone, []byte("dbg")))
		WritePacket(nc, NewReply(DefaultIDBase+999, ErrNone, nil))
		WritePacket(nc, NewCommand(0x10000003, CmdSetDDM, CmdDDMChunk, []byte("last")))
		io.Copy(io.Discard, nc)
	})
	c := dial(t, addr, Options{})
	var got []string
	for p := range c.Incoming() {
		got = append(got, fmt.Sprintf("%#x/%v/%s", p.ID, p.IsReply(), p.Data))
		if string(p.Data) == "last" {
			break
		}
	}
	want := []string{"0x10000001/false/THCR", "0x10000002/false/\x00\x00\x00\x00\x00", "0x7/true/dbg", "0x10000003/false/last"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("incoming = %q, want %q", got, want)
	}
	if d := c.Stats().DroppedReplies.Load(); d != 1 {
		t.Fatalf("dropped replies = %d, want 1", d)
	}
}

func TestErrorReply(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, func(nc net.Conn) {
		p, err := ReadPacket(nc, 0)
		if err != nil {
			return
		}
		WritePacket(nc, NewReply(p.ID, ErrNotImplemented, nil))
		io.Copy(io.Discard, nc)
	})
	c := dial(t, addr, Options{})
	_, err := c.Request(context.Background(), CmdSetDDM, CmdDDMChunk, nil)
	var re *ReplyError
	if !errors.As(err, &re) || re.Code != ErrNotImplemented {
		t.Fatalf("err = %v, want NOT_IMPLEMENTED", err)
	}
}

func TestVMClosesMidPacketWakesEveryWaiter(t *testing.T) {
	leakcheck.Check(t)
	const waiters = 20
	addr := listen(t, func(nc net.Conn) {
		for i := 0; i < waiters; i++ {
			if _, err := ReadPacket(nc, 0); err != nil {
				return
			}
		}
		// Half a packet: a length of 100, an id, then the VM dies.
		nc.Write([]byte{0, 0, 0, 100, 0x40, 0, 0, 1, 0x80})
	})
	c := dial(t, addr, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, waiters)
	for i := 0; i < waiters; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Request(context.Background(), CmdSetDDM, CmdDDMChunk, nil)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("waiter woke with %v, want unexpected EOF", err)
		}
	}
	<-c.Done()
	if _, ok := <-c.Incoming(); ok {
		t.Fatal("Incoming still open after the connection ended")
	}
	if _, err := c.Request(context.Background(), 1, 1, nil); err == nil {
		t.Fatal("request on a dead connection succeeded")
	}
}

func TestContextCancellationAndLateReply(t *testing.T) {
	leakcheck.Check(t)
	release := make(chan struct{})
	addr := listen(t, func(nc net.Conn) {
		p, err := ReadPacket(nc, 0)
		if err != nil {
			return
		}
		<-release
		WritePacket(nc, NewReply(p.ID, ErrNone, []byte("late")))
		// Then answer a second request normally.
		q, err := ReadPacket(nc, 0)
		if err != nil {
			return
		}
		WritePacket(nc, NewReply(q.ID, ErrNone, []byte("second")))
		io.Copy(io.Discard, nc)
	})
	c := dial(t, addr, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Request(ctx, CmdSetDDM, CmdDDMChunk, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	close(release)
	p, err := c.Request(context.Background(), CmdSetDDM, CmdDDMChunk, nil)
	if err != nil || string(p.Data) != "second" {
		t.Fatalf("second request: %v %q (the late reply must not be delivered to it)", err, p.Data)
	}
	if d := c.Stats().DroppedReplies.Load(); d != 1 {
		t.Fatalf("dropped replies = %d, want 1", d)
	}
}

func TestCloseWakesWaitersAndReader(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, func(nc net.Conn) { io.Copy(io.Discard, nc) })
	c := dial(t, addr, Options{})
	errc := make(chan error, 1)
	go func() {
		_, err := c.Request(context.Background(), CmdSetDDM, CmdDDMChunk, nil)
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	c.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("waiter woke with %v, want ErrClosed", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not wake the waiter")
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Fatalf("Err() = %v", c.Err())
	}
}

// A consumer that never reads Incoming must not keep the reader goroutine
// alive past Close.
func TestCloseWithUnreadIncoming(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, func(nc net.Conn) {
		for i := 0; i < 50; i++ {
			if WritePacket(nc, NewCommand(uint32(0x10000000+i), CmdSetDDM, CmdDDMChunk, nil)) != nil {
				return
			}
		}
		io.Copy(io.Discard, nc)
	})
	c := dial(t, addr, Options{IncomingBuffer: 2})
	time.Sleep(50 * time.Millisecond)
	done := make(chan struct{})
	go func() { c.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Close blocked behind an unread Incoming channel")
	}
}

func TestPostDropsReply(t *testing.T) {
	leakcheck.Check(t)
	addr := listen(t, echoVM(1))
	c := dial(t, addr, Options{})
	id, err := c.Post(CmdSetDDM, CmdDDMChunk, []byte("x"))
	if err != nil || !c.OwnsID(id) {
		t.Fatalf("post: %#x %v", id, err)
	}
	p, err := c.Request(context.Background(), CmdSetDDM, CmdDDMChunk, []byte("y"))
	if err != nil || string(p.Data) != "y" {
		t.Fatalf("request after post: %v %v", p, err)
	}
	if d := c.Stats().DroppedReplies.Load(); d != 1 {
		t.Fatalf("dropped = %d", d)
	}
}

func TestIDAllocationWrapsWithinRange(t *testing.T) {
	c := &Conn{opts: Options{IDBase: DefaultIDBase}, pending: map[uint32]waiter{}, next: DefaultIDBase + idSpan - 2}
	c.pending[DefaultIDBase] = waiter{} // busy: must be skipped after wrapping
	got := []uint32{c.allocID(), c.allocID(), c.allocID()}
	want := []uint32{DefaultIDBase + idSpan - 2, DefaultIDBase + idSpan - 1, DefaultIDBase + 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ids %#x, want %#x", got, want)
	}
	for _, id := range []uint32{1, 0x10000000, 0x20000003, 0x80000001, 0x3FFFFFFF, 0x50000000} {
		if c.OwnsID(id) {
			t.Errorf("OwnsID(%#x) = true: a debugger's or VM's id would be taken for ours", id)
		}
	}
}

func TestHandshakeRoles(t *testing.T) {
	leakcheck.Check(t)
	// A packet sent in the same segment right behind the echo must survive.
	addr := listen(t, func(nc net.Conn) {
		WritePacket(nc, NewCommand(0x10000000, CmdSetDDM, CmdDDMChunk, []byte("early")))
		io.Copy(io.Discard, nc)
	})
	c := dial(t, addr, Options{})
	p := <-c.Incoming()
	if p == nil || string(p.Data) != "early" {
		t.Fatalf("packet behind the handshake lost: %v", p)
	}
}

func TestHandshakeRejectsNonJDWP(t *testing.T) {
	leakcheck.Check(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		nc.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
		io.Copy(io.Discard, nc)
	}()
	_, err = Dial(context.Background(), ln.Addr().String(), Options{})
	if !errors.Is(err, ErrNotJDWP) {
		t.Fatalf("err = %v, want ErrNotJDWP", err)
	}
}

func TestHandshakeTimesOutOnSilentPeer(t *testing.T) {
	leakcheck.Check(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hold := make(chan struct{})
	defer close(hold)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		<-hold
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Dial(ctx, ln.Addr().String(), Options{})
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatal("handshake timeout not honoured")
	}
}

func TestServerHandshakeRejectsGarbage(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go a.Write([]byte("GET / HTTP/1.1\r\n"))
	err := ServerHandshake(b, time.Second)
	var he *HandshakeError
	if !errors.As(err, &he) || !errors.Is(err, ErrNotJDWP) || string(he.Got) != "GET / HTTP/1.1" {
		t.Fatalf("err = %v", err)
	}
}
