package ddm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// Kind is the object kind in bits 5..3 of a heap segment state byte
// (spec/ddm-chunks.md §7.5).
type Kind uint8

// Kinds. Object arrays are KindArray4 on both VMs.
const (
	KindObject  Kind = iota // data object
	KindClass               // class object
	KindArray1              // array of 1-byte elements (byte, boolean)
	KindArray2              // array of 2-byte elements (char, short)
	KindArray4              // array of 4-byte elements (int, float, object references)
	KindArray8              // array of 8-byte elements (long, double)
	KindUnknown             // object whose class looks invalid
	KindNative              // native (non-Java) allocation
)

var kindNames = [8]string{"data object", "class object", "1-byte array", "2-byte array",
	"4-byte array", "8-byte array", "unknown", "native"}

// String returns the kind's name, e.g. "2-byte array".
func (k Kind) String() string {
	if k < 8 {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Solidity is the reachability in bits 2..0 of a heap segment state byte.
// VMs only ever send SolidityFree and SolidityHard.
type Solidity uint8

// Solidities.
const (
	SolidityFree        Solidity = iota // free memory
	SolidityHard                        // reachable; the only value VMs emit for used memory
	SoliditySoft                        // softly reachable
	SolidityWeak                        // weakly reachable
	SolidityPhantom                     // phantom reachable
	SolidityFinalizable                 // pending finalization
	SoliditySweep                       // marked, about to be swept
)

var solidityNames = [8]string{"free", "hard", "soft", "weak", "phantom", "finalizable", "sweep", "undefined"}

// String returns the solidity's name, e.g. "hard"; the unassigned value 7
// is "undefined".
func (s Solidity) String() string {
	if s < 8 {
		return solidityNames[s]
	}
	return fmt.Sprintf("solidity(%d)", uint8(s))
}

// State is a heap segment state byte: P (bit 7, partial: the run continues
// in the next pair), an unused bit 6, kind (5..3) and solidity (2..0).
type State uint8

// StatePartial is the P bit.
const StatePartial State = 0x80

// StateFree is the state VMs write for free runs.
const StateFree State = 0

// NewState combines a kind and a solidity.
func NewState(k Kind, s Solidity) State { return State(k&7)<<3 | State(s&7) }

// Kind returns bits 5..3.
func (s State) Kind() Kind { return Kind(s >> 3 & 7) }

// Solidity returns bits 2..0.
func (s State) Solidity() Solidity { return Solidity(s & 7) }

// Partial reports whether the P bit is set.
func (s State) Partial() bool { return s&StatePartial != 0 }

// String describes the state, e.g. "hard 2-byte array" or "free".
func (s State) String() string {
	str := s.Solidity().String()
	if s.Solidity() != SolidityFree || s.Kind() != KindObject {
		str += " " + s.Kind().String()
	}
	if s.Partial() {
		str += " (partial)"
	}
	return str
}

// SegmentHeaderLen is the size of the HPSG/HPSO/NHSG header before the
// usage data.
const SegmentHeaderLen = 17

// MaxSegmentData is the usage-data size at which VMs start a new chunk: their
// 16384-byte buffer less 16 (spec/ddm-chunks.md §7.5).
const MaxSegmentData = 16368

// maxPairRun is the most units one (state, run-1) pair holds.
const maxPairRun = 256

// HeapSegment is one HPSG, HPSO or NHSG data chunk: a piece of heap memory
// described as run-length pairs (spec/ddm-chunks.md §7.5). A decoded segment
// has been validated: its runs add up to Units exactly.
type HeapSegment struct {
	Type     Type   // TypeHPSG, TypeHPSO or TypeNHSG
	HeapID   uint32 // always 1 on real VMs
	UnitSize uint8  // bytes per allocation unit, 8 on real VMs
	Address  uint32 // address of the first unit; ART truncates it to 32 bits
	// Offset of this piece from Address as sent: always 0 in practice (the
	// draft's example counts it in allocation units).
	Offset uint32
	Units  uint32 // length of the piece in allocation units
	Data   []byte // usage data: (state, run-1) pairs; aliases the decoded body

	// sum is what Validate learned in its pass (summed is set when it
	// succeeded), so that a heap model need not walk the runs again.
	sum    SegmentSummary
	summed bool
}

// SegmentSummary is the statistics of one segment's runs (partial
// continuations merged, as Runs yields them).
type SegmentSummary struct {
	Units        uint64    // all units (equal to the header's for a valid segment)
	UnitsByKind  [8]uint64 // used units per Kind
	UnitsBySolid [8]uint64 // units per Solidity (index 0: free)
	RunsByKind   [8]uint64 // used runs per Kind
	FreeRuns     uint64
	// Free stretches: consecutive free runs form one. LeadingFree and
	// TrailingFree are the stretches touching the segment's ends (both equal
	// Units when the segment is all free); LargestFree is the longest.
	LeadingFree, TrailingFree, LargestFree uint64
}

// Summary returns the statistics Validate gathered while checking the
// segment (DecodeHeapSegment validates); ok is false when Validate has not
// succeeded on it. It describes Data as it was then.
func (s *HeapSegment) Summary() (sum SegmentSummary, ok bool) { return s.sum, s.summed }

// Summarize computes the statistics by walking Runs: for segments built by
// hand; on data that fails Validate it covers the runs Runs yields.
func (s *HeapSegment) Summarize() SegmentSummary {
	var sm SegmentSummary
	var stretch uint64
	first := true
	for r := range s.Runs {
		u := uint64(r.Units)
		sm.Units += u
		sm.UnitsBySolid[r.State.Solidity()] += u
		if r.State.Solidity() == SolidityFree {
			sm.FreeRuns++
			stretch += u
			continue
		}
		if first {
			sm.LeadingFree = stretch
		}
		first = false
		sm.LargestFree = max(sm.LargestFree, stretch)
		stretch = 0
		sm.UnitsByKind[r.State.Kind()] += u
		sm.RunsByKind[r.State.Kind()]++
	}
	if first {
		sm.LeadingFree = stretch
	}
	sm.TrailingFree = stretch
	sm.LargestFree = max(sm.LargestFree, stretch)
	return sm
}

// ChunkType returns s.Type.
func (s *HeapSegment) ChunkType() Type { return s.Type }

// AppendBody appends the 17-byte header and the usage data.
func (s *HeapSegment) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(s.HeapID)
	w.U1(s.UnitSize)
	w.U4(s.Address)
	w.U4(s.Offset)
	w.U4(s.Units)
	w.Bytes(s.Data)
	return w.B
}

func isSegmentType(t Type) bool { return t == TypeHPSG || t == TypeHPSO || t == TypeNHSG }

// DecodeHeapSegment decodes and validates an HPSG, HPSO or NHSG body of
// chunk type t. Run errors are *SegmentError; header errors wrap
// *wire.FormatError.
func DecodeHeapSegment(t Type, body []byte) (*HeapSegment, error) {
	if !isSegmentType(t) {
		return nil, fmt.Errorf("ddm: %v is not a heap segment type", t)
	}
	s := &HeapSegment{}
	if err := s.decode(t, body); err != nil {
		return nil, err
	}
	return s, nil
}

// decode fills s from body and validates it.
func (s *HeapSegment) decode(t Type, body []byte) error {
	r := wire.NewReader(body, 0)
	s.Type = t
	s.HeapID = r.U4("heap id")
	s.UnitSize = r.U1("allocation unit size")
	if r.Err() == nil && s.UnitSize == 0 {
		r.Fail("allocation unit size", errors.New("zero"))
	}
	s.Address = r.U4("segment address")
	s.Offset = r.U4("piece offset")
	s.Units = r.U4("piece length")
	s.Data = rawData(r.Rest())
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: %w", t.name(), err)
	}
	return s.Validate()
}

