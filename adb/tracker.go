package adb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// Tracker follows a stream of complete states sent by the server: device
// lists (TrackDevices) or pid sets (TrackJDWP). Each value on Updates is the
// whole current state, never a delta; a consumer that falls behind receives
// only the newest state, so the reading goroutine never waits for it.
//
// Updates is closed when tracking ends: the context was cancelled, Close was
// called, the server closed the stream (the server exited, or for
// track-jdwp the device went away), or the server sent bytes that break the
// protocol. Err then tells which.
type Tracker[T any] struct {
	op      string
	nc      net.Conn
	updates chan T
	done    chan struct{}
	warn    func(error) // told about messages left out (skipError); may be nil

	mu     sync.Mutex
	err    error
	closed bool
}

// Updates delivers each new state; it is closed when tracking ends.
func (t *Tracker[T]) Updates() <-chan T { return t.updates }

// Done is closed when tracking has ended and the connection is closed.
func (t *Tracker[T]) Done() <-chan struct{} { return t.done }

// Err returns why tracking ended: nil after Close, the context's error after
// cancellation, an error wrapping ErrStreamEnded when the server closed or
// reset the connection (reconnect to resume), or another I/O or protocol
// error.
// It returns nil while tracking is running.
func (t *Tracker[T]) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Close stops tracking and waits until the reading goroutine has ended.
func (t *Tracker[T]) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.nc.Close()
	<-t.done
	return nil
}

// startTracker runs the reading loop on nc: read one message, parse it,
// publish it, until an error. A read or parse error that is a skipError
// leaves that message out (warn is told) and reading goes on.
func startTracker[T any](ctx context.Context, op string, nc net.Conn, maxLen int,
	read func(io.Reader, int) ([]byte, error), parse func([]byte) (T, error), warn func(error)) *Tracker[T] {
	t := &Tracker[T]{op: op, nc: nc, updates: make(chan T, 1), done: make(chan struct{}), warn: warn}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetReadDeadline(time.Unix(1, 0)) })
	go func() {
		defer close(t.done)
		defer close(t.updates)
		defer nc.Close()
		defer stop()
		err := t.loop(maxLen, read, parse)
		t.mu.Lock()
		defer t.mu.Unlock()
		switch {
		case t.closed:
			t.err = nil
		case ctx.Err() != nil:
			t.err = fmt.Errorf("adb: %s: %w", op, ctx.Err())
		default:
			t.err = fmt.Errorf("adb: %s: %w", op, err)
		}
	}()
	return t
}

func (t *Tracker[T]) loop(maxLen int, read func(io.Reader, int) ([]byte, error), parse func([]byte) (T, error)) error {
	for {
		msg, err := read(t.nc, maxLen)
		if t.skipped(err) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
				return fmt.Errorf("%w (%v)", ErrStreamEnded, err)
			}
			return err
		}
		v, err := parse(msg)
		if t.skipped(err) {
			continue
		}
		if err != nil {
			return err
		}
		t.publish(v)
	}
}

// skipped reports whether err leaves one message out (and tells warn).
func (t *Tracker[T]) skipped(err error) bool {
	var se skipError
	if !errors.As(err, &se) {
		return false
	}
	if t.warn != nil {
		t.warn(fmt.Errorf("adb: %s: %w", t.op, se.err))
	}
	return true
}

// publish replaces any state the consumer has not taken yet with v. Only
// this goroutine sends, so after draining the channel the send cannot block.
func (t *Tracker[T]) publish(v T) {
	select {
	case t.updates <- v:
		return
	default:
	}
	select {
	case <-t.updates:
	default:
	}
	t.updates <- v
}

// TrackDevices follows the server's device list (host:track-devices-l): the
// first update is the list at the time of the call, then the complete list
// again on every change (spec §1.3). When the server goes away the tracker
// ends with an error wrapping ErrStreamEnded; the caller reconnects (after
// EnsureServer if it wants a new server started).
//
// A server too old for the long format (it answers FAIL) is asked for the
// short one, whose devices have no Properties.
func (c *Client) TrackDevices(ctx context.Context) (*Tracker[[]Device], error) {
	tr, err := c.trackDevices(ctx, "host:track-devices-l")
	var fe *Error
	if errors.As(err, &fe) {
		return c.trackDevices(ctx, "host:track-devices")
	}
	return tr, err
}

func (c *Client) trackDevices(ctx context.Context, req string) (*Tracker[[]Device], error) {
	s, err := c.open(ctx, req, c.timeout())
	if err != nil {
		return nil, err
	}
	if err := c.status(s); err != nil {
		return nil, s.fail(err)
	}
	nc, err := s.release()
	if err != nil {
		return nil, err
	}
	return startTracker(ctx, req, nc, c.maxReply(), readFramed, ParseDevices, nil), nil
}

// TrackJDWP follows the set of debuggable VMs on a device (track-jdwp): the
// first update is the current pid set, then the complete set on every
// change. It ends with ErrStreamEnded when the device or the server goes
// away.
func (c *Client) TrackJDWP(ctx context.Context, serial string) (*Tracker[[]int], error) {
	nc, err := c.OpenTransport(ctx, serial, "track-jdwp")
	if err != nil {
		return nil, err
	}
	return startTracker(ctx, "track-jdwp", nc, c.maxReply(), readFramed, ParsePIDs, nil), nil
}
