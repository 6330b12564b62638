// Package heap is ddmtui's model of a VM heap, independent of any view: it
// assembles the HPST … HPSG/HPSO … HPEN sequence a VM sends after a GC into a
// Snapshot (segments placed by address, validated, with statistics by kind and
// solidity and a fragmentation measure), and keeps the HPIF history. The
// dashboard's bitmap, the PNG export and the JSON summary all read Snapshots.
//
// A Snapshot keeps the segments' run-length data as the VM sent it (two
// bytes per run), never a per-unit map, so a 64 M-unit heap costs a few
// megabytes; Cells resamples any window of it into display cells.
package heap

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
)

// Stats summarise allocation units.
type Stats struct {
	UnitSize     int
	TotalUnits   uint64
	UnitsByKind  [8]uint64 // used units per ddm.Kind (free units are not counted here)
	UnitsBySolid [8]uint64 // units per ddm.Solidity (index 0 = free)
	RunsByKind   [8]uint64 // used runs (objects, or merged objects in HPSG) per kind
	FreeRuns     uint64
	LargestFree  uint64 // units in the largest free run
	Segments     int
}

// FreeUnits is the number of free units.
func (s *Stats) FreeUnits() uint64 { return s.UnitsBySolid[ddm.SolidityFree] }

// UsedUnits is the number of units in use.
func (s *Stats) UsedUnits() uint64 { return s.TotalUnits - s.FreeUnits() }

// Fragmentation is 1 - largest free run / all free units: 0 when the free
// space is one block (or there is none), close to 1 when it is scattered.
func (s *Stats) Fragmentation() float64 {
	free := s.FreeUnits()
	if free == 0 {
		return 0
	}
	return 1 - float64(s.LargestFree)/float64(free)
}

// FragmentationLabel is how views state Fragmentation: as a percentage
// with one decimal ("fragmentation 95.6%"). The dashboard's heap pane and
// the PNG legend print it; JSON carries the fraction itself (0.956...), so
// all three state one quantity.
func (s *Stats) FragmentationLabel() string {
	return fmt.Sprintf("fragmentation %.1f%%", 100*s.Fragmentation())
}

// Snapshot is one complete segment set of one heap.
type Snapshot struct {
	HeapID   uint32
	Type     ddm.Type // TypeHPSG, TypeHPSO or TypeNHSG
	UnitSize int
	Segments []ddm.HeapSegment // sorted by address
	// unitStart[i] is the number of units before Segments[i] (for seeking).
	unitStart []uint64
	Stats     Stats
	Complete  time.Time
	charge    *charge // what the snapshot holds of its assembler's Budget
}

// Units is the total number of allocation units the snapshot covers.
func (s *Snapshot) Units() uint64 { return s.Stats.TotalUnits }

// ErrSequence is wrapped by Assembler errors about chunk order.
var ErrSequence = errors.New("heap: segment sequence")

// ErrSetTooLarge is wrapped by the Assembler error returned when a segment
// set passes one of its bounds (units, bytes or segments). The set is
// dropped; the session that feeds the assembler can report the error and
// carry on (the next HPST starts afresh).
var ErrSetTooLarge = errors.New("heap: segment set too large")

// Default bounds of one segment set (see Assembler).
const (
	DefaultMaxUnits    = 1 << 36  // 512 GiB at 8-byte units
	DefaultMaxBytes    = 32 << 20 // usage data kept for one set: a 256 MiB heap's worst real map
	DefaultMaxSegments = 1 << 18  // a 4 GiB heap is about 16 k chunks
	// segmentOverhead is what one kept segment costs beside its usage data
	// (the HeapSegment value and its chunk header), counted in the bytes.
	segmentOverhead = 64
	// heapSlackBytes is added to twice the announced maximum heap size: a
	// VM's segments also cover image and zygote spaces and free space.
	heapSlackBytes = 64 << 20
)

