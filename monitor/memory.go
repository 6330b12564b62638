package monitor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/android/meminfo"
	"github.com/ddmtui/ddmtui/record"
)

// Memory is a VM's process memory as `dumpsys meminfo PID` reported it.
// Info's pointers and map are never written after parsing, so copies may
// share them.
type Memory struct {
	Info    meminfo.MemInfo
	Updated time.Time
	// History holds the readings of this session, oldest first, at most
	// HistoryLen of them (the heap pane's PSS / Java / Native chart).
	History []MemorySample
}

// MemorySample is one dumpsys reading kept in Memory.History (KiB; -1 when
// the value was not printed).
type MemorySample struct {
	Time       time.Time
	TotalPSS   int64
	JavaHeap   int64
	NativeHeap int64
}

// MemoryUpdated carries a VM's process memory.
type MemoryUpdated struct {
	Key    string
	Memory Memory
}

// CoalesceKey keeps only the newest memory reading per VM.
func (e MemoryUpdated) CoalesceKey() string { return "memory/" + e.Key }

func (m *Memory) clone() *Memory {
	if m == nil {
		return nil
	}
	c := *m
	c.History = append([]MemorySample(nil), m.History...)
	return &c
}

// SetMemory stores a VM's process memory and publishes it.
func (s *Store) SetMemory(key string, m Memory) {
	s.mu.Lock()
	vm, ok := s.vms[key]
	if ok {
		vm.Memory = m.clone()
	}
	s.mu.Unlock()
	if ok {
		s.bus.Publish(MemoryUpdated{Key: key, Memory: *m.clone()})
	}
}

func orMinus(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// runMeminfo reads `dumpsys meminfo PID` at once and then every
// MeminfoInterval until ctx ends. A reading that is not a meminfo (no such
// process, no permission) makes the memory capability none, with the
// output's first line as the reason; the poller keeps trying at the slow
// pace, as the app may come back.
func (s *Session) runMeminfo(ctx context.Context) {
	interval := s.opts.MeminfoInterval
	if interval <= 0 || s.shell == nil {
		return
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		t.Reset(interval)
		pid := s.currentPID()
		if pid <= 0 {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout+interval)
		out, err := s.deviceRun(rctx, fmt.Sprintf("dumpsys meminfo %d", pid))
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			s.setCaps(func(in *capInput) { in.memory, in.memWhy = unanswered, "dumpsys meminfo: "+err.Error() })
			continue
		}
		s.input(func(now time.Time) {
			s.rec.add(now, record.KindMeminfo, s.key, out)
			s.applyMeminfo(out, now)
		})
	}
}

// applyMeminfo applies the output of `dumpsys meminfo PID` read at now.
func (s *Session) applyMeminfo(out []byte, now time.Time) {
	info := meminfo.Parse(out)
	if !info.Found() {
		why := "dumpsys meminfo gave no memory for this process"
		if line := firstLine(out); line != "" {
			why = "dumpsys meminfo: " + line
		}
		s.setCaps(func(in *capInput) { in.memory, in.memWhy = unanswered, why })
		return
	}
	s.mu.Lock()
	mem := &s.src.mem
	mem.Info, mem.Updated = info, now
	if len(mem.History) >= HistoryLen {
		mem.History = append(mem.History[:0], mem.History[len(mem.History)-HistoryLen+1:]...)
	}
	mem.History = append(mem.History, MemorySample{Time: now, TotalPSS: orMinus(info.TotalPSS),
		JavaHeap: orMinus(info.JavaHeap), NativeHeap: orMinus(info.NativeHeap)})
	m := *mem.clone()
	s.mu.Unlock()
	s.store.SetMemory(s.key, m)
	s.setCaps(func(in *capInput) { in.memory, in.memWhy = answered, "" })
}

// firstLine is the first non-blank line of b, cut to 120 bytes.
func firstLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 120 {
				l = l[:120]
			}
			return l
		}
	}
	return ""
}
