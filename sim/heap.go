package sim

import (
	"math/rand/v2"

	"github.com/ddmtui/ddmtui/ddm"
)

// heapUnit is the allocation unit every real VM reports (spec/ddm-chunks.md
// §7.5).
const heapUnit = 8

// heapBase is where the simulated heap starts, as on a 32-bit ART heap.
const heapBase = 0x12C00000

// maxAllocUnits keeps every allocation encodable in one HPSG chunk.
const maxAllocUnits = 1 << 20

type allocation struct {
	units uint32
	state ddm.State // ddm.StateFree for a free stretch
}

// heapModel is a simulated managed heap: allocations in address order.
type heapModel struct {
	allocs     []allocation
	max        uint64
	fragmented bool
	meanUnits  int
	used       uint64 // units in use
	total      uint64 // units in allocs (footprint)
	count      uint64 // live objects
}

var kindWeights = []struct {
	kind   ddm.Kind
	weight int
}{
	{ddm.KindObject, 50}, {ddm.KindArray1, 14}, {ddm.KindArray2, 11}, {ddm.KindArray4, 15},
	{ddm.KindClass, 5}, {ddm.KindArray8, 3}, {ddm.KindNative, 2},
}

func pickKind(rng *rand.Rand) ddm.Kind {
	n := rng.IntN(100)
	for _, kw := range kindWeights {
		if n < kw.weight {
			return kw.kind
		}
		n -= kw.weight
	}
	return ddm.KindUnknown
}

func newHeapModel(rng *rand.Rand, bytes, max uint64, fragmented bool) *heapModel {
	h := &heapModel{max: max, fragmented: fragmented, meanUnits: 6}
	units := bytes / heapUnit
	// Large heaps use larger objects on average so the model stays small.
	for units/uint64(h.meanUnits) > 1_500_000 {
		h.meanUnits *= 2
	}
	for h.total < units {
		h.push(rng)
	}
	return h
}

func (h *heapModel) objectUnits(rng *rand.Rand) uint32 {
	// Mostly small objects with a long tail (arrays, bitmaps).
	u := 2 + rng.IntN(h.meanUnits*2)
	if rng.IntN(50) == 0 {
		u *= 20 + rng.IntN(60)
	}
	return uint32(min(u, maxAllocUnits))
}

func (h *heapModel) push(rng *rand.Rand) {
	u := h.objectUnits(rng)
	h.allocs = append(h.allocs, allocation{units: u, state: ddm.NewState(pickKind(rng), ddm.SolidityHard)})
	h.total += uint64(u)
	h.used += uint64(u)
	h.count++
}

func (h *heapModel) footprint() uint64      { return h.total * heapUnit }
func (h *heapModel) allocatedBytes() uint64 { return h.used * heapUnit }
func (h *heapModel) objects() uint64        { return h.count }

// allocate adds objects: first into free stretches, then at the end.
func (h *heapModel) allocate(rng *rand.Rand) {
	n := 50 + rng.IntN(200)
	for i := 0; i < n; i++ {
		u := h.objectUnits(rng)
		placed := false
		// Try a few random free stretches first (first fit from a random point).
		if len(h.allocs) > 0 {
			start := rng.IntN(len(h.allocs))
			for j := 0; j < 32; j++ {
				k := (start + j) % len(h.allocs)
				a := h.allocs[k]
				if a.state != ddm.StateFree || a.units < u {
					continue
				}
				st := ddm.NewState(pickKind(rng), ddm.SolidityHard)
				if a.units == u {
					h.allocs[k].state = st
				} else {
					h.allocs[k].units -= u
					h.allocs = append(h.allocs, allocation{})
					copy(h.allocs[k+1:], h.allocs[k:])
					h.allocs[k] = allocation{units: u, state: st}
				}
				h.used += uint64(u)
				h.count++
				placed = true
				break
			}
		}
		if !placed && (h.total+uint64(u))*heapUnit <= h.max {
			h.push(rng)
		}
	}
}

// collect frees a fraction of the objects and merges neighbouring free
// stretches. A fragmented heap frees objects scattered everywhere; an
// ordinary one frees mostly young objects at the end.
func (h *heapModel) collect(rng *rand.Rand) {
	young := len(h.allocs) * 3 / 4
	for i := range h.allocs {
		a := &h.allocs[i]
		if a.state == ddm.StateFree {
			continue
		}
		p := 0.05
		if h.fragmented {
			p = 0.35
		} else if i >= young {
			p = 0.5
		}
		if rng.Float64() < p {
			a.state = ddm.StateFree
			h.used -= uint64(a.units)
			h.count--
		}
	}
	// Merge free neighbours (without exceeding what one run may hold).
	out := h.allocs[:0]
	for _, a := range h.allocs {
		if n := len(out); n > 0 && a.state == ddm.StateFree && out[n-1].state == ddm.StateFree &&
			uint64(out[n-1].units)+uint64(a.units) <= maxAllocUnits {
			out[n-1].units += a.units
			continue
		}
		out = append(out, a)
	}
	// Free space after the last object is not part of the footprint VMs
	// report segments for (spec/ddm-chunks.md §7.5); trim it.
	for len(out) > 0 && out[len(out)-1].state == ddm.StateFree {
		h.total -= uint64(out[len(out)-1].units)
		out = out[:len(out)-1]
	}
	h.allocs = out
}