// Assembler collects one heap's segment sequence. Feed it HPST/NHST, the
// segment chunks and HPEN/NHEN as they arrive; End returns the snapshot. As
// ddmlib does, a segment arriving after a sealed set starts a new set.
//
// A set is bounded three ways, so that a VM sending HPST and then segments
// without end cannot grow memory without limit: by allocation units, by
// bytes kept (usage data plus a per-segment overhead) and by segment count.
// SetHeapMax tightens the units and bytes bounds to the VM's announced heap
// size (HPIF). Past a bound Add returns an error wrapping ErrSetTooLarge,
// drops the set, and ignores that set's further segments; its End returns
// an error too.
//
// Segment data is copied as it is added (a decoded segment aliases its
// packet, which may hold much more than the segment), and charged to
// Budget, shared by every assembler of a process: a set that would pass it
// is dropped as one that passes its own bounds. The charge moves to the
// snapshot End returns until that is released; Close gives back an
// unfinished set's.
type Assembler struct {
	open     bool
	dropped  bool // the open set passed a bound and was dropped
	heapID   uint32
	typ      ddm.Type
	segments []ddm.HeapSegment
	// MaxUnits bounds a set's total units (0: DefaultMaxUnits).
	MaxUnits uint64
	// MaxBytes bounds the bytes a set keeps (0: DefaultMaxBytes).
	MaxBytes uint64
	// MaxSegments bounds a set's segment count (0: DefaultMaxSegments).
	MaxSegments int
	// Budget is the process-wide budget the sets draw from (nil: none).
	Budget      *Budget
	closed      bool   // Close was called: segments are ignored
	heapMax     uint64 // announced maximum heap size in bytes; 0 unknown
	units       uint64
	bytes       uint64
	droppedSegs uint64
}

// SetHeapMax records the VM's announced maximum heap size in bytes (HPIF's
// max, 0 when unknown): a set may then hold at most (2 × max + 64 MiB) of
// units and one byte of usage data per such unit, within the fixed bounds.
func (a *Assembler) SetHeapMax(maxBytes uint64) { a.heapMax = maxBytes }

// limits returns the bounds in force for segments of unitSize bytes. Add
// refuses a unit size of 0 before it asks.
func (a *Assembler) limits(unitSize uint8) (units, bytes uint64, segs int) {
	units, bytes, segs = a.MaxUnits, a.MaxBytes, a.MaxSegments
	if units == 0 {
		units = DefaultMaxUnits
	}
	if bytes == 0 {
		bytes = DefaultMaxBytes
	}
	if segs <= 0 {
		segs = DefaultMaxSegments
	}
	if a.heapMax > 0 {
		hu := (2*a.heapMax + heapSlackBytes) / uint64(unitSize)
		units = min(units, hu)
		// Real usage data is two bytes per run and runs average several
		// units; one byte per unit leaves ample room.
		bytes = min(bytes, hu+segmentOverhead*uint64(segs))
	}
	return units, bytes, segs
}

// Start begins a set (HPST or NHST).
func (a *Assembler) Start(heapID uint32, t ddm.Type) {
	a.open = true
	a.dropped = false
	a.heapID = heapID
	a.typ = t
	a.reset()
}

// reset forgets the set's segments; a set that grew large returns its
// memory rather than keeping the capacity.
func (a *Assembler) reset() {
	if cap(a.segments) > 4096 {
		a.segments = nil
	} else {
		clear(a.segments)
		a.segments = a.segments[:0]
	}
	a.Budget.Give(int64(a.bytes))
	a.units, a.bytes, a.droppedSegs = 0, 0, 0
}

// Close drops the set being assembled and gives its bytes back to the
// budget; segments that arrive later are ignored. Call it when the VM's
// session ends.
func (a *Assembler) Close() {
	a.reset()
	a.open, a.dropped, a.closed = false, false, true
}

