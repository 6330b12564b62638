package savefile

import (
	"io"
	"os"
	"sync"
	"time"
)

// Writer is the temporary file the received bytes stream into, handed to
// Save's fetch. Write errors are sticky (a fetch that ignores them is still
// refused); Rewind starts over; Progress reports bytes received by other
// means (a transfer not yet written, a file growing on a device) through
// the same throttle as the writes.
type Writer struct {
	f        *os.File
	n        int64
	err      error
	progress *throttle
}

func newPart(dir string, o Options) (*Writer, error) {
	f, err := os.CreateTemp(dir, ".ddmtui-*.part")
	if err != nil {
		return nil, err
	}
	p := &Writer{f: f}
	if o.Progress != nil {
		p.progress = newThrottle(o.ProgressEvery, o.Progress)
	}
	return p, nil
}

func (p *Writer) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.f.Write(b)
	p.n += int64(n)
	if err != nil {
		p.err = err
	}
	if p.progress != nil {
		p.progress.report(uint64(p.n))
	}
	return n, err
}

// Progress reports n bytes received so far (throttled; nothing without
// Options.Progress).
func (p *Writer) Progress(n uint64) {
	if p.progress != nil {
		p.progress.report(n)
	}
}

// Rewind drops what was received so far: the source is read again.
func (p *Writer) Rewind() error {
	if p.err != nil {
		return p.err
	}
	if err := p.f.Truncate(0); err != nil {
		p.err = err
		return err
	}
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		p.err = err
		return err
	}
	p.n = 0
	return nil
}

// discard closes and removes the file (a no-op once renamed away: the
// name is then gone, or another file of ours took it, never the target).
func (p *Writer) discard() {
	p.f.Close()
	os.Remove(p.f.Name())
}

// throttle passes a value on at most once per interval.
type throttle struct {
	mu    sync.Mutex
	every time.Duration
	last  time.Time
	f     func(uint64)
	now   func() time.Time
}

func newThrottle(every time.Duration, f func(uint64)) *throttle {
	if every <= 0 {
		every = DefaultProgressEvery
	}
	return &throttle{every: every, f: f, now: time.Now}
}

func (t *throttle) report(n uint64) {
	t.mu.Lock()
	now := t.now()
	if !t.last.IsZero() && now.Sub(t.last) < t.every {
		t.mu.Unlock()
		return
	}
	t.last = now
	t.mu.Unlock()
	t.f(n)
}

// Throttle returns f called at most once per every (0:
// DefaultProgressEvery); values in between are dropped. The first call
// passes.
func Throttle(every time.Duration, f func(uint64)) func(uint64) {
	return newThrottle(every, f).report
}
