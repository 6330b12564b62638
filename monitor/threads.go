package monitor

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ddmtui/ddmtui/record"
)

// DefaultMaxThreads caps a VM's thread table: far above real apps (a few
// hundred threads; ART itself fails long before), low enough that a VM
// flooding THCR with new ids cannot grow the monitor without bound.
const DefaultMaxThreads = 10000

// threadPublishInterval is the most often a session publishes its thread
// table when changes come faster (a THCR flood): each publish copies and
// sorts the table, so a flood costs a bounded rate of copies instead of one
// per chunk.
const threadPublishInterval = 100 * time.Millisecond

// threadsState is a session's thread-table publishing, guarded by s.mu.
// Times are the inputs' own (recorded ones in a replay), so a replay
// publishes exactly when the live session did.
type threadsState struct {
	lastPublish time.Time   // input time of the last publish
	pending     bool        // the table changed since, and waits for lastPublish+threadPublishInterval
	flushTimer  *time.Timer // live sessions: publishes a pending table when its time comes
	// tooMany is set when the cap refused a thread; tooManyShown once the
	// VM in the store says so.
	tooMany, tooManyShown bool
}

// roomForThreadLocked reports whether the table may take one more thread;
// the first refusal marks the VM as having too many threads.
func (s *Session) roomForThreadLocked() bool {
	if s.threads.len() < s.opts.MaxThreads {
		return true
	}
	s.tooMany = true
	return false
}

// showTooMany marks the VM in the store once the cap has refused a thread;
// called without s.mu.
func (s *Session) showTooMany() {
	s.mu.Lock()
	show := s.tooMany && !s.tooManyShown
	s.tooManyShown = s.tooManyShown || show
	s.mu.Unlock()
	if show {
		s.store.UpdateVM(s.key, func(vm *VM) {
			vm.TooManyThreads = true
			vm.Err = fmt.Sprintf("too many threads: more than %d; newer threads are not shown", s.opts.MaxThreads)
		})
	}
}

// threadsChangedLocked notes a change of the thread table at input time
// now and returns what to call once s.mu is released: a publish when the
// last one is at least threadPublishInterval old, else nothing yet (the
// table is published when that interval has passed, by a timer whose firing
// is recorded so that a replay publishes at the same instant, or by the next
// full table, whichever comes first).
func (s *Session) threadsChangedLocked(now time.Time) func() {
	// Due (even with a timer pending that has not fired yet, or in a replay
	// of a recording that has no flush record here): published at once.
	if now.Sub(s.lastPublish) >= threadPublishInterval {
		return s.publishLocked(now)
	}
	if !s.pending {
		s.pending = true
		if s.jc != nil { // live; a replay flushes from its own clock (flushThreads)
			s.flushTimer = time.AfterFunc(s.lastPublish.Add(threadPublishInterval).Sub(now), func() {
				s.input(func(now time.Time) {
					// Recorded, so that a replay publishes at this very
					// instant too (timers fire late under load).
					s.rec.json(now, record.KindState, s.key, stateRecord{FlushThreads: true})
					s.flushThreads(now)
				})
			})
		}
	}
	if s.tooMany && !s.tooManyShown {
		return s.showTooMany
	}
	return nothing // a method value would be allocated on every change
}

func nothing() {}

// publishLocked takes the table for publishing at input time now; call the
// result once s.mu is released.
func (s *Session) publishLocked(now time.Time) func() {
	s.pending, s.lastPublish = false, now
	if s.flushTimer != nil {
		s.flushTimer.Stop()
		s.flushTimer = nil
	}
	seq, table := s.threadTableLocked()
	return func() {
		s.store.setThreads(s.key, seq, table)
		s.showTooMany()
	}
}

// threadSeq numbers the thread tables taken for publishing, across sessions:
// the store keeps a VM's table only if it was taken after the one it holds
// (Store.setThreads), whichever goroutine publishes first.
var threadSeq atomic.Uint64

// threadTableLocked copies the thread table for the store, with its
// sequence number.
func (s *Session) threadTableLocked() (uint64, []Thread) {
	return threadSeq.Add(1), s.threads.snapshot()
}

// flushThreads publishes a pending table at input time now: the live
// timer's, or that recorded time in a replay. It runs as an input (under
// s.inMu), so it is ordered with every other publish of the session.
func (s *Session) flushThreads(now time.Time) {
	s.mu.Lock()
	if !s.pending {
		s.mu.Unlock()
		return
	}
	publish := s.publishLocked(now)
	s.mu.Unlock()
	publish()
}