// segments encodes the heap as VMs do: HPSO chunks with one run per object
// (object boundaries), or HPSG chunks in which neighbouring runs of the
// same state are merged; at most ddm.MaxSegmentData usage bytes each.
func (h *heapModel) segments(t ddm.Type) []ddm.HeapSegment {
	w := ddm.NewSegmentWriter(t, 1, heapUnit)
	w.Start(heapBase)
	merge := t == ddm.TypeHPSG
	var pending allocation
	flush := func() {
		if pending.units > 0 {
			if err := w.Append(pending.state, pending.units); err != nil {
				panic(err) // cannot happen: runs are capped at maxAllocUnits
			}
		}
		pending = allocation{}
	}
	for _, a := range h.allocs {
		if merge && pending.units > 0 && a.state == pending.state && pending.units+a.units <= maxAllocUnits {
			pending.units += a.units
			continue
		}
		flush()
		pending = a
	}
	flush()
	return w.Segments()
}

// nativePiece is one stretch of the native (malloc) heap; pieces are more
// than two pages apart, so each starts a new NHSG piece.
type nativePiece struct {
	base   uint32
	allocs []allocation
}

// newNativeHeap builds a Dalvik-era dlmalloc heap: a few pieces of native
// allocations and free chunks.
func newNativeHeap(rng *rand.Rand) []nativePiece {
	var pieces []nativePiece
	for i, base := range []uint32{0x40008000, 0x40200000, 0x41a00000} {
		p := nativePiece{base: base}
		units := uint32(64<<10+rng.IntN(256<<10)) >> 3 << uint(i%2)
		for used := uint32(0); used < units; {
			u := uint32(2 + rng.IntN(64))
			if rng.IntN(30) == 0 {
				u *= 32
			}
			st := ddm.NewState(ddm.KindNative, ddm.SolidityHard)
			if rng.IntN(5) == 0 {
				st = ddm.StateFree
			}
			p.allocs = append(p.allocs, allocation{units: u, state: st})
			used += u
		}
		pieces = append(pieces, p)
	}
	return pieces
}

// nativeSegments encodes the native heap as Dalvik does: NHSG chunks, a new
// piece (with its own address) after every unreported gap.
func nativeSegments(pieces []nativePiece) []ddm.HeapSegment {
	w := ddm.NewSegmentWriter(ddm.TypeNHSG, 1, heapUnit)
	for _, p := range pieces {
		w.Start(p.base)
		for _, a := range p.allocs {
			if err := w.Append(a.state, a.units); err != nil {
				panic(err)
			}
		}
	}
	return w.Segments()
}

// NativeTruth sums the simulated native heap's units by solidity (index 0
// free, 1 used) — what a monitor's native map should show.
func (vm *VM) NativeTruth() (used, free uint64) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	for _, p := range vm.native {
		for _, a := range p.allocs {
			if a.state == ddm.StateFree {
				free += uint64(a.units)
			} else {
				used += uint64(a.units)
			}
		}
	}
	return used, free
}

// ObjectTruth returns the sizes in units of the managed heap's live objects.
func (vm *VM) ObjectTruth() []uint32 {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	var out []uint32
	for _, a := range vm.heap.allocs {
		if a.state != ddm.StateFree {
			out = append(out, a.units)
		}
	}
	return out
}

// sendSegmentsLocked sends HPST, the segments, HPEN (spec/ddm-chunks.md
// §7.4), and NHST/NHEN with nothing between as ART does when native
// segments were asked for.
func (vm *VM) sendSegmentsLocked(c *vmConn) {
	if c.hpsgWhen == ddm.SegmentWhenEveryGC {
		t := ddm.TypeHPSG
		if c.hpsgWhat == ddm.SegmentWhatObjects {
			t = ddm.TypeHPSO
		}
		c.sendLocked(&ddm.HeapStart{HeapID: 1})
		for _, s := range vm.heap.segments(t) {
			c.sendLocked(&s)
		}
		c.sendLocked(&ddm.HeapEnd{HeapID: 1})
	}
	if c.nhsgWhen == ddm.SegmentWhenEveryGC {
		// Dalvik walks its native heap; ART sends start and end with nothing
		// between (spec/ddm-chunks.md §7.4).
		c.sendLocked(&ddm.NativeHeapStart{HeapID: 1})
		for _, s := range nativeSegments(vm.native) {
			c.sendLocked(&s)
		}
		c.sendLocked(&ddm.NativeHeapEnd{HeapID: 1})
	}
}

// SegmentTruth sums the heap's allocation units by kind and solidity, as the
// monitor's segment summary (heap.Stats) should after the next HPSG set: free
// units count by solidity only, never as a kind (their state byte's kind bits
// are 0, which would otherwise read as "data object").
func (vm *VM) SegmentTruth() (byKind, bySolidity [8]uint64) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	for _, a := range vm.heap.allocs {
		bySolidity[a.state.Solidity()] += uint64(a.units)
		if a.state.Solidity() != ddm.SolidityFree {
			byKind[a.state.Kind()] += uint64(a.units)
		}
	}
	return
}
