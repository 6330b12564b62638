package devicelog

import (
	"context"

	"github.com/ddmtui/ddmtui/logcat"
)

// EntryReader is what a Log reads entries from: a Stream (adb), or
// another source such as an in-process simulated device's ring.
type EntryReader interface {
	Next(e *logcat.Entry) error
	Close() error
}

// NewSource returns a device log that reads from open instead of adb
// (open is called for each stream, again after one ends); the rest —
// routing, the ring, cursors — is a Log's. The demo's in-process
// device, which no adb server knows, is read this way.
func NewSource(open func(ctx context.Context) (EntryReader, error), size int) *Log {
	d := New(nil, "", size)
	d.open = open
	return d
}

// RingReader reads a logcat.Ring from its oldest entry on and then follows
// it, as a stream would; Next blocks until an entry arrives or ctx ends.
type RingReader struct {
	ctx  context.Context
	ring *logcat.Ring
	next uint64
	buf  []logcat.Entry
}

// NewRingReader follows ring until ctx ends.
func NewRingReader(ctx context.Context, ring *logcat.Ring) *RingReader {
	first, _ := ring.Bounds()
	return &RingReader{ctx: ctx, ring: ring, next: first}
}

// Next returns the next entry (its Seq and flags are the reader's to set
// again), or ctx's error.
func (r *RingReader) Next(e *logcat.Entry) error {
	for len(r.buf) == 0 {
		changed := r.ring.Changed()
		r.buf, r.next, _ = r.ring.Read(r.buf[:0], r.next, 1024)
		if len(r.buf) > 0 {
			break
		}
		select {
		case <-r.ctx.Done():
			return r.ctx.Err()
		case <-changed:
		}
	}
	*e = r.buf[0]
	e.Seq, e.Flags, e.App = 0, 0, ""
	r.buf = r.buf[1:]
	return nil
}

// Close does nothing; the reader ends with its context.
func (r *RingReader) Close() error { return nil }
