package monitor

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/logcat"
)

// DeviceLog is one device's log, read once for all its views: a single
// logcat stream (OpenLogStream: binary over exec:, else threadtime over
// shell:) feeding a bounded logcat.Ring. The stream is re-opened when it
// drops; the entries the device sends again after a reconnect (up to the
// newest one held, by time, and among those at that very time by content)
// are left out. Each entry's App is set from the pid (DDM names
// given with SetApp, and the ActivityManager's "Start proc" lines), so views
// can follow an app across restarts. Views read with a LogCursor.
type DeviceLog struct {
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
	open     func(ctx context.Context) (EntryReader, error) // NewSourceLog: not adb

	// rec records the entries kept, under the device name recName (the
	// Source of the device's VMs): set by LogStreams before Run.
	rec     *Recorder
	recName string
}

// logKey identifies an entry among those logged at the same time.
type logKey struct {
	pid, tid int32
	tag, msg string
}

// NewDeviceLog returns the log of the device with serial on client's
// server, keeping size entries (logcat.DefaultRingSize when <= 0). Run
// reads it.
func NewDeviceLog(client *adb.Client, serial string, size int) *DeviceLog {
	return &DeviceLog{client: client, serial: serial, ring: logcat.NewRing(size), Retry: time.Second,
		lastKeys: map[logKey]struct{}{}, ready: make(chan struct{})}
}

// Ring is the device's entries.
func (d *DeviceLog) Ring() *logcat.Ring { return d.ring }

// SetApp records that pid runs app (a VM's name from DDM); entries of pid
// that arrive from now on carry it.
func (d *DeviceLog) SetApp(pid int, app string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.procs.Set(int32(pid), app)
}

// LearnVMs records the names of the VMs on this device (Source
// "adb:SERIAL") from a list such as Store.VMs; other VMs are ignored.
func (d *DeviceLog) LearnVMs(vms []VM) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, vm := range vms {
		if vm.Source == "adb:"+d.serial && vm.PID > 0 && vm.App != "" {
			d.procs.Set(int32(vm.PID), vm.App)
		}
	}
}

// Status reports how the log is read: whether the stream is binary, how
// many streams were opened, and the error that ended the last one.
func (d *DeviceLog) Status() (binary bool, streams int, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.binary, d.conns, d.err
}

// Location is the device's time zone, as the last stream found it
// (time.Local before one opened).
func (d *DeviceLog) Location() *time.Location {
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
func (d *DeviceLog) Ready() <-chan struct{} { return d.ready }

// Run reads the device's log until ctx ends, re-opening the stream when it
// drops. It returns nil when ctx ends.
func (d *DeviceLog) Run(ctx context.Context) error {
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
func (d *DeviceLog) readOnce(ctx context.Context) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rp := d.newReplay()
	s, err := d.openStream(sctx)
	if err != nil {
		return err
	}
	defer s.Close()
	d.mu.Lock()
	if ls, ok := s.(*LogStream); ok {
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
				d.rec.log(time.Now(), d.recName, &e)
			}
			d.ring.Append(e)
		}
	}
}

// appendReplayed adds an entry read from a recording, routed (its App set)
// as a live stream's entry is.
func (d *DeviceLog) appendReplayed(e *logcat.Entry) {
	if d.route(e, &replay{}) {
		d.ring.Append(*e)
	}
}

// openStream opens logcat through adb, or the source NewSourceLog gave.
func (d *DeviceLog) openStream(ctx context.Context) (EntryReader, error) {
	if d.open != nil {
		return d.open(ctx)
	}
	return OpenLogStream(ctx, d.client, d.serial, LogStreamOptions{TextOnly: d.TextOnly})
}

// replay is what a re-opened stream must skip: the device sends its whole
// buffer again, so entries up to the newest one already held are left out.
// Out-of-order entries later in a live stream are kept.
type replay struct {
	active bool
	cut    time.Time
	keys   map[logKey]struct{}
}

// newReplay is the skip state for a stream opened now.
func (d *DeviceLog) newReplay() *replay {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.last.IsZero() {
		return &replay{}
	}
	r := &replay{active: true, cut: d.last, keys: make(map[logKey]struct{}, len(d.lastKeys))}
	for k := range d.lastKeys {
		r.keys[k] = struct{}{}
	}
	return r
}

