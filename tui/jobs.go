package tui

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rivo/tview"
)

// Work the dashboard starts off the UI goroutine (requests to VMs, saving
// files, computing heap cells, feeding the log pane) is owned: every such
// goroutine is counted, gets the dashboard's context (cancelled on quit),
// and Run returns only after all have ended. Their errors come back to the
// status line through post. Work of one kind (a name) never overlaps
// itself: a second key press while one runs either waits for it (queue),
// cancels it and then runs (replace), or is refused with a message (busy).

// jobMode says what starting a named job does while one of that name runs.
type jobMode int

const (
	// jobQueue runs after the running one ends (start and stop of a
	// trace reach the VM in the order the keys were pressed).
	jobQueue jobMode = iota
	// jobReplace cancels the running one, then runs after it ended (the
	// latest request wins, e.g. which VM's heap map is wanted).
	jobReplace
	// jobBusy does not run while one runs; job returns false and the
	// caller says so.
	jobBusy
)

// runningJob is the last job started under a name.
type runningJob struct {
	cancel context.CancelFunc
	done   chan struct{}
	saving string // what the job saves, when the cancel-save key may end it
}

// jobs tracks the dashboard's goroutines (spawn) and its named jobs, and
// hands work to the UI goroutine (post). Panes are given it (paneEnv.work)
// rather than the Dashboard.
type jobs struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	running map[string]*runningJob
	// ctx is the dashboard's context, set by Run before the UI loop starts
	// (nil before: context.Background()).
	ctx context.Context
	// uiq carries posted functions to the forwarder (Dashboard.pump).
	uiq chan func()
}

func newJobs() *jobs { return &jobs{uiq: make(chan func(), 64)} }

// bg is the context every job runs under: cancelled when the dashboard
// quits.
func (j *jobs) bg() context.Context {
	if j.ctx != nil {
		return j.ctx
	}
	return context.Background()
}

// post hands f to the UI goroutine (followed by a redraw). It never blocks
// once the dashboard is shutting down. Call it from background goroutines
// only.
func (j *jobs) post(f func()) {
	select {
	case j.uiq <- f:
	case <-j.bg().Done():
	}
}

// spawn runs f on an owned goroutine: Run waits for it after the UI loop
// ended. Call it on the UI goroutine (or before Run).
func (j *jobs) spawn(f func()) {
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		f()
	}()
}

// job runs f off the UI goroutine under name with a timeout, owned, never
// overlapping another job of the same name (see jobMode). It reports
// whether f will run (false only for jobBusy while one runs).
func (j *jobs) job(name string, mode jobMode, timeout time.Duration, f func(ctx context.Context)) bool {
	j.mu.Lock()
	if j.running == nil {
		j.running = map[string]*runningJob{}
	}
	prev := j.running[name]
	if prev != nil {
		select {
		case <-prev.done:
			prev = nil
		default:
		}
	}
	if prev != nil && mode == jobBusy {
		j.mu.Unlock()
		return false
	}
	ctx, cancel := context.WithTimeout(j.bg(), timeout)
	me := &runningJob{cancel: cancel, done: make(chan struct{})}
	j.running[name] = me
	j.mu.Unlock()
	if prev != nil && mode == jobReplace {
		prev.cancel()
	}
	j.spawn(func() {
		defer func() {
			cancel()
			close(me.done)
			j.mu.Lock()
			if j.running[name] == me {
				delete(j.running, name)
			}
			j.mu.Unlock()
		}()
		if prev != nil {
			select {
			case <-prev.done:
			case <-ctx.Done(): // quit (or our own timeout) while waiting
				return
			}
		}
		if ctx.Err() == nil {
			f(ctx)
		}
	})
	return true
}

// markSaving lets the cancel-save key end the job running under name,
// which saves what (for the message). Call it right after job.
func (j *jobs) markSaving(name, what string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if r := j.running[name]; r != nil {
		r.saving = what
	}
}

// cancelSaves cancels every running job marked with markSaving and
// returns what they were saving.
func (j *jobs) cancelSaves() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var what []string
	for _, r := range j.running {
		select {
		case <-r.done:
			continue
		default:
		}
		if r.saving != "" {
			r.cancel()
			what = append(what, r.saving)
			r.saving = ""
		}
	}
	return what
}

// busy reports whether a job of name runs.
func (j *jobs) busy(name string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := j.running[name]
	if r == nil {
		return false
	}
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// cancelled reports an error that only says the job was cancelled (a newer
// request replaced it, or the dashboard is quitting): not worth a message.
func (j *jobs) cancelled(err error) bool {
	return errors.Is(err, context.Canceled) || j.bg().Err() != nil
}

// postUpdater lets background feeders (spyview.Follow) hand work to the UI
// goroutine through the dashboard's forwarder, which never blocks once the
// dashboard is shutting down.
type postUpdater struct{ j *jobs }

func (u postUpdater) QueueUpdateDraw(f func(), _ ...tview.Primitive) *tview.Application {
	u.j.post(f)
	return nil
}
