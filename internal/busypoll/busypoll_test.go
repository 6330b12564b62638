package busypoll

import (
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// pair returns the two ends of a loopback TCP connection.
func pair(t *testing.T) (a, b *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		done <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-done
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

func raw(t *testing.T, c *net.TCPConn) syscall.RawConn {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

func linuxOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skipf("busy polling is implemented on Linux only (this is %s)", runtime.GOOS)
	}
}

func TestReadableSeesDataAlreadyThere(t *testing.T) {
	linuxOnly(t)
	a, b := pair(t)
	if _, err := a.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // loopback delivers within the write; be generous
	if !Readable(time.Second, raw(t, b)) {
		t.Fatal("data waiting: want readable")
	}
}

func TestReadableGivesUpAfterBudget(t *testing.T) {
	a, b := pair(t)
	_ = a
	t0 := time.Now()
	if Readable(20*time.Millisecond, raw(t, b)) {
		t.Fatal("nothing sent: want not readable")
	}
	if d := time.Since(t0); runtime.GOOS == "linux" && d < 20*time.Millisecond {
		t.Fatalf("gave up after %v, before its 20ms budget", d)
	}
}

func TestReadableWakesOnArrival(t *testing.T) {
	linuxOnly(t)
	a, b := pair(t)
	go func() {
		time.Sleep(20 * time.Millisecond)
		a.Write([]byte{1})
	}()
	t0 := time.Now()
	if !Readable(10*time.Second, raw(t, b)) {
		t.Fatal("data sent during the poll: want readable")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("took %v: the poll did not see the data arrive", d)
	}
}

// Any of the sockets will do; the others are held but need not be ready.
func TestReadableWatchesEverySocket(t *testing.T) {
	linuxOnly(t)
	a1, b1 := pair(t)
	a2, b2 := pair(t)
	_ = a1
	if _, err := a2.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	if !Readable(time.Second, raw(t, b1), raw(t, b2)) {
		t.Fatal("second socket readable: want readable")
	}
	if Readable(10*time.Millisecond, raw(t, b1)) {
		t.Fatal("first socket alone: want not readable")
	}
	// As many sockets as one call takes (maxSocks), the last one readable.
	a3, b3 := pair(t)
	_, b4 := pair(t)
	_ = a3
	if !Readable(time.Second, raw(t, b1), raw(t, b3), raw(t, b4), raw(t, b2)) {
		t.Fatalf("%d sockets, the last readable: want readable", maxSocks)
	}
}

func TestReadablePeerClosed(t *testing.T) {
	linuxOnly(t)
	a, b := pair(t)
	a.Close()
	if !Readable(time.Second, raw(t, b)) {
		t.Fatal("peer closed: want readable (the read sees the end)")
	}
}

func TestReadableNothingToWatch(t *testing.T) {
	_, b := pair(t)
	rc := raw(t, b)
	for name, f := range map[string]func() bool{
		"zero budget":     func() bool { return Readable(0, rc) },
		"negative budget": func() bool { return Readable(-time.Second, rc) },
		"no sockets":      func() bool { return Readable(time.Second) },
		"nil socket":      func() bool { return Readable(time.Second, rc, nil) },
		"too many":        func() bool { return Readable(time.Second, rc, rc, rc, rc, rc) },
	} {
		t0 := time.Now()
		if f() {
			t.Errorf("%s: want false", name)
		}
		if d := time.Since(t0); d > 500*time.Millisecond {
			t.Errorf("%s: took %v, want at once", name, d)
		}
	}
	b.Close()
	t0 := time.Now()
	if Readable(time.Second, rc) {
		t.Error("closed socket: want false")
	}
	if d := time.Since(t0); d > 500*time.Millisecond {
		t.Errorf("closed socket: took %v, want at once", d)
	}
}

// A poll whose thread is switched out involuntarily ends at once and says
// so (the scheduler's signal is stubbed: a count that grows on every look).
func TestPollEndsWhenPreempted(t *testing.T) {
	linuxOnly(t)
	_, b := pair(t)
	old := involuntarySwitches
	var n int64
	involuntarySwitches = func() int64 { n++; return n }
	defer func() { involuntarySwitches = old }()
	t0 := time.Now()
	r := Poll(10*time.Second, raw(t, b))
	if r.Ready || !r.Preempted {
		t.Fatalf("switches growing: got %+v, want preempted and not ready", r)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("took %v: the poll did not end when preempted", d)
	}
	// Not growing: the poll runs to its budget, not preempted.
	involuntarySwitches = func() int64 { return 7 }
	t0 = time.Now()
	if r := Poll(5*time.Millisecond, raw(t, b)); r.Ready || r.Preempted {
		t.Fatalf("switches steady: got %+v, want neither", r)
	}
	if d := time.Since(t0); d < 5*time.Millisecond {
		t.Fatalf("switches steady: gave up after %v, before the 5ms budget", d)
	}
	// Readable does not watch them.
	involuntarySwitches = func() int64 { n++; return n }
	t0 = time.Now()
	if Readable(5*time.Millisecond, raw(t, b)) {
		t.Fatal("nothing sent: want not readable")
	}
	if d := time.Since(t0); d < 5*time.Millisecond {
		t.Fatalf("Readable gave up after %v, before its budget: it must not watch preemption", d)
	}
}
