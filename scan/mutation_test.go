package scan

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Exact limits and defaults mutation testing found unchecked.

func TestParseRangeLimits(t *testing.T) {
	for in, want := range map[string]PortRange{
		"1":         {1, 1},
		"1-10":      {1, 10},
		"65535":     {65535, 65535},
		"1000-5096": {1000, 5096}, // spans 4097 ports: 4096 above the first
	} {
		if r, ok, err := ParseRange(in); r != want || !ok || err != nil {
			t.Errorf("ParseRange(%q) = %v %v %v, want %v", in, r, ok, err, want)
		}
	}
	for _, in := range []string{"0", "65536", "1000-5097"} {
		if r, ok, err := ParseRange(in); ok || err == nil || r != (PortRange{}) {
			t.Errorf("ParseRange(%q) = %v %v %v, want an error", in, r, ok, err)
		}
	}
}

// listen accepts and closes connections on addr until the test ends.
func listen(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
}

// runLocal runs l until h returns stop for an endpoint handed over (or 10 s
// pass), calling h for one endpoint at a time, then returns the key and
// remote address of every endpoint.
func runLocal(t *testing.T, l *Local, h func(ep Endpoint) (err error, stop bool)) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	var seen []string
	l.Run(ctx, func(_ context.Context, ep Endpoint) error {
		defer ep.Conn.Close()
		mu.Lock() // handlers run one at a time
		err, stop := h(ep)
		seen = append(seen, ep.Key+" "+ep.Conn.RemoteAddr().String())
		mu.Unlock()
		if stop {
			cancel()
		}
		return err
	})
	if ctx.Err() != context.Canceled {
		t.Fatalf("scan never stopped: %v (endpoints %q)", ctx.Err(), seen)
	}
	return seen
}

// A zero Interval and a negative DialTimeout mean the defaults (2 s and
// 500 ms); the first probe runs at once.
func TestLocalDefaultIntervalAndDialTimeout(t *testing.T) {
	leakcheck.Check(t)
	r := freeRange(t, 1)
	listen(t, fmt.Sprintf("127.0.0.1:%d", r.First))
	seen := runLocal(t, &Local{Ports: r, DialTimeout: -time.Second}, func(Endpoint) (error, bool) { return nil, true })
	if want := fmt.Sprintf("local:%d 127.0.0.1:%d", r.First, r.First); len(seen) != 1 || seen[0] != want {
		t.Fatalf("endpoints %q, want [%s]", seen, want)
	}
}

// Host is the address probed.
func TestLocalHost(t *testing.T) {
	leakcheck.Check(t)
	r := freeRange(t, 1)
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.2:%d", r.First))
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	ln.Close()
	listen(t, fmt.Sprintf("127.0.0.2:%d", r.First))
	seen := runLocal(t, &Local{Host: "127.0.0.2", Ports: r, Interval: 10 * time.Millisecond}, func(Endpoint) (error, bool) { return nil, true })
	if want := fmt.Sprintf("local:%d 127.0.0.2:%d", r.First, r.First); len(seen) != 1 || seen[0] != want {
		t.Fatalf("endpoints %q, want [%s]", seen, want)
	}
}

// A zero NotVMBackoff means the default (30 s): a port that is not a VM is
// handed over once while another port is probed again and again.
func TestLocalDefaultBackoff(t *testing.T) {
	leakcheck.Check(t)
	r := freeRange(t, 2)
	listen(t, fmt.Sprintf("127.0.0.1:%d", r.First))
	listen(t, fmt.Sprintf("127.0.0.1:%d", r.Last))
	var notVM, vm int
	runLocal(t, &Local{Ports: r, Interval: 10 * time.Millisecond}, func(ep Endpoint) (error, bool) {
		if ep.Key == fmt.Sprintf("local:%d", r.First) {
			notVM++
			return fmt.Errorf("handshake: %w", ErrNotVM), false
		}
		vm++
		return nil, vm == 6
	})
	if notVM != 1 || vm != 6 {
		t.Fatalf("non-VM port handed over %d times during %d probes of the other, want once", notVM, vm)
	}
}
