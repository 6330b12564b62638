package monitor

import (
	"fmt"
	"time"
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
type threadsState struct {
	lastPublish time.Time
	publishAt   *time.Timer // a publish scheduled for later, or nil
	// tooMany is set when the cap refused a thread; tooManyShown once the
	// VM in the store says so.
	tooMany, tooManyShown bool
}

// roomForThreadLocked reports whether the table may take one more thread;
// the first refusal marks the VM as having too many threads.
func (s *Session) roomForThreadLocked() bool {
	if len(s.threads) < s.opts.MaxThreads {
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

// threadsChangedLocked notes a change of the thread table and returns what
// to call once s.mu is released: a publish now when the last one is older
// than threadPublishInterval, else nothing (one is scheduled for then).
func (s *Session) threadsChangedLocked() func() {
	if s.publishAt != nil {
		return s.showTooMany
	}
	now := time.Now()
	if wait := threadPublishInterval - now.Sub(s.lastPublish); wait > 0 {
		s.publishAt = time.AfterFunc(wait, s.publishThreads)
		return s.showTooMany
	}
	s.lastPublish = now
	table := s.threadTableLocked()
	return func() {
		s.store.SetThreads(s.key, table)
		s.showTooMany()
	}
}

// publishThreads publishes the table a scheduled change left.
func (s *Session) publishThreads() {
	s.mu.Lock()
	s.publishAt = nil
	s.lastPublish = time.Now()
	table := s.threadTableLocked()
	s.mu.Unlock()
	s.store.SetThreads(s.key, table)
}
