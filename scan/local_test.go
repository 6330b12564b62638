package scan

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

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		in     string
		want   PortRange
		ok     bool
		hasErr bool
	}{
		{"8000-8040", PortRange{8000, 8040}, true, false},
		{"8000", PortRange{8000, 8000}, true, false},
		{"off", PortRange{}, false, false},
		{"9-3", PortRange{}, false, true},
		{"0-10", PortRange{}, false, true},
		{"1-70000", PortRange{}, false, true},
		{"abc", PortRange{}, false, true},
		{"1000-9000", PortRange{}, false, true},
	} {
		r, ok, err := ParseRange(c.in)
		if r != c.want || ok != c.ok || (err != nil) != c.hasErr {
			t.Errorf("ParseRange(%q) = %v %v %v", c.in, r, ok, err)
		}
	}
}

// freeRange finds n consecutive free loopback ports.
func freeRange(t *testing.T, n int) PortRange {
	t.Helper()
	for base := 20000 + (time.Now().Nanosecond()/1000)%20000; base < 60000; base += n + 7 {
		ok := true
		for p := base; p < base+n; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				ok = false
				break
			}
			ln.Close()
		}
		if ok {
			return PortRange{base, base + n - 1}
		}
	}
	t.Fatal("no free port range")
	return PortRange{}
}

func TestLocalFindsAppearingAndDyingEndpoints(t *testing.T) {
	leakcheck.Check(t)
	r := freeRange(t, 5)
	ctx, cancel := context.WithCancel(context.Background())
	found := make(chan string, 16)
	ended := make(chan string, 16)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		(&Local{Ports: r, Interval: 50 * time.Millisecond}).Run(ctx, func(ctx context.Context, ep Endpoint) error {
			defer ep.Conn.Close()
			found <- ep.Key
			// The session lasts until the peer closes or the scan stops.
			go func() { <-ctx.Done(); ep.Conn.Close() }()
			io.Copy(io.Discard, ep.Conn)
			ended <- ep.Key
			return nil
		})
	}()
	defer func() { cancel(); wg.Wait() }()

	// A listener appears on the third port after the scan started.
	time.Sleep(120 * time.Millisecond)
	port := r.First + 2
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted []net.Conn
	var amu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			amu.Lock()
			accepted = append(accepted, c)
			amu.Unlock()
		}
	}()
	want := fmt.Sprintf("local:%d", port)
	select {
	case k := <-found:
		if k != want {
			t.Fatalf("found %s, want %s", k, want)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("endpoint not found within the interval")
	}
	// While the session runs the port is not probed again.
	time.Sleep(200 * time.Millisecond)
	amu.Lock()
	n := len(accepted)
	amu.Unlock()
	if n != 1 {
		t.Fatalf("port probed %d times while its session ran", n)
	}
	// The VM dies: the session ends, the listener goes away.
	ln.Close()
	amu.Lock()
	for _, c := range accepted {
		c.Close()
	}
	amu.Unlock()
	select {
	case k := <-ended:
		if k != want {
			t.Fatalf("ended %s", k)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("session did not end when the VM died")
	}
	select {
	case k := <-found:
		t.Fatalf("dead endpoint %s found again", k)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestLocalBacksOffNonVMPorts(t *testing.T) {
	leakcheck.Check(t)
	r := freeRange(t, 1)
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", r.First))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	var mu sync.Mutex
	calls := 0
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	(&Local{Ports: r, Interval: 20 * time.Millisecond, NotVMBackoff: time.Hour}).Run(ctx, func(ctx context.Context, ep Endpoint) error {
		ep.Conn.Close()
		mu.Lock()
		calls++
		mu.Unlock()
		return fmt.Errorf("handshake: %w", ErrNotVM)
	})
	if calls != 1 {
		t.Fatalf("non-VM port handed over %d times, want 1 (then backoff)", calls)
	}
}

// A busy VM (it closed the connection before the handshake: ErrBusy) is
// probed again at once, many times before the next interval (an hour
// here), with waits doubling from 25 ms; the next answer that is not busy
// ends the retries.
func TestLocalRetriesBusyPortSoon(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := make(chan int, 16)
	n := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&Local{Ports: PortRange{port, port}, Interval: time.Hour}).Run(ctx, func(ctx context.Context, ep Endpoint) error {
			ep.Conn.Close()
			n++
			calls <- n
			if n < 4 {
				return fmt.Errorf("handshake: %w", ErrBusy)
			}
			return errors.New("session over")
		})
	}()
	for want := 1; want <= 4; want++ {
		select {
		case got := <-calls:
			if got != want {
				t.Fatalf("call %d, want %d", got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("call %d never came: the busy port waits for the next interval", want)
		}
	}
	// The fourth session ended without ErrBusy: no retry before the interval.
	select {
	case got := <-calls:
		t.Fatalf("call %d after a session that was not busy", got)
	case <-time.After(500 * time.Millisecond):
	}
	cancel()
	<-done
}
