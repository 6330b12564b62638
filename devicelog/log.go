// Package devicelog reads Android devices' logs: one logcat stream per
// device (OpenStream: binary over exec:, else threadtime text over shell:)
// feeding a bounded logcat.Ring that every view of the device reads (Log),
// re-opened when it drops; each view's place and filter in it (Cursor);
// the set of device logs a process follows, started on first use and
// sharing one byte budget (Logs); and logs read from elsewhere than adb,
// such as the demo's in-process device (NewSource, RingReader) or a
// recording (NewFed, Add).
//
// It knows nothing of VMs, sessions or recordings: the caller names a
// device's apps (SetApp), and the entries kept go to a Recorder the caller
// passes in (monitor.Recorder writes them into a recording).
package devicelog

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/logcat"
)

// Log is one device's log, read once for all its views: a single
// logcat stream (OpenStream: binary over exec:, else threadtime over
// shell:) feeding a bounded logcat.Ring. The stream is re-opened when it
// drops; the entries the device sends again after a reconnect (up to the
// newest one held, by time, and among those at that very time by content)
// are left out. Each entry's App is set from the pid (DDM names
// given with SetApp, and the ActivityManager's "Start proc" lines), so views
// can follow an app across restarts. Views read with a Cursor.
type Log struct {
	client *adb.Client
	serial string
	ring   *logcat.Ring
	// Retry is the wait before re-opening a dropped stream (doubling to
	// 8x while it keeps failing).
	Retry time.Duration
	// TextOnly reads threadtime text even where exec: exists.
	TextOnly bool

	mu       sync.Mutex
	procs    logcat.Processes
	loc      *time.Location
	binary   bool
	conns    int // streams opened
	err      error
	last     time.Time           // time of the newest entry
	lastKeys map[logKey]struct{} // the entries at exactly that time
	ready    chan struct{}       // closed when the first dump is in
	readyOne sync.Once
	open     func(ctx context.Context) (EntryReader, error) // NewSource: not adb

	// rec records the entries kept, under the device name recName (the
	// Source of the device's VMs): set by Logs before Run.
	rec     Recorder
	recName string
}

// Recorder takes the entries a Log keeps (after its reconnect
// de-duplication), each with the time it arrived and the device's name
// (the Source of its VMs, "adb:SERIAL" or "sim:SERIAL"). monitor.Recorder
// is one; a nil *monitor.Recorder records nothing.
type Recorder interface {
	Log(now time.Time, device string, e *logcat.Entry)
}

// logKey identifies an entry among those logged at the same time.
type logKey struct {
	pid, tid int32
	tag, msg string
}

// New returns the log of the device with serial on client's
// server, keeping size entries (logcat.DefaultRingSize when <= 0). Run
// reads it.
func New(client *adb.Client, serial string, size int) *Log {
	return &Log{client: client, serial: serial, ring: logcat.NewRing(size), Retry: time.Second,
		lastKeys: map[logKey]struct{}{}, ready: make(chan struct{})}
}

// Ring is the device's entries.
func (d *Log) Ring() *logcat.Ring { return d.ring }

// SetApp records that pid runs app (a VM's name from DDM); entries of pid
// that arrive from now on carry it.
func (d *Log) SetApp(pid int, app string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.procs.Set(int32(pid), app)
}

// Status reports how the log is read: whether the stream is binary, how
// many streams were opened, and the error that ended the last one.
func (d *Log) Status() (binary bool, streams int, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.binary, d.conns, d.err
}

// Location is the device's time zone, as the last stream found it
// (time.Local before one opened).
func (d *Log) Location() *time.Location {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.loc == nil {
		return time.Local
	}
	return d.loc
}

// Ready is closed once the entries the device had buffered when the first
// stream opened are in the ring: when the stream pauses for 300 ms, or 2 s
// after it opened, or when it failed.
func (d *Log) Ready() <-chan struct{} { return d.ready }

