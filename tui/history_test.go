package tui

import (
	"testing"
	"time"
	"unsafe"

	"github.com/ddmtui/ddmtui/android/meminfo"
	"github.com/ddmtui/ddmtui/monitor"
)

var t0 = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

func sec(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

// ringTimes lists the samples' offsets from t0 in seconds, oldest first.
func ringTimes(h *vmHistory) []int {
	out := make([]int, h.Len())
	for i := range out {
		out[i] = int(h.At(i).at.Sub(t0) / time.Second)
	}
	return out
}

func TestHistoryRingIsBounded(t *testing.T) {
	h := newHistory(t0)
	n := historyCap + 500
	for i := 0; i < n; i++ {
		h.threads(sec(i), make([]monitor.Thread, i%7))
	}
	if h.Len() != historyCap {
		t.Fatalf("len %d, want the cap %d", h.Len(), historyCap)
	}
	if got := h.At(0).at; !got.Equal(sec(500)) {
		t.Fatalf("oldest kept %v, want %v (the first 500 dropped)", got, sec(500))
	}
	for i := 0; i < h.Len(); i++ {
		if want := (500 + i) % 7; h.At(i).threads != want || !h.At(i).at.Equal(sec(500+i)) {
			t.Fatalf("sample %d: %d threads at %v, want %d at %v", i, h.At(i).threads, h.At(i).at, want, sec(500+i))
		}
	}
	if cap(h.buf) != historyCap {
		t.Fatalf("ring storage %d samples for a cap of %d", cap(h.buf), historyCap)
	}
	// One VM's ring stays well under 100 KB.
	if size := int(unsafe.Sizeof(timelineSample{})) * historyCap; size > 100<<10 {
		t.Fatalf("a full ring takes %d bytes", size)
	}
	// A silence longer than the ring keeps one ring's worth, ending now.
	h.threads(sec(n+10*historyCap), nil)
	if h.Len() != historyCap || !h.At(h.Len()-1).at.Equal(sec(n+10*historyCap)) {
		t.Fatalf("after a long silence: len %d, newest %v", h.Len(), h.At(h.Len()-1).at)
	}
}

func TestHistoryOneSampleASecondCarryingValues(t *testing.T) {
	h := newHistory(t0)
	h.threads(sec(0), []monitor.Thread{{ID: 1, CPUKnown: true, CPUPercent: 20}, {ID: 2, CPUKnown: true, CPUPercent: 5}})
	h.heaps(sec(0).Add(300*time.Millisecond), []monitor.Heap{{SizeBytes: 100, AllocatedBytes: 60, GCCount: 2}, {SizeBytes: 10, AllocatedBytes: 4, GCCount: 1}})
	if h.Len() != 1 {
		t.Fatalf("two events in one second made %d samples", h.Len())
	}
	s := h.At(0)
	if s.cpu != 25 || s.threads != 2 || s.heapUsed != 64 || s.heapSize != 110 || s.pss != -1 || s.gc {
		t.Fatalf("first second %+v", s)
	}
	// Four silent seconds are filled with the last state; a GC count that
	// went up marks its second only.
	h.heaps(sec(4), []monitor.Heap{{SizeBytes: 100, AllocatedBytes: 30, GCCount: 3}, {SizeBytes: 10, AllocatedBytes: 4, GCCount: 1}})
	if got := ringTimes(h); len(got) != 5 || got[4] != 4 {
		t.Fatalf("seconds %v, want 0…4", got)
	}
	for i := 1; i < 4; i++ {
		if s := h.At(i); s.heapUsed != 64 || s.cpu != 25 || s.gc {
			t.Fatalf("carried second %d: %+v", i, s)
		}
	}
	if s := h.At(4); s.heapUsed != 34 || !s.gc || s.cpu != 25 {
		t.Fatalf("GC second %+v", s)
	}
	h.heaps(sec(5), []monitor.Heap{{SizeBytes: 100, AllocatedBytes: 40, GCCount: 3}, {SizeBytes: 10, AllocatedBytes: 4, GCCount: 1}})
	if h.At(5).gc {
		t.Fatal("the same GC count marked a second GC")
	}
	// No CPU known in a table: the last CPU figure stays.
	h.threads(sec(6), []monitor.Thread{{ID: 1}})
	if s := h.At(6); s.cpu != 25 || s.threads != 1 {
		t.Fatalf("threads without CPU times: %+v", s)
	}
}

func TestHistoryMemory(t *testing.T) {
	h := newHistory(t0)
	mem := monitor.Memory{Info: meminfo.MemInfo{}, History: []monitor.MemorySample{{Time: sec(0), TotalPSS: 2048, JavaHeap: 512, NativeHeap: 9}}}
	h.memory(sec(0), mem)
	if s := h.At(0); s.pss != 2048*1024 || s.heapUsed != 512*1024 {
		t.Fatalf("meminfo without HPIF: %+v", s)
	}
	h.heaps(sec(1), []monitor.Heap{{SizeBytes: 4096, AllocatedBytes: 1000}})
	mem.History = append(mem.History, monitor.MemorySample{Time: sec(2), TotalPSS: 4096, JavaHeap: 7, NativeHeap: 9})
	h.memory(sec(2), mem)
	if s := h.At(2); s.pss != 4096*1024 || s.heapUsed != 1000 {
		t.Fatalf("meminfo with HPIF keeps HPIF's heap: %+v", s)
	}
	h.memory(sec(3), monitor.Memory{}) // no reading: nothing recorded
	if h.Len() != 3 {
		t.Fatalf("an empty reading made a sample: %d", h.Len())
	}
}

func TestHistorySeekBackDropsLaterSamples(t *testing.T) {
	h := newHistory(t0)
	for i := 0; i < 10; i++ {
		h.threads(sec(i), make([]monitor.Thread, i))
	}
	h.threads(sec(4).Add(500*time.Millisecond), make([]monitor.Thread, 40))
	if got := ringTimes(h); len(got) != 5 || got[4] != 4 || h.At(4).threads != 40 {
		t.Fatalf("after seeking back to 4.5 s: %v, last %+v", got, h.At(h.Len()-1))
	}
	// The same in a ring that wrapped.
	w := newHistory(t0)
	for i := 0; i < historyCap+20; i++ {
		w.threads(sec(i), make([]monitor.Thread, i%5))
	}
	w.threads(sec(historyCap+10), nil)
	got := ringTimes(w)
	if len(got) != historyCap-9 || got[0] != 20 || got[len(got)-1] != historyCap+10 {
		t.Fatalf("wrapped ring after a seek back: %d samples, %d…%d", len(got), got[0], got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1]+1 {
			t.Fatalf("out of order at %d: %v", i, got[i-1:i+1])
		}
	}
	w.threads(sec(historyCap+11), nil)
	if w.Len() != historyCap-8 {
		t.Fatalf("growing again: %d", w.Len())
	}
}

func TestModelRecordsAndForgetsHistory(t *testing.T) {
	m := newModel()
	m.apply([]monitor.Event{
		monitor.VMUpdated{VM: monitor.VM{Key: "k", PID: 1}},
		monitor.ThreadsUpdated{Key: "k", Threads: []monitor.Thread{{ID: 1}, {ID: 2}}},
		monitor.HeapUpdated{Key: "k", Heaps: []monitor.Heap{{SizeBytes: 10, AllocatedBytes: 5}}},
	}, sec(0), sec(0))
	h := m.history["k"]
	if h == nil || h.Len() != 1 || h.At(0).threads != 2 || h.At(0).heapUsed != 5 || !h.first.Equal(sec(0)) {
		t.Fatalf("history %+v", h)
	}
	m.apply([]monitor.Event{monitor.VMGone{Key: "k"}}, sec(1), sec(1))
	m.expire(sec(1).Add(goneGrace))
	if _, ok := m.history["k"]; ok {
		t.Fatal("a dropped VM's history is kept")
	}
}

// TestHistorySamplesSitOnWholeSeconds: one column per second of the clock,
// however the events fall in it.
func TestHistorySamplesSitOnWholeSeconds(t *testing.T) {
	h := newHistory(t0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	h.threads(ms(900), nil)
	h.threads(ms(1100), make([]monitor.Thread, 1))
	h.threads(ms(1900), make([]monitor.Thread, 2))
	h.threads(ms(3050), make([]monitor.Thread, 3))
	if got := ringTimes(h); len(got) != 4 || got[0] != 0 || got[1] != 1 || got[2] != 2 || got[3] != 3 {
		t.Fatalf("seconds %v, want 0 1 2 3", got)
	}
	if h.At(1).threads != 2 || h.At(2).threads != 2 || h.At(3).threads != 3 {
		t.Fatalf("threads %d %d %d, want 2 2 3", h.At(1).threads, h.At(2).threads, h.At(3).threads)
	}
}
