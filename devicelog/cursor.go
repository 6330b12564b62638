package devicelog

import (
	"time"

	"github.com/ddmtui/ddmtui/logcat"
)

// Filter picks a view's entries.
type Filter struct {
	// App follows an app by package or process name, across restarts
	// (a VM's pane); PID picks one process when the name is not known.
	// Both: the app, and the pid's entries routed before its name was
	// known. Neither: the whole device.
	App string
	PID int
	// Query applies the query language (nil: everything).
	Query *logcat.Query
}

// Cursor is one view's place in a Log: it returns the entries after
// the last ones it returned that pass its filter, and marks the first entry
// of each new process of a followed app (logcat.FlagRestarted).
type Cursor struct {
	log     *Log
	filter  Filter
	next    uint64
	lastPID int32
	buf     []logcat.Entry
}

// Cursor returns a cursor at the oldest entry the ring holds.
func (d *Log) Cursor(f Filter) *Cursor {
	first, _ := d.ring.Bounds()
	return &Cursor{log: d, filter: f, next: first}
}

// Changed is closed when entries were appended after the last Read.
func (c *Cursor) Changed() <-chan struct{} { return c.log.ring.Changed() }

// Read appends to dst the matching entries among at most max new ones
// (all when max <= 0), and returns how many entries the ring dropped before
// this cursor read them. age: terms count back from now (device time: the
// newest entry's time when zero).
func (c *Cursor) Read(dst []logcat.Entry, max int, now time.Time) ([]logcat.Entry, uint64) {
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
