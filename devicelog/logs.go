package devicelog

import (
	"context"
	"sync"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/logcat"
)

// Logs keeps one Log per device, started on first use and stopped by
// Close: the engine-side place panes subscribe from, and what a recording
// follows.
type Logs struct {
	// TextOnly makes the device logs started afterwards read threadtime
	// text even where exec: exists.
	TextOnly bool
	// Recorder, when set, records the entries of the device logs started
	// afterwards (each under the Source of its device's VMs).
	Recorder Recorder

	size   int
	budget *budget.Budget // shared by the rings: logcat.DefaultProcessLogBytes of budget.Process
	ctx    context.Context
	stop   context.CancelFunc

	mu   sync.Mutex
	logs map[string]*Log
	wg   sync.WaitGroup
}

// NewLogs returns an empty set; each device log keeps size entries
// and logcat.DefaultRingBytes of text, and all of them together
// logcat.DefaultProcessLogBytes, a share of the process-wide budget
// (their oldest entries give way when it is spent: logcat.Ring).
func NewLogs(size int) *Logs {
	ctx, stop := context.WithCancel(context.Background())
	return &Logs{size: size, budget: budget.Process.Child(logcat.DefaultProcessLogBytes), ctx: ctx, stop: stop, logs: map[string]*Log{}}
}

// Budget is the byte budget the device logs share.
func (l *Logs) Budget() *budget.Budget { return l.budget }

// Device returns the log of serial on client's server, starting its stream
// on first use.
func (l *Logs) Device(client *adb.Client, serial string) *Log {
	return l.get(client.Addr+"/"+serial, "adb:"+serial, func() *Log {
		d := New(client, serial, l.size)
		d.TextOnly = l.TextOnly
		return d
	})
}

// Source returns the log kept under key (the Source of the device's VMs),
// reading from open, started on first use like Device.
func (l *Logs) Source(key string, open func(ctx context.Context) (EntryReader, error)) *Log {
	return l.get(key, key, func() *Log { return NewSource(open, l.size) })
}

// get returns the log kept under key, or makes one with newLog (recorded
// under the device name recName), bounds it by the shared budget and runs
// it until Close.
func (l *Logs) get(key, recName string, newLog func() *Log) *Log {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d := l.logs[key]; d != nil {
		return d
	}
	d := newLog()
	d.ring.SetLimit(0, l.budget, recName)
	d.rec, d.recName = l.Recorder, recName
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

// Close stops every stream, waits for them, and gives the entries' bytes
// back to the process-wide budget; the rings keep their entries for the
// readers still holding them (logcat.Ring.Detach).
func (l *Logs) Close() {
	l.stop()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.logs {
		d.ring.Detach()
	}
}