// Run reads the device's log until ctx ends, re-opening the stream when it
// drops. It returns nil when ctx ends.
func (d *Log) Run(ctx context.Context) error {
	wait := d.Retry
	for {
		start := time.Now()
		err := d.readOnce(ctx)
		d.readyOne.Do(func() { close(d.ready) })
		if ctx.Err() != nil {
			return nil
		}
		d.mu.Lock()
		d.err = err
		d.mu.Unlock()
		if time.Since(start) > 4*d.Retry {
			wait = d.Retry // it ran for a while: a fresh drop
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, 8*d.Retry)
	}
}

// readOnce opens one stream and appends what it brings.
func (d *Log) readOnce(ctx context.Context) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rp := d.newSkip()
	s, err := d.openStream(sctx)
	if err != nil {
		return err
	}
	defer s.Close()
	d.mu.Lock()
	if ls, ok := s.(*Stream); ok {
		d.binary = ls.Binary
		d.loc = ls.Location
	}
	d.conns++
	d.err = nil
	d.mu.Unlock()
	// The buffered entries arrive first; when none comes for a moment, or
	// after at most two seconds (a busy device never pauses), the first
	// dump is taken to be in.
	markReady := func() { d.readyOne.Do(func() { close(d.ready) }) }
	idle := time.AfterFunc(300*time.Millisecond, markReady)
	defer idle.Stop()
	limit := time.AfterFunc(2*time.Second, markReady)
	defer limit.Stop()
	var e logcat.Entry
	for {
		if err := s.Next(&e); err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("logcat: the device ended the stream")
			}
			return err
		}
		idle.Reset(300 * time.Millisecond)
		if d.route(&e, rp) {
			if d.rec != nil {
				d.rec.Log(time.Now(), d.recName, &e)
			}
			d.ring.Append(e)
		}
	}
}

// NewFed returns a log whose entries are handed in with Add (a
// recording's, as a replay reaches them) rather than read from a stream:
// it keeps size entries (logcat.DefaultRingSize when <= 0), is Ready at
// once, and is not Run.
func NewFed(size int) *Log {
	d := New(nil, "", size)
	d.readyOne.Do(func() { close(d.ready) })
	return d
}

// Add routes e (sets its App) as a live stream's entry is, and appends it
// to the ring. Entries are not de-duplicated: that is a re-opened stream's
// concern, not a feed's.
func (d *Log) Add(e *logcat.Entry) {
	if d.route(e, &skip{}) {
		d.ring.Append(*e)
	}
}

// openStream opens logcat through adb, or the source NewSource gave.
func (d *Log) openStream(ctx context.Context) (EntryReader, error) {
	if d.open != nil {
		return d.open(ctx)
	}
	return OpenStream(ctx, d.client, d.serial, StreamOptions{TextOnly: d.TextOnly})
}

// skip is what a re-opened stream leaves out: the device sends its whole
// buffer again, so entries up to the newest one already held are left out.
// Out-of-order entries later in a live stream are kept.
type skip struct {
	active bool
	cut    time.Time
	keys   map[logKey]struct{}
}

// newSkip is the skip state for a stream opened now.
func (d *Log) newSkip() *skip {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.last.IsZero() {
		return &skip{}
	}
	r := &skip{active: true, cut: d.last, keys: make(map[logKey]struct{}, len(d.lastKeys))}
	for k := range d.lastKeys {
		r.keys[k] = struct{}{}
	}
	return r
}

// route sets e.App and reports whether e is to be kept.
func (d *Log) route(e *logcat.Entry, r *skip) bool {
	k := logKey{e.PID, e.TID, e.Tag, e.Message}
	if r.active {
		switch {
		case e.Time.Before(r.cut):
			return false
		case e.Time.Equal(r.cut):
			if _, seen := r.keys[k]; seen {
				return false
			}
		default:
			r.active = false
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case e.Time.After(d.last):
		d.last = e.Time
		clear(d.lastKeys)
		d.lastKeys[k] = struct{}{}
	case e.Time.Equal(d.last) && len(d.lastKeys) < 1024:
		d.lastKeys[k] = struct{}{}
	}
	d.procs.Observe(e)
	if e.App == "" {
		e.App = d.procs.App(e.PID)
	}
	return true
}
