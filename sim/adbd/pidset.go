package adbd

import (
	"slices"
	"sync"
)

// PIDSet is a set of pids that tells waiters when it changes: the
// JDWPPids half of a Device. The zero value is an empty set; it is safe for
// concurrent use.
type PIDSet struct {
	mu      sync.Mutex
	pids    map[int]struct{}
	changed chan struct{}
}

// Snapshot returns the pids in ascending order and a channel closed at the
// next change; it has the shape of Device.JDWPPids.
func (s *PIDSet) Snapshot() ([]int, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	out := make([]int, 0, len(s.pids))
	for p := range s.pids {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, s.changed
}

// Add puts pid in the set; waiters are woken if it was absent.
func (s *PIDSet) Add(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pids[pid]; ok {
		return
	}
	if s.pids == nil {
		s.pids = map[int]struct{}{}
	}
	s.pids[pid] = struct{}{}
	s.notify()
}

// Remove takes pid out of the set; waiters are woken if it was present.
func (s *PIDSet) Remove(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pids[pid]; !ok {
		return
	}
	delete(s.pids, pid)
	s.notify()
}

// Contains reports whether pid is in the set.
func (s *PIDSet) Contains(pid int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pids[pid]
	return ok
}

func (s *PIDSet) notify() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}
