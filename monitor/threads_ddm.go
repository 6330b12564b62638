package monitor

import (
	"context"
	"sort"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
)

// Threads from DDM: the THST poll and the thread table it keeps.

func (s *Session) pollTHST(ctx context.Context) {
	s.mu.Lock()
	wait := s.opts.RequestTimeout
	if s.src.caps.thst == unknown {
		wait = min(wait, s.opts.ProbeTimeout) // the first ask decides quickly
	}
	s.mu.Unlock()
	m, c, err := s.requestChunk(ctx, &ddm.ThreadStatusRequest{}, wait)
	if err != nil || m == nil {
		if ctx.Err() != nil || s.jc.Err() != nil {
			return
		}
		s.mu.Lock()
		s.thstMisses++
		miss := s.thstMisses
		first := s.src.caps.thst != unanswered
		s.mu.Unlock()
		if first {
			s.setCaps(func(in *capInput) { in.thst = unanswered })
			s.startProcThreads(ctx)
		}
		if miss == 3 && s.shell == nil {
			s.setErr("VM does not answer thread status (THST)")
		}
		return
	}
	if tab, ok := m.(*ddm.ThreadStatusTable); ok {
		s.input(func(now time.Time) {
			s.rec.chunk(now, s.key, c)
			s.applyThreadStatus(tab, now)
		})
	}
}

// applyThreadStatus applies a THST reply received at now.
func (s *Session) applyThreadStatus(tab *ddm.ThreadStatusTable, now time.Time) {
	s.mu.Lock()
	if s.thstMisses >= 3 {
		s.thstMisses = 0
	}
	thstNew := s.src.caps.thst != answered
	seen := make(map[uint64]bool, len(tab.Threads))
	for _, e := range tab.Threads {
		id := uint64(e.ID)
		seen[id] = true
		th, ok := s.threads[id]
		if !ok {
			if !s.roomForThreadLocked() {
				continue
			}
			th = &Thread{ID: id, Created: now}
			s.threads[id] = th
		}
		state := ddm.StatusName(s.family, int(e.Status))
		if th.State != state {
			th.Changed = now
		}
		th.Status, th.State, th.Source = int(e.Status), state, SourceDDM
		th.SysTID, th.UTime, th.STime, th.Daemon = int(e.SysTID), int(e.UTime), int(e.STime), e.Daemon
	}
	// A thread absent from THST is gone even if THDE was missed.
	for id := range s.threads {
		if !seen[id] {
			delete(s.threads, id)
		}
	}
	s.src.cpu.sample(now, s.threads)
	publish := s.publishLocked(now) // a whole table: published at once, whatever is pending
	s.mu.Unlock()
	if thstNew {
		s.setCaps(func(in *capInput) { in.thst = answered })
	}
	publish()
}

func (s *Session) threadTableLocked() []Thread {
	out := make([]Thread, 0, len(s.threads))
	for _, t := range s.threads {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
