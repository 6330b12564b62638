package viewer

import (
	"context"
	"testing"
	"time"
)

// syncRunner runs work at once on the caller's goroutine and counts the
// updates queued to the UI.
type syncRunner struct {
	ctx     context.Context
	updates int
	busy    bool
}

func (r *syncRunner) Go(work func() func()) bool {
	if r.busy {
		return false
	}
	work()()
	return true
}

func (r *syncRunner) QueueUpdateDraw(fn func()) { r.updates++; fn() }

func (r *syncRunner) Context() context.Context { return r.ctx }

// Progress reaches the UI at most once per progressEvery however often the
// work reports; the result is applied after the progress is cleared; no
// update is queued once the run's context has ended.
func TestWorkThrottlesProgress(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &syncRunner{ctx: ctx}
	f := NewFrame(FrameOptions{})
	f.SetRunner(r)
	var seen []string
	applied := false
	ok := f.Work("reading", func(_ context.Context, progress func(string)) func() {
		for range 100 {
			progress("fast")
		}
		seen = append(seen, f.Progress())
		time.Sleep(progressEvery + 20*time.Millisecond)
		progress("later")
		seen = append(seen, f.Progress())
		return func() { applied = f.Progress() == "" }
	})
	if !ok || r.updates != 2 || seen[0] != "reading: fast" || seen[1] != "reading: later" || !applied {
		t.Fatalf("started %v, %d updates, progress seen %q, applied after clearing %v", ok, r.updates, seen, applied)
	}
	r.busy = true
	if f.Work("again", func(context.Context, func(string)) func() { return nil }) || f.Progress() != "" {
		t.Fatalf("a job started while one runs; progress %q", f.Progress())
	}
	r.busy = false
	cancel()
	r.updates = 0
	f.Work("ending", func(_ context.Context, progress func(string)) func() { progress("x"); return nil })
	if r.updates != 0 {
		t.Fatalf("%d updates queued after the context ended", r.updates)
	}
}
