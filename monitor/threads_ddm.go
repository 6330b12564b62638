package monitor

import (
	"context"
	"sort"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
)

// Threads from DDM: the THST poll and the thread table it keeps.

func (s *Session) pollTHST(ctx context.Context) {
	m, err := s.request(ctx, &ddm.ThreadStatusRequest{})
	if err != nil || m == nil {
		s.mu.Lock()
		s.thstMisses++
		miss := s.thstMisses
		s.mu.Unlock()
		if miss == 3 {
			s.store.UpdateVM(s.key, func(vm *VM) { vm.Err = "VM does not answer thread status (THST)" })
		}
		return
	}
	tab, ok := m.(*ddm.ThreadStatusTable)
	if !ok {
		return
	}
	now := time.Now()
	s.mu.Lock()
	if s.thstMisses >= 3 {
		s.thstMisses = 0
	}
	seen := make(map[uint64]bool, len(tab.Threads))
	for _, e := range tab.Threads {
		id := uint64(e.ID)
		seen[id] = true
		th, ok := s.threads[id]
		if !ok {
			th = &Thread{ID: id, Created: now}
			s.threads[id] = th
		}
		state := ddm.StatusName(s.family, int(e.Status))
		if th.State != state {
			th.Changed = now
		}
		th.Status, th.State = int(e.Status), state
		th.SysTID, th.UTime, th.STime, th.Daemon = int(e.SysTID), int(e.UTime), int(e.STime), e.Daemon
	}
	// A thread absent from THST is gone even if THDE was missed.
	for id := range s.threads {
		if !seen[id] {
			delete(s.threads, id)
		}
	}
	table := s.threadTableLocked()
	s.mu.Unlock()
	s.store.SetThreads(s.key, table)
}

func (s *Session) threadTableLocked() []Thread {
	out := make([]Thread, 0, len(s.threads))
	for _, t := range s.threads {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