// SegmentError reports usage data that does not match its segment: runs
// that do not add up to the header's unit count, a partial pair not
// continued by a pair of the same state, a partial pair at the end, or an
// odd trailing byte.
type SegmentError struct {
	Type   Type
	HeapID uint32
	// Offset is the byte offset in the chunk body of the offending pair or
	// byte; for a unit count mismatch, of the start of the usage data.
	Offset int
	Err    error
}

// Error formats as "hpsg: heap 1: runs total 315 units, header says 316
// (offset 17)".
func (e *SegmentError) Error() string {
	return fmt.Sprintf("%s: heap %d: %v (offset %d)", e.Type.name(), e.HeapID, e.Err, e.Offset)
}

func (e *SegmentError) Unwrap() error { return e.Err }

// Validate checks the usage data against the header: an even number of
// bytes, every partial pair followed by a pair whose low 7 bits are the
// same, and run lengths adding up to Units exactly. In the same pass it
// gathers the segment's Summary.
func (s *HeapSegment) Validate() error {
	s.summed = false
	d := s.Data
	if len(d)%2 != 0 {
		return s.fail(len(d)-1, "odd byte after the last (state, run) pair")
	}
	if len(d) >= maxFastData {
		return s.validateSlow()
	}
	// Units and run ends per state (bit 7 clear) are counted together in
	// one word, units in the low bits and runs from bit runShift, in two
	// tables (even and odd pairs) so that consecutive pairs of the same
	// state do not wait on each other. A plain pair (used, not partial) is
	// one table update; free and partial runs take the slow branch.
	//
	// Bit 6 of a state byte is unused: states that differ only there have
	// the same kind and solidity, so the tables are indexed by the low 6
	// bits. The main loop reads four pairs as one little-endian word and
	// tests all four states at once (16-bit lanes: a state byte, then its
	// run byte): none may have the partial bit, and none may be free.
	var acc0, acc1, acc2, acc3 [64]uint64
	var sm SegmentSummary
	// Free stretches, without branches on the data: stretch is the open
	// stretch (reset by a used run), largest the longest so far, and
	// leading follows stretch until the first used run (open is all ones
	// until then).
	var stretch, largest, leading uint64
	open := ^uint64(0)
	track := func(free, u uint64) {
		m := -free // all ones for a free run
		stretch = (stretch + u) & m
		largest = max(largest, stretch)
		open &= m
		leading = max(leading, stretch&open)
	}
	n := len(d)
	i := 0
	for {
		for ; i+8 <= n; i += 8 {
			w := binary.LittleEndian.Uint64(d[i : i+8 : i+8])
			if w&0x0080_0080_0080_0080 != 0 {
				break // a partial pair: merged below
			}
			acc0[w&0x3f] += w>>8&0xff + runInc
			acc1[w>>16&0x3f] += w>>24&0xff + runInc
			acc2[w>>32&0x3f] += w>>40&0xff + runInc
			acc3[w>>48&0x3f] += w>>56 + runInc
			used := (w&0x0007_0007_0007_0007 + 0x7fff_7fff_7fff_7fff) & 0x8000_8000_8000_8000
			if used == 0x8000_8000_8000_8000 {
				stretch, open = 0, 0
				continue
			}
			if open != 0 { // no used run yet: the leading stretch grows
				for k := 0; k < 64; k += 16 {
					lane := w >> k
					track(((lane&7)-1)>>63, lane>>8&0xff+1)
				}
				continue
			}
			// Straight-line, lane by lane: m is all ones for a free run.
			m0, m1 := -(((w & 7) - 1) >> 63), -(((w >> 16 & 7) - 1) >> 63)
			m2, m3 := -(((w >> 32 & 7) - 1) >> 63), -(((w >> 48 & 7) - 1) >> 63)
			s0 := (stretch + w>>8&0xff + 1) & m0
			s1 := (s0 + w>>24&0xff + 1) & m1
			s2 := (s1 + w>>40&0xff + 1) & m2
			stretch = (s2 + w>>56 + 1) & m3
			largest = max(largest, s0, s1, s2, stretch)
		}
		if i >= n {
			break
		}
		// The last few pairs, or a run in partial pairs.
		st, u, j := d[i], uint64(d[i+1])+1, i+2
		if st&0x80 != 0 {
			var err error
			if st, u, j, err = s.runAt(i); err != nil {
				return err
			}
		}
		acc0[st&0x3f] += u + 1<<runShift
		track((uint64(st&7)-1)>>63, u)
		i = j
	}
	sm.LeadingFree, sm.TrailingFree, sm.LargestFree = leading, stretch, largest
	for st := range acc0 {
		v := acc0[st] + acc1[st] + acc2[st] + acc3[st]
		if v == 0 {
			continue
		}
		runs, units := v>>runShift, v&(1<<runShift-1)
		sm.Units += units
		sm.UnitsBySolid[st&7] += units
		if st&7 == 0 {
			sm.FreeRuns += runs
		} else {
			sm.UnitsByKind[st>>3&7] += units
			sm.RunsByKind[st>>3&7] += runs
		}
	}
	if sm.Units != uint64(s.Units) {
		return s.fail(0, "runs total %d units, header says %d", sm.Units, s.Units)
	}
	s.sum, s.summed = sm, true
	return nil
}