// Add takes one decoded (and therefore validated) segment chunk. The
// segment's Data must stay valid: decoders alias the packet, which the
// session does not reuse.
func (a *Assembler) Add(s *ddm.HeapSegment) error {
	if a.closed {
		return nil
	}
	if !a.open {
		a.Start(s.HeapID, s.Type)
	}
	if a.dropped {
		a.droppedSegs++
		return nil
	}
	if s.HeapID != a.heapID {
		return fmt.Errorf("%w: segment of heap %d inside heap %d's set", ErrSequence, s.HeapID, a.heapID)
	}
	if s.UnitSize == 0 {
		return fmt.Errorf("heap %d: segment at %#x has unit size 0", s.HeapID, s.Address)
	}
	if len(a.segments) > 0 && a.segments[0].UnitSize != s.UnitSize {
		return fmt.Errorf("heap %d: unit size changes from %d to %d within a set", s.HeapID, a.segments[0].UnitSize, s.UnitSize)
	}
	maxUnits, maxBytes, maxSegs := a.limits(s.UnitSize)
	cost := uint64(len(s.Data)) + segmentOverhead
	var over string
	switch {
	case a.units+uint64(s.Units) > maxUnits:
		over = fmt.Sprintf("%d units", maxUnits)
	case a.bytes+cost > maxBytes:
		over = fmt.Sprintf("%d bytes", maxBytes)
	case len(a.segments)+1 > maxSegs:
		over = fmt.Sprintf("%d segments", maxSegs)
	}
	if over != "" {
		n := len(a.segments) + 1
		a.reset()
		a.dropped = true
		return fmt.Errorf("%w: heap %d: %d segments exceed %s; set dropped", ErrSetTooLarge, s.HeapID, n, over)
	}
	if !a.Budget.Take(int64(cost)) {
		n, held := len(a.segments)+1, a.bytes
		a.reset()
		a.dropped = true
		return fmt.Errorf("%w: %w: heap %d: %d segments (%d bytes) would pass %d bytes for all VMs; set dropped",
			ErrSetTooLarge, ErrBudget, s.HeapID, n, held+cost, a.Budget.Limit())
	}
	a.units += uint64(s.Units)
	a.bytes += cost
	a.typ = s.Type
	seg := *s
	seg.Data = bytes.Clone(s.Data)
	a.segments = append(a.segments, seg)
	return nil
}

// End seals the set (HPEN or NHEN) and returns it. An End without segments
// gives an empty snapshot (ART's NHST/NHEN pair).
func (a *Assembler) End(heapID uint32) (*Snapshot, error) {
	if !a.open {
		return nil, fmt.Errorf("%w: end of heap %d without a start", ErrSequence, heapID)
	}
	if heapID != a.heapID {
		return nil, fmt.Errorf("%w: end of heap %d inside heap %d's set", ErrSequence, heapID, a.heapID)
	}
	a.open = false
	if a.dropped {
		a.dropped = false
		n := a.droppedSegs
		a.reset()
		return nil, fmt.Errorf("%w: heap %d: the set was dropped (%d more segments ignored)", ErrSetTooLarge, heapID, n)
	}
	segs := make([]ddm.HeapSegment, len(a.segments))
	copy(segs, a.segments)
	held := a.bytes
	a.bytes = 0 // the snapshot holds them now
	a.reset()
	snap := NewSnapshot(heapID, a.typ, segs)
	if a.Budget != nil && held > 0 {
		snap.charge = &charge{b: a.Budget, n: held}
	}
	return snap, nil
}

// NewSnapshot sorts segs by address and computes the statistics: from each
// segment's Summary, gathered when it was validated (so the runs are not
// walked again), or by walking the runs of segments built by hand.
func NewSnapshot(heapID uint32, t ddm.Type, segs []ddm.HeapSegment) *Snapshot {
	if !sort.SliceIsSorted(segs, func(i, j int) bool { return segs[i].Address < segs[j].Address }) {
		sort.SliceStable(segs, func(i, j int) bool { return segs[i].Address < segs[j].Address })
	}
	s := &Snapshot{HeapID: heapID, Type: t, Segments: segs, unitStart: make([]uint64, len(segs)), Complete: time.Now()}
	st := &s.Stats
	st.Segments = len(segs)
	var freeRun uint64 // free units since the last used run, across segments
	for i := range segs {
		seg := &segs[i]
		if st.UnitSize == 0 {
			st.UnitSize = int(seg.UnitSize)
		}
		s.unitStart[i] = st.TotalUnits
		sm, ok := seg.Summary()
		if !ok {
			sm = seg.Summarize()
		}
		st.TotalUnits += sm.Units
		for k := range 8 {
			st.UnitsByKind[k] += sm.UnitsByKind[k]
			st.UnitsBySolid[k] += sm.UnitsBySolid[k]
			st.RunsByKind[k] += sm.RunsByKind[k]
		}
		st.FreeRuns += sm.FreeRuns
		if sm.Units == 0 {
			continue
		}
		if sm.LeadingFree == sm.Units {
			freeRun += sm.Units
			continue
		}
		st.LargestFree = max(st.LargestFree, freeRun+sm.LeadingFree, sm.LargestFree)
		freeRun = sm.TrailingFree
	}
	st.LargestFree = max(st.LargestFree, freeRun)
	s.UnitSize = st.UnitSize
	return s
}
