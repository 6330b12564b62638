package scan

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Local probes a port range on one host (127.0.0.1 by default) every
// Interval. An open port is handed to the Handler; while its session runs the
// port is not probed again. Ports whose peer was not a JDWP VM are skipped
// for NotVMBackoff.
type Local struct {
	Host         string
	Ports        PortRange
	Interval     time.Duration // default 2s
	DialTimeout  time.Duration // default 500ms
	NotVMBackoff time.Duration // default 30s
}

// Run probes until ctx ends, then waits for every handler it started to
// return.
func (l *Local) Run(ctx context.Context, h Handler) error {
	host := l.Host
	if host == "" {
		host = "127.0.0.1"
	}
	interval := l.Interval
	if interval <= 0 {
		interval = 2 * time.Second
	}
	dialTimeout := l.DialTimeout
	if dialTimeout <= 0 {
		dialTimeout = 500 * time.Millisecond
	}
	backoff := l.NotVMBackoff
	if backoff <= 0 {
		backoff = 30 * time.Second
	}

	var (
		mu      sync.Mutex
		busy    = map[int]bool{}
		skipTil = map[int]time.Time{}
		retries = map[int]int{} // busy VMs' retries in a row, by port
		wg      sync.WaitGroup
	)
	defer wg.Wait()
	// soon takes ports to probe again before the next interval: a VM that
	// closed the connection before the handshake (ErrBusy) holds another
	// one, and is probed again after 25 ms, doubling up to the interval.
	soon := make(chan int, l.Ports.Last-l.Ports.First+1)

	probeOne := func(port int) {
		mu.Lock()
		skip := busy[port] || time.Now().Before(skipTil[port])
		if !skip {
			busy[port] = true
		}
		mu.Unlock()
		if skip {
			return
		}
		addr := net.JoinHostPort(host, fmt.Sprint(port))
		d := net.Dialer{Timeout: dialTimeout}
		nc, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			mu.Lock()
			delete(busy, port)
			delete(retries, port)
			mu.Unlock()
			return
		}
		ep := Endpoint{Key: fmt.Sprintf("local:%d", port), Source: fmt.Sprintf("local:%d", port), Conn: nc}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := h(ctx, ep)
			mu.Lock()
			delete(busy, port)
			if errors.Is(err, ErrNotVM) {
				skipTil[port] = time.Now().Add(backoff)
			}
			var wait time.Duration
			if errors.Is(err, ErrBusy) {
				wait = min(busyRetry<<min(retries[port], 16), interval)
				retries[port]++
			} else {
				delete(retries, port)
			}
			mu.Unlock()
			if wait > 0 && sleepCtx(ctx, wait) {
				select {
				case soon <- port:
				case <-ctx.Done():
				}
			}
		}()
	}
	probe := func() {
		for port := l.Ports.First; port <= l.Ports.Last; port++ {
			if ctx.Err() != nil {
				return
			}
			probeOne(port)
		}
	}

	t := time.NewTicker(interval)
	defer t.Stop()
	probe()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			probe()
		case port := <-soon:
			probeOne(port)
		}
	}
}

// busyRetry is the first wait before a busy VM's port is probed again.
const busyRetry = 25 * time.Millisecond