const (
	// runShift is where Validate's per-state words count runs; below it
	// they count units. With less than maxFastData bytes of pairs, neither
	// part can overflow (< 2^24 pairs of at most 256 units each).
	runShift    = 40
	runInc      = 1 + 1<<runShift // one unit for the pair's run-1, one run
	maxFastData = 1 << 25
)

func (s *HeapSegment) fail(off int, format string, args ...any) error {
	return &SegmentError{Type: s.Type, HeapID: s.HeapID, Offset: SegmentHeaderLen + off, Err: fmt.Errorf(format, args...)}
}

// runAt reads the run whose first pair is at byte i of the data, following
// partial continuations: its final state, its units and the index after it.
func (s *HeapSegment) runAt(i int) (st byte, units uint64, next int, err error) {
	d := s.Data
	st = d[i]
	units = uint64(d[i+1]) + 1
	for st&0x80 != 0 {
		if i+2 >= len(d) {
			return 0, 0, 0, s.fail(i, "partial run %#02x at the end of the data", st)
		}
		if nx := d[i+2]; nx&0x7f != st&0x7f {
			return 0, 0, 0, s.fail(i+2, "partial run %#02x continues with state %#02x", st, nx)
		}
		i += 2
		st = d[i]
		units += uint64(d[i+1]) + 1
	}
	return st, units, i + 2, nil
}