// route sets e.App and reports whether e is to be kept.
func (d *DeviceLog) route(e *logcat.Entry, r *replay) bool {
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

// LogFilter picks a view's entries.
type LogFilter struct {
	// App follows an app by package or process name, across restarts
	// (a VM's pane); PID picks one process when the name is not known.
	// Both: the app, and the pid's entries routed before its name was
	// known. Neither: the whole device.
	App string
	PID int
	// Query applies the query language (nil: everything).
	Query *logcat.Query
}

// LogCursor is one view's place in a DeviceLog: it returns the entries after
// the last ones it returned that pass its filter, and marks the first entry
// of each new process of a followed app (logcat.FlagRestarted).
type LogCursor struct {
	log     *DeviceLog
	filter  LogFilter
	next    uint64
	lastPID int32
	buf     []logcat.Entry
}

// Cursor returns a cursor at the oldest entry the ring holds.
func (d *DeviceLog) Cursor(f LogFilter) *LogCursor {
	first, _ := d.ring.Bounds()
	return &LogCursor{log: d, filter: f, next: first}
}

// Changed is closed when entries were appended after the last Read.
func (c *LogCursor) Changed() <-chan struct{} { return c.log.ring.Changed() }

// Read appends to dst the matching entries among at most max new ones
// (all when max <= 0), and returns how many entries the ring dropped before
// this cursor read them. age: terms count back from now (device time: the
// newest entry's time when zero).
func (c *LogCursor) Read(dst []logcat.Entry, max int, now time.Time) ([]logcat.Entry, uint64) {
	var missed uint64
	c.buf, c.next, missed = c.log.ring.Read(c.buf[:0], c.next, max)
	if now.IsZero() && len(c.buf) > 0 {
		now = c.buf[len(c.buf)-1].Time
	}
	for i := range c.buf {
		e := &c.buf[i]
		switch {
		case c.filter.App != "":
			// PID too: the app's entries that came before its name was
			// known (e.App still "").
			if !logcat.AppMatches(e.App, c.filter.App) && (c.filter.PID == 0 || e.App != "" || e.PID != int32(c.filter.PID)) {
				continue
			}
			if c.lastPID != 0 && e.PID != c.lastPID {
				e.Flags |= logcat.FlagRestarted
			}
			c.lastPID = e.PID
		case c.filter.PID != 0:
			if e.PID != int32(c.filter.PID) {
				continue
			}
		}
		if c.filter.Query.Match(e, now) {
			dst = append(dst, *e)
		}
	}
	return dst, missed
}

// LogStreams keeps one DeviceLog per device, started on first use and
// stopped by Close: the engine-side place panes subscribe from.
type LogStreams struct {
	// TextOnly makes the device logs started afterwards read threadtime
	// text even where exec: exists.
	TextOnly bool
	// Recorder, when set, records the entries of the device logs started
	// afterwards (each under the Source of its device's VMs).
	Recorder *Recorder

	size   int
	budget *logcat.Budget // shared by the rings (logcat.DefaultProcessLogBytes)
	ctx    context.Context
	stop   context.CancelFunc

	mu   sync.Mutex
	logs map[string]*DeviceLog
	wg   sync.WaitGroup
}

// NewLogStreams returns an empty set; each device log keeps size entries
// and logcat.DefaultRingBytes of text, and all of them together
// logcat.DefaultProcessLogBytes.
func NewLogStreams(size int) *LogStreams {
	ctx, stop := context.WithCancel(context.Background())
	return &LogStreams{size: size, budget: logcat.NewBudget(logcat.DefaultProcessLogBytes), ctx: ctx, stop: stop, logs: map[string]*DeviceLog{}}
}

// Budget is the byte budget the device logs share.
func (l *LogStreams) Budget() *logcat.Budget { return l.budget }

// Device returns the log of serial on client's server, starting its stream
// on first use.
func (l *LogStreams) Device(client *adb.Client, serial string) *DeviceLog {
	key := client.Addr + "/" + serial
	l.mu.Lock()
	defer l.mu.Unlock()
	if d := l.logs[key]; d != nil {
		return d
	}
	d := NewDeviceLog(client, serial, l.size)
	d.ring.SetLimit(0, l.budget)
	d.TextOnly = l.TextOnly
	d.rec, d.recName = l.Recorder, "adb:"+serial
	l.logs[key] = d
	if l.ctx.Err() == nil {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			_ = d.Run(l.ctx)
		}()
	}
	return d
}

// Close stops every stream and waits for them.
func (l *LogStreams) Close() {
	l.stop()
	l.wg.Wait()
}
