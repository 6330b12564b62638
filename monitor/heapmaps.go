package monitor

import (
	"sort"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
)

// heapMaps assembles what a DDM VM says of its heaps into the model: the
// heap summaries (HPIF) with their history, and the heap maps a GC sends
// (HPST…HPSG/HPSO…HPEN, NHST…NHSG…NHEN), under the segment options asked
// for.
type heapMaps struct {
	entry    *vmEntry
	badInput func(error) // a malformed set: dropped, the session goes on

	mu         sync.Mutex
	heaps      map[int]*Heap
	asm        heap.Assembler // HPST…HPSG/HPSO…HPEN
	nasm       heap.Assembler // NHST…NHSG…NHEN
	opts       SegmentOptions
	segmentsOn bool // the managed heap map is asked for (SessionOptions.Segments, SetSegments)
}

func newHeapMaps(entry *vmEntry, budget *heap.Budget, segments bool, badInput func(error)) *heapMaps {
	h := &heapMaps{entry: entry, badInput: badInput, heaps: map[int]*Heap{}, segmentsOn: segments}
	h.asm.Budget, h.nasm.Budget = budget, budget
	return h
}

// askAtStart reports whether the managed heap map is to be asked for when
// the session starts, and notes it in the options.
func (h *heapMaps) askAtStart() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.segmentsOn {
		h.opts.Managed = true
	}
	return h.segmentsOn
}

// options are the segment options last asked for.
func (h *heapMaps) options() SegmentOptions {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.opts
}

// askedNow reports whether a heap map of the VM is asked for now (the
// dashboard's selected VM, `ddmtui heap`). Busy — its lock held — counts as
// asked: the budget's reclaimer never waits.
func (h *heapMaps) askedNow() bool {
	if !h.mu.TryLock() {
		return true
	}
	defer h.mu.Unlock()
	return h.segmentsOn || h.opts.Managed || h.opts.Native
}

func (h *heapMaps) setOptions(o SegmentOptions) {
	h.mu.Lock()
	h.segmentsOn = o.Managed
	h.opts = o
	h.mu.Unlock()
}

// info applies an HPIF chunk received at now.
func (h *heapMaps) info(m *ddm.HeapInfo, now time.Time) {
	if h.entry.capsNow().hpif != answered {
		h.entry.setCaps(func(in *capInput) { in.hpif = answered })
	}
	h.mu.Lock()
	for _, hs := range m.Heaps {
		hp, ok := h.heaps[int(hs.HeapID)]
		if !ok {
			hp = &Heap{ID: int(hs.HeapID)}
			h.heaps[hp.ID] = hp
		}
		hp.MaxBytes, hp.SizeBytes = uint64(hs.MaxBytes), uint64(hs.SizeBytes)
		hp.AllocatedBytes, hp.Objects = uint64(hs.AllocatedBytes), uint64(hs.AllocatedObjects)
		hp.Timestamp, hp.Reason, hp.Updated = hs.Timestamp, int(hs.Reason), now
		if hs.Reason == ddm.HeapInfoEveryGC || hs.Reason == ddm.HeapInfoNextGC {
			hp.GCCount++
		}
		hp.History = appendSample(hp.History, HeapSample{Time: now, SizeBytes: hp.SizeBytes,
			AllocatedBytes: hp.AllocatedBytes, Objects: hp.Objects, GCCount: hp.GCCount})
	}
	// A segment set may not outgrow what the VM says its heap can be
	// (heap.Assembler.SetHeapMax): an endless set is dropped, not kept.
	var maxBytes uint64
	for _, hp := range h.heaps {
		maxBytes = max(maxBytes, hp.MaxBytes)
	}
	h.asm.SetHeapMax(maxBytes)
	heaps := h.heapsLocked()
	h.mu.Unlock()
	h.entry.store.SetHeaps(h.entry.key, heaps)
}

// start begins a managed (HPST) or native (NHST) heap map.
func (h *heapMaps) start(id uint32, native bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if native {
		h.nasm.Start(id, ddm.TypeNHSG)
		return
	}
	h.asm.Start(id, ddm.TypeHPSG)
}

// segment adds an HPSG/HPSO/NHSG chunk to its map.
func (h *heapMaps) segment(m *ddm.HeapSegment) {
	h.mu.Lock()
	var err error
	if m.Type == ddm.TypeNHSG {
		err = h.nasm.Add(m)
	} else {
		err = h.asm.Add(m)
	}
	h.mu.Unlock()
	if err != nil {
		h.badInput(err)
	}
}

// endNative completes a native heap map (NHEN).
func (h *heapMaps) endNative(id uint32) {
	h.mu.Lock()
	snap, err := h.nasm.End(id)
	h.mu.Unlock()
	if err != nil {
		h.badInput(err)
		return
	}
	h.entry.store.SetNativeSegments(h.entry.key, snap)
}

// end completes a managed heap map (HPEN) received at now: the map goes
// to the store, its summary onto its heap.
func (h *heapMaps) end(id uint32, now time.Time) {
	h.mu.Lock()
	snap, err := h.asm.End(id)
	if err == nil {
		hp, ok := h.heaps[int(id)]
		if !ok {
			hp = &Heap{ID: int(id)}
			h.heaps[hp.ID] = hp
		}
		st := snap.Stats
		hp.Segments = &SegmentSummary{UnitSize: st.UnitSize, TotalUnits: st.TotalUnits,
			UnitsByKind: st.UnitsByKind, UnitsBySolid: st.UnitsBySolid, Segments: st.Segments, Updated: now}
	}
	heaps := h.heapsLocked()
	h.mu.Unlock()
	if err != nil {
		h.badInput(err)
		return
	}
	h.entry.store.SetSegments(h.entry.key, snap)
	h.entry.store.SetHeaps(h.entry.key, heaps)
}

func (h *heapMaps) heapsLocked() []Heap {
	out := make([]Heap, 0, len(h.heaps))
	for _, hp := range h.heaps {
		c := *hp
		c.History = append([]HeapSample(nil), hp.History...) // the session keeps appending to its own
		if hp.Segments != nil {
			seg := *hp.Segments
			c.Segments = &seg
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// close gives an unfinished heap map's bytes back (heap.Budget).
func (h *heapMaps) close() {
	h.mu.Lock()
	h.asm.Close()
	h.nasm.Close()
	h.mu.Unlock()
}