// validateSlow checks data too large for Validate's packed counters (no VM
// sends it: their chunks hold at most MaxSegmentData bytes).
func (s *HeapSegment) validateSlow() error {
	d := s.Data
	if len(d)%2 != 0 {
		return s.fail(len(d)-1, "odd byte after the last (state, run) pair")
	}
	total := uint64(len(d) / 2)
	for i := 0; i < len(d); i += 2 {
		st := d[i]
		total += uint64(d[i+1])
		if st&0x80 != 0 {
			if i+2 == len(d) {
				return s.fail(i, "partial run %#02x at the end of the data", st)
			}
			if next := d[i+2]; next&0x7f != st&0x7f {
				return s.fail(i+2, "partial run %#02x continues with state %#02x", st, next)
			}
		}
	}
	if total != uint64(s.Units) {
		return s.fail(0, "runs total %d units, header says %d", total, s.Units)
	}
	s.sum, s.summed = s.Summarize(), true
	return nil
}

// Run is one element of a segment: consecutive units in one state, with
// partial continuations merged (as ddmlib's HeapSegment elements).
type Run struct {
	State State // never has the partial bit
	Units uint32
}

// Bytes is the run's length in bytes for a unit size.
func (r Run) Bytes(unitSize uint8) uint64 { return uint64(r.Units) * uint64(unitSize) }

// Runs calls yield for each run in order until yield returns false; use it
// as `for run := range seg.Runs`. It allocates nothing. On data that fails
// Validate it stops at the first inconsistency, as ddmlib does.
func (s *HeapSegment) Runs(yield func(Run) bool) {
	d := s.Data
	for i := 0; i+1 < len(d); i += 2 {
		st := d[i]
		if st&0x80 == 0 { // the common case: a run in one pair
			if !yield(Run{State: State(st), Units: uint32(d[i+1]) + 1}) {
				return
			}
			continue
		}
		units := uint64(d[i+1]) + 1
		for st&0x80 != 0 {
			i += 2
			if i+1 >= len(d) || d[i]&0x7f != st&0x7f {
				return
			}
			st = d[i]
			units += uint64(d[i+1]) + 1
		}
		if units > math.MaxUint32 {
			return
		}
		if !yield(Run{State: State(st), Units: uint32(units)}) {
			return
		}
	}
}

// AppendRuns appends the segment's runs to dst.
func (s *HeapSegment) AppendRuns(dst []Run) []Run {
	for r := range s.Runs {
		dst = append(dst, r)
	}
	return dst
}

// AppendRunPairs appends one allocation of units units in state st as VMs
// write it: runs longer than 256 units become (st|P, 0xFF) pairs of 256
// units followed by a final (st, rest-1). A zero-unit run appends nothing.
func AppendRunPairs(dst []byte, st State, units uint32) []byte {
	st &^= StatePartial
	if units == 0 {
		return dst
	}
	for ; units > maxPairRun; units -= maxPairRun {
		dst = append(dst, byte(st|StatePartial), 0xff)
	}
	return append(dst, byte(st), byte(units-1))
}

