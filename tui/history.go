package tui

import (
	"time"

	"github.com/ddmtui/ddmtui/monitor"
)

// The timeline (timelineview.go) draws a VM's life from a ring of samples
// the model keeps per VM: one sample a second at most (events within one
// second update that second's sample; silent seconds repeat the last),
// historyCap of them (20 minutes, about 85 KB), the oldest dropped first.
// A VM's ring goes when the VM is dropped from the list; a replay's rings,
// built from the whole recording (model.preload), are one per VM of the
// recording.
const (
	historyCap  = 1200
	historyStep = time.Second
)

// timelineSample is one second of a VM's life. A value not (yet) reported
// is -1; values carry forward from the previous second, so each sample is
// the state at its time.
type timelineSample struct {
	at       time.Time
	cpu      float64 // the threads' CPU % summed (100 = one core)
	threads  int
	heapUsed int64 // Java heap: HPIF allocated bytes, or meminfo's Java heap
	heapSize int64 // HPIF heap size (bytes), -1 from meminfo
	pss      int64 // meminfo total PSS, bytes
	gc       bool  // a GC ended in this second (HPIF's GC count went up)
}

func unknownSample(at time.Time) timelineSample {
	return timelineSample{at: at, cpu: -1, threads: -1, heapUsed: -1, heapSize: -1, pss: -1}
}

// vmHistory is one VM's ring of samples.
type vmHistory struct {
	buf    []timelineSample // ring storage, at most historyCap
	start  int              // index of the oldest sample
	first  time.Time        // when the ring was started: ddmtui first saw the VM
	gcSeen int              // the last HPIF GC count (-1: none yet)
	hpif   bool             // HPIF reported: meminfo's Java heap is not used
}

func newHistory(at time.Time) *vmHistory { return &vmHistory{first: at, gcSeen: -1} }

// Len is the number of samples kept.
func (h *vmHistory) Len() int { return len(h.buf) }

// At returns the i-th sample, oldest first.
func (h *vmHistory) At(i int) timelineSample { return h.buf[(h.start+i)%len(h.buf)] }

func (h *vmHistory) last() *timelineSample {
	if len(h.buf) == 0 {
		return nil
	}
	return &h.buf[(h.start+len(h.buf)-1)%len(h.buf)]
}

// sampleAt returns the sample for time at to update: the last one when at
// is in its second (of the clock: samples sit on whole seconds), else a new one carrying the last values. A time
// before the last sample (a replay sought back) drops the samples after
// it: playing on records them again.
func (h *vmHistory) sampleAt(at time.Time) *timelineSample {
	at = at.Truncate(historyStep) // one column per second of the clock
	for l := h.last(); l != nil && at.Before(l.at); l = h.last() {
		h.dropNewest()
	}
	l := h.last()
	if l != nil && at.Sub(l.at) < historyStep {
		return l
	}
	if l == nil {
		return h.push(unknownSample(at))
	}
	// Seconds nothing was heard in keep the state of the last one: one
	// column a second, whatever the traffic (at most a ring's worth).
	carry, base := *l, l.at // l's slot may be reused below
	carry.gc = false
	gap := min(int(at.Sub(base)/historyStep)-1, historyCap)
	for k := 1; k <= gap; k++ {
		carry.at = base.Add(time.Duration(k) * historyStep)
		h.push(carry)
	}
	carry.at = at
	return h.push(carry)
}

// push adds s as the newest sample, dropping the oldest when full.
func (h *vmHistory) push(s timelineSample) *timelineSample {
	if len(h.buf) < historyCap {
		// Below historyCap the ring has not wrapped (start is 0); it
		// grows by doubling, never past historyCap.
		if len(h.buf) == cap(h.buf) {
			grown := make([]timelineSample, len(h.buf), min(max(2*cap(h.buf), 16), historyCap))
			copy(grown, h.buf)
			h.buf = grown
		}
		h.buf = append(h.buf, s)
		return h.last()
	}
	h.buf[h.start] = s
	h.start = (h.start + 1) % len(h.buf)
	return h.last()
}

func (h *vmHistory) dropNewest() {
	if len(h.buf) == 0 {
		return
	}
	if h.start == 0 {
		h.buf = h.buf[:len(h.buf)-1]
		return
	}
	// A wrapped ring: unwrap it, oldest first, then drop the last.
	out := make([]timelineSample, 0, historyCap)
	for i := 0; i < len(h.buf); i++ {
		out = append(out, h.At(i))
	}
	h.buf, h.start = out[:len(out)-1], 0
}

func (h *vmHistory) threads(at time.Time, ts []monitor.Thread) {
	s := h.sampleAt(at)
	s.threads = len(ts)
	sum, known := 0.0, false
	for _, t := range ts {
		if t.CPUKnown {
			sum, known = sum+t.CPUPercent, true
		}
	}
	if known {
		s.cpu = sum
	}
}

func (h *vmHistory) heaps(at time.Time, hs []monitor.Heap) {
	if len(hs) == 0 {
		return
	}
	s := h.sampleAt(at)
	var used, size uint64
	gcs := 0
	for _, hp := range hs {
		used += hp.AllocatedBytes
		size += hp.SizeBytes
		gcs += hp.GCCount
	}
	s.heapUsed, s.heapSize = int64(min(used, 1<<62)), int64(min(size, 1<<62))
	h.hpif = true
	if h.gcSeen >= 0 && gcs > h.gcSeen {
		s.gc = true
	}
	h.gcSeen = gcs
}

func (h *vmHistory) memory(at time.Time, m monitor.Memory) {
	if len(m.History) == 0 {
		return
	}
	r := m.History[len(m.History)-1]
	s := h.sampleAt(at)
	if r.TotalPSS >= 0 {
		s.pss = r.TotalPSS * 1024
	}
	if !h.hpif && r.JavaHeap >= 0 {
		s.heapUsed = r.JavaHeap * 1024 // no HPIF (API 30+): dumpsys's Java heap
	}
}

// recordEvents folds an event batch into the rings of hist, starting a
// ring for a VM first heard of.
func recordEvents(hist map[string]*vmHistory, evs []monitor.Event, at time.Time) {
	of := func(key string) *vmHistory {
		h := hist[key]
		if h == nil {
			h = newHistory(at)
			hist[key] = h
		}
		return h
	}
	for _, ev := range evs {
		switch e := ev.(type) {
		case monitor.VMUpdated:
			of(e.VM.Key)
		case monitor.ThreadsUpdated:
			of(e.Key).threads(at, e.Threads)
		case monitor.HeapUpdated:
			of(e.Key).heaps(at, e.Heaps)
		case monitor.MemoryUpdated:
			of(e.Key).memory(at, e.Memory)
		}
	}
}

// record folds an event batch into the VMs' rings (model.apply calls it),
// unless the rings were filled from a whole recording (preload).
func (m *model) record(evs []monitor.Event, at time.Time) {
	if !m.preloaded {
		recordEvents(m.history, evs, at)
	}
}

// preload replaces the rings with those built from a whole recording: the
// replay's own events then add nothing.
func (m *model) preload(hist map[string]*vmHistory) {
	m.history, m.preloaded = hist, true
}

func (m *model) historyOf(key string, at time.Time) *vmHistory {
	h := m.history[key]
	if h == nil {
		h = newHistory(at)
		m.history[key] = h
	}
	return h
}
