package viewer

import (
	"context"
	"sync"
	"time"
)

// Runner runs a view's background work: the Shell in a standalone run;
// an embedding (the dashboard) may pass its own.
type Runner interface {
	// Go runs work off the UI goroutine and applies the function it
	// returns on it; it reports false when the work was not started (one
	// is running, or the run is ending).
	Go(work func() func()) bool
	// QueueUpdateDraw runs fn on the UI goroutine, then redraws.
	QueueUpdateDraw(fn func())
	// Context ends when the run does.
	Context() context.Context
}

// progressEvery bounds how often progress reaches the screen.
const progressEvery = 200 * time.Millisecond

// SetRunner gives the frame its background runner (Run does).
func (f *Frame) SetRunner(r Runner) { f.runner = r }

// Work runs work in the background with label ("reading the heap dump")
// and its progress in the footer: work calls progress as often as it
// likes ("45%", "12 MB"), and the footer follows at most five times a
// second. The function work returns is applied on the UI goroutine, after
// the progress is cleared. Work reports false, and does nothing, when
// there is no runner or a job already runs.
func (f *Frame) Work(label string, work func(ctx context.Context, progress func(string)) func()) bool {
	r := f.runner
	if r == nil {
		return false
	}
	ctx := r.Context()
	var mu sync.Mutex
	var last time.Time
	report := func(s string) {
		mu.Lock()
		now := time.Now()
		due := now.Sub(last) >= progressEvery
		if due {
			last = now
		}
		mu.Unlock()
		if due && ctx.Err() == nil {
			r.QueueUpdateDraw(func() { f.SetProgress(label + ": " + s) })
		}
	}
	before := f.progress
	f.SetProgress(label + "…") // before Go: a runner may finish the work inside it
	started := r.Go(func() func() {
		apply := work(ctx, report)
		return func() {
			f.SetProgress("")
			if apply != nil {
				apply()
			}
		}
	})
	if !started {
		f.SetProgress(before)
	}
	return started
}
