package monitor

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/ddmtui/ddmtui/android/procfs"
	"github.com/ddmtui/ddmtui/record"
)

// The /proc thread source: for a VM on a device that leaves THST
// unanswered (recent Android), the thread table comes from the kernel,
// `cat /proc/PID/task/*/stat`, at the thread interval. Rows carry the tid
// as ID and SysTID, comm as Name (15 bytes of the Java name), CPU times in
// clock ticks and the state letter.

// startProcThreads starts the /proc poller unless it runs or the VM is
// not on a device. It stops by itself when THST is answered again.
func (s *Session) startProcThreads(ctx context.Context) {
	if s.shell == nil {
		return
	}
	s.mu.Lock()
	if s.src.procOn {
		s.mu.Unlock()
		return
	}
	s.src.procOn = true
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.runProcThreads(ctx)
	}()
}

func (s *Session) runProcThreads(ctx context.Context) {
	defer func() {
		s.mu.Lock()
		s.src.procOn = false
		s.mu.Unlock()
	}()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		ddmBack := s.src.caps.thst == answered
		s.mu.Unlock()
		if ddmBack {
			return
		}
		s.pollProc(ctx)
		t.Reset(s.opts.ThreadInterval)
	}
}

func (s *Session) pollProc(ctx context.Context) {
	pid := s.currentPID()
	if pid <= 0 {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	out, err := s.deviceRun(rctx, fmt.Sprintf("cat /proc/%d/task/*/stat", pid))
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			s.log.Info("reading /proc failed", "error", err)
			s.setCaps(func(in *capInput) { in.procWhy = "reading /proc: " + firstLine([]byte(err.Error())) })
		}
		return
	}
	s.input(func(now time.Time) {
		s.rec.add(now, record.KindProcStat, s.key, out)
		s.applyProcStat(out, now)
	})
}

// applyProcStat applies the output of `cat /proc/PID/task/*/stat` read at
// now.
func (s *Session) applyProcStat(out []byte, now time.Time) {
	pid := s.currentPID()
	r := procfs.Parse(out)
	if len(r.Threads) == 0 {
		why := "/proc/" + strconv.Itoa(pid) + "/task lists no thread"
		if line := firstLine(out); line != "" {
			why = "/proc: " + line // e.g. cat's "Permission denied" where /proc hides other apps
		}
		s.setCaps(func(in *capInput) { in.procWhy = why })
		return
	}
	s.mu.Lock()
	hadWhy := s.src.caps.procWhy != ""
	s.mu.Unlock()
	if hadWhy {
		s.setCaps(func(in *capInput) { in.procWhy = "" })
	}
	s.mu.Lock()
	if s.src.caps.thst == answered { // THST came back meanwhile: DDM wins
		s.mu.Unlock()
		return
	}
	old := s.src.procTable
	fresh := make(map[uint64]*Thread, len(r.Threads))
	for _, pt := range r.Threads {
		id := uint64(pt.TID)
		th := &Thread{ID: id, Name: pt.Comm, Status: -1, State: procfs.StateName(pt.State), SysTID: pt.TID,
			UTime: int(pt.UTime), STime: int(pt.STime), Source: SourceProc, ProcState: string(pt.State),
			Created: now, Changed: now}
		if prev, ok := old[id]; ok {
			th.Created = prev.Created
			if prev.State == th.State {
				th.Changed = prev.Changed
			}
		}
		fresh[id] = th
	}
	s.src.cpu.sample(now, fresh)
	s.src.procTable = fresh
	table := make([]Thread, 0, len(fresh))
	for _, th := range fresh {
		table = append(table, *th)
	}
	seq := threadSeq.Add(1)
	s.mu.Unlock()
	sort.Slice(table, func(i, j int) bool { return table[i].ID < table[j].ID })
	s.store.setThreads(s.key, seq, table)
}