// runPairBytes is the usage-data size of one allocation of units units.
func runPairBytes(units uint32) int { return 2 * int((uint64(units)+maxPairRun-1)/maxPairRun) }

// ErrRunTooLarge is returned by SegmentWriter.Append for an allocation
// whose pairs exceed one chunk's usage data. VMs drop such an allocation
// with a "too big to transmit" warning.
var ErrRunTooLarge = errors.New("allocation does not fit in one segment chunk")

// ErrNoSegmentStart is returned by SegmentWriter.Append before Start.
var ErrNoSegmentStart = errors.New("segment writer: Append before Start")

// SegmentWriter encodes a heap walk into HPSG, HPSO or NHSG segments the
// way Dalvik and ART do (spec/ddm-chunks.md §7.5): each allocation is one
// run; an allocation's pairs are never split across chunks; a new chunk,
// with a header whose address is that of its first run, starts when the
// usage data would exceed MaxData; Units is the sum of the chunk's runs.
// Free space is appended as a run of StateFree. Call Start at every region
// boundary or unreported gap.
type SegmentWriter struct {
	Type     Type   // TypeHPSG, TypeHPSO or TypeNHSG
	HeapID   uint32 // 1 on real VMs
	UnitSize uint8  // 8 on real VMs
	MaxData  int    // usage-data bytes per chunk; below 2 means MaxSegmentData

	open  bool
	cur   HeapSegment
	units uint64 // units in cur
	next  uint32 // address after the last run appended
	done  []HeapSegment
}

// NewSegmentWriter returns a writer for chunk type t with VM defaults
// (MaxSegmentData per chunk).
func NewSegmentWriter(t Type, heapID uint32, unitSize uint8) *SegmentWriter {
	return &SegmentWriter{Type: t, HeapID: heapID, UnitSize: unitSize}
}

func (w *SegmentWriter) maxData() int {
	if w.MaxData < 2 {
		return MaxSegmentData
	}
	return w.MaxData &^ 1
}

// Start closes the current chunk, if any, and starts a new piece at addr.
func (w *SegmentWriter) Start(addr uint32) {
	w.Flush()
	w.open = true
	w.next = addr
}

func (w *SegmentWriter) begin(addr uint32) {
	w.cur = HeapSegment{Type: w.Type, HeapID: w.HeapID, UnitSize: w.UnitSize, Address: addr,
		Data: make([]byte, 0, w.maxData())}
	w.units = 0
}

// Append adds one allocation (or free stretch) of units units in state st
// after the previous one. It fails with ErrRunTooLarge, appending nothing,
// when the allocation cannot fit in an empty chunk, and for zero units.
func (w *SegmentWriter) Append(st State, units uint32) error {
	if !w.open {
		return ErrNoSegmentStart
	}
	if units == 0 {
		return errors.New("segment writer: zero-unit allocation")
	}
	need := runPairBytes(units)
	limit := w.maxData()
	if need > limit {
		return fmt.Errorf("%d units need %d bytes, limit %d: %w", units, need, limit, ErrRunTooLarge)
	}
	if w.cur.Data != nil && (len(w.cur.Data)+need > limit || w.units+uint64(units) > math.MaxUint32) {
		w.closeChunk()
	}
	if w.cur.Data == nil {
		w.begin(w.next)
	}
	w.cur.Data = AppendRunPairs(w.cur.Data, st, units)
	w.units += uint64(units)
	w.next += units * uint32(w.UnitSize)
	return nil
}

// closeChunk finishes the current chunk, keeping the piece open.
func (w *SegmentWriter) closeChunk() {
	if len(w.cur.Data) > 0 {
		w.cur.Units = uint32(w.units)
		w.done = append(w.done, w.cur)
	}
	w.cur = HeapSegment{}
	w.units = 0
}

// Flush finishes the current chunk and the piece; Append needs a new Start.
func (w *SegmentWriter) Flush() {
	w.closeChunk()
	w.open = false
}

// Segments flushes and returns the segments written so far, in order, and
// forgets them.
func (w *SegmentWriter) Segments() []HeapSegment {
	w.Flush()
	out := w.done
	w.done = nil
	return out
}
