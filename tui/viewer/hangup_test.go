package viewer

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// fakeTty is a terminal whose reads and writes fail with err once set.
type fakeTty struct {
	tcell.Tty
	err error
}

func (f *fakeTty) Read(b []byte) (int, error)  { return 0, f.err }
func (f *fakeTty) Write(b []byte) (int, error) { return len(b), f.err }
func (f *fakeTty) Start() error                { return nil }
func (f *fakeTty) Stop() error                 { return nil }
func (f *fakeTty) Drain() error                { return nil }

// Issue 30 item 7: a terminal that fails (EIO once the tmux server or the
// ssh connection is gone, EOF on a hung-up tty) ends the run; the deadline
// tcell sets to stop its reader, and errors after Stop, do not.
func TestWatchedTtyReportsFailure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		write bool
		drain bool
		lost  bool
	}{
		{"read EIO", syscall.EIO, false, false, true},
		{"read EOF", errors.New("EOF"), false, false, true},
		{"write EIO", syscall.EIO, true, false, true},
		{"no error", nil, false, false, false},
		{"reader told to stop", os.ErrDeadlineExceeded, false, false, false},
		{"after Drain", syscall.EIO, false, true, false},
	} {
		var n atomic.Int32
		w := &watchedTty{Tty: &fakeTty{err: tc.err}, lost: func() { n.Add(1) }}
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		if tc.drain {
			_ = w.Drain()
		}
		for i := 0; i < 3; i++ {
			if tc.write {
				_, _ = w.Write([]byte("x"))
			} else {
				_, _ = w.Read(make([]byte, 8))
			}
		}
		if got := n.Load() > 0; got != tc.lost {
			t.Errorf("%s: lost %v, want %v", tc.name, got, tc.lost)
		}
		// Started again (after a suspend), a failure counts again.
		if tc.drain {
			_ = w.Start()
			_, _ = w.Read(make([]byte, 8))
			if n.Load() == 0 {
				t.Errorf("%s: a failure after Start is not reported", tc.name)
			}
		}
	}
}

// SIGHUP, SIGTERM and SIGINT end a run; after stop, signals are no longer
// taken (and the watcher's goroutine has ended).
func TestWatchSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		got := make(chan struct{}, 1)
		stop := WatchSignals(func() { got <- struct{}{} })
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("%v did not end the run", sig)
		}
		stop()
		stop() // twice is harmless
	}
}
