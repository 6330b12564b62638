package viewer

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/gdamore/tcell/v2"
)

// A full-screen run must not outlive its terminal (issue 30 item 7: a
// replay dashboard went on 80 s after its tmux server died, and ignored
// SIGTERM). Every run on a real terminal ends when the terminal fails (a
// read or write error: it hung up), and on SIGHUP, SIGTERM or SIGINT.

// OpenWatchedTerminal is OpenTerminal for a run: lost is called (once, on
// another goroutine) when the terminal fails or the process gets SIGHUP,
// SIGTERM or SIGINT. unwatch stops the signal watch; call it when the run
// ends.
func OpenWatchedTerminal(lost func()) (s tcell.Screen, unwatch func(), err error) {
	if err := CheckTerminal(); err != nil {
		return nil, nil, err
	}
	tty, err := tcell.NewDevTty()
	if err != nil {
		return nil, nil, errors.Join(ErrNoTerminal, err)
	}
	var once sync.Once
	fire := func() { once.Do(func() { go lost() }) }
	w := &watchedTty{Tty: tty, lost: fire}
	s, err = tcell.NewTerminfoScreenFromTty(w)
	if err == nil {
		err = s.Init()
	}
	if err != nil {
		return nil, nil, errors.Join(ErrNoTerminal, err)
	}
	return initialised{s}, WatchSignals(fire), nil
}

// WatchSignals calls fn when the process gets SIGHUP, SIGTERM or SIGINT,
// until the returned stop is called.
func WatchSignals(fn func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ch:
			fn()
		case <-done:
		}
	}()
	var stopOnce sync.Once
	return func() {
		stopOnce.Do(func() {
			signal.Stop(ch)
			close(done)
			wg.Wait()
		})
	}
}

// watchedTty reports the terminal's failure: a read or write error while
// the screen runs. The deadline tcell sets to end its reader (Drain) and
// anything after Stop are no failure.
type watchedTty struct {
	tcell.Tty
	lost    func()
	stopped atomic.Bool
}

func (w *watchedTty) Read(b []byte) (int, error) {
	n, err := w.Tty.Read(b)
	w.check(err)
	return n, err
}

func (w *watchedTty) Write(b []byte) (int, error) {
	n, err := w.Tty.Write(b)
	w.check(err)
	return n, err
}

func (w *watchedTty) Start() error {
	w.stopped.Store(false)
	return w.Tty.Start()
}

func (w *watchedTty) Stop() error {
	w.stopped.Store(true)
	return w.Tty.Stop()
}

func (w *watchedTty) Drain() error {
	w.stopped.Store(true) // the reader is told to end: its error is expected
	return w.Tty.Drain()
}

func (w *watchedTty) check(err error) {
	if err == nil || w.stopped.Load() || errors.Is(err, os.ErrDeadlineExceeded) {
		return
	}
	w.lost()
}
