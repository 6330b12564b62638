package monitor

import (
	"time"

	"github.com/ddmtui/ddmtui/android/meminfo"
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
