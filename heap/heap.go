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
}

// Units is the total number of allocation units the snapshot covers.
func (s *Snapshot) Units() uint64 { return s.Stats.TotalUnits }

// ErrSequence is wrapped by Assembler errors about chunk order.
var ErrSequence = errors.New("heap: segment sequence")

// Assembler collects one heap's segment sequence. Feed it HPST/NHST, the
// segment chunks and HPEN/NHEN as they arrive; End returns the snapshot. As
// ddmlib does, a segment arriving after a sealed set starts a new set.
type Assembler struct {
	open     bool
	heapID   uint32
	typ      ddm.Type
	segments []ddm.HeapSegment
	// MaxUnits bounds a set's total units (0: 1<<36, 512 GiB at 8 bytes).
	MaxUnits uint64
	units    uint64
}

// Start begins a set (HPST or NHST).
func (a *Assembler) Start(heapID uint32, t ddm.Type) {
	a.open = true
	a.heapID = heapID
	a.typ = t
	a.segments = a.segments[:0]
	a.units = 0
}

// Add takes one decoded (and therefore validated) segment chunk. The
// segment's Data must stay valid: decoders alias the packet, which the
// session does not reuse.
func (a *Assembler) Add(s *ddm.HeapSegment) error {
	if !a.open {
		a.Start(s.HeapID, s.Type)
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
	limit := a.MaxUnits
	if limit == 0 {
		limit = 1 << 36
	}
	if a.units+uint64(s.Units) > limit {
		return fmt.Errorf("heap %d: segment set exceeds %d units", s.HeapID, limit)
	}
	a.units += uint64(s.Units)
	a.typ = s.Type
	a.segments = append(a.segments, *s)
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
	segs := make([]ddm.HeapSegment, len(a.segments))
	copy(segs, a.segments)
	a.segments = a.segments[:0]
	return NewSnapshot(heapID, a.typ, segs), nil
}

// NewSnapshot sorts segs by address and computes the statistics.
func NewSnapshot(heapID uint32, t ddm.Type, segs []ddm.HeapSegment) *Snapshot {
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].Address < segs[j].Address })
	s := &Snapshot{HeapID: heapID, Type: t, Segments: segs, unitStart: make([]uint64, len(segs)), Complete: time.Now()}
	st := &s.Stats
	st.Segments = len(segs)
	var freeRun uint64
	for i := range segs {
		seg := &segs[i]
		if st.UnitSize == 0 {
			st.UnitSize = int(seg.UnitSize)
		}
		s.unitStart[i] = st.TotalUnits
		for r := range seg.Runs {
			u := uint64(r.Units)
			st.TotalUnits += u
			st.UnitsBySolid[r.State.Solidity()] += u
			if r.State.Solidity() == ddm.SolidityFree {
				freeRun += u
				st.FreeRuns++
				continue
			}
			if freeRun > st.LargestFree {
				st.LargestFree = freeRun
			}
			freeRun = 0
			st.UnitsByKind[r.State.Kind()] += u
			st.RunsByKind[r.State.Kind()]++
		}
	}
	if freeRun > st.LargestFree {
		st.LargestFree = freeRun
	}
	s.UnitSize = st.UnitSize
	return s
}
