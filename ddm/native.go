package ddm

import (
	"errors"
	"fmt"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// NativeHeapRequest is the NHGT request (empty; spec/ddm-chunks.md §7.8).
type NativeHeapRequest struct{}

// ChunkType returns TypeNHGT.
func (*NativeHeapRequest) ChunkType() Type { return TypeNHGT }

// AppendBody appends nothing.
func (*NativeHeapRequest) AppendBody(b []byte) []byte { return b }

// DecodeNativeHeapRequest decodes an NHGT request (empty body).
func DecodeNativeHeapRequest(body []byte) (*NativeHeapRequest, error) {
	return decodeEmpty[NativeHeapRequest](TypeNHGT, body)
}

// NHGT constants (spec/ddm-chunks.md §7.8).
const (
	NHGTSignature    = 0x812345DD // first u32 of the 64-bit header
	NativeZygoteFlag = 1 << 31    // in NativeAllocation.Size: allocated in the zygote
	nhgtNarrowHeader = 5 * 4
	nhgtWideHeader   = 4 + 2 + 2 + 5*8
)

// NativeHeap is the NHGT reply: the process's memory map and, with malloc
// debugging on, its native allocations. Unlike every other chunk it is
// little-endian: the VM copies its C struct (spec/ddm-chunks.md §7.8).
type NativeHeap struct {
	// Wide is the 64-bit form: a header that starts with NHGTSignature,
	// a version and a pointer size, then u64 fields. Otherwise all header
	// fields are u32 and pointers are 4 bytes.
	Wide          bool
	Version       uint16 // Wide only; 2
	PointerSize   uint16 // 4 or 8; always 4 in the narrow form
	TotalMemory   uint64
	BacktraceSize uint64 // return addresses per record
	// RecordSize is allocInfoSize as sent: 0 when malloc debugging is off.
	// When encoding allocations, a value below the size of the known fields
	// means exactly that size; bytes beyond them are written as zeros.
	RecordSize  uint64
	Maps        []byte // /proc/self/maps text; aliases the body
	Allocations []NativeAllocation
}

// NativeAllocation is one NHGT record: allocations sharing a size and a
// backtrace.
type NativeAllocation struct {
	Size      uint64   // bytes, possibly with NativeZygoteFlag set
	Count     uint64   // number of such allocations
	Backtrace []uint64 // BacktraceSize return addresses; 0 marks an unused slot
}

// Bytes is the allocation size without the zygote flag.
func (a *NativeAllocation) Bytes() uint64 { return a.Size &^ NativeZygoteFlag }

// Zygote reports whether the memory was allocated in the zygote.
func (a *NativeAllocation) Zygote() bool { return a.Size&NativeZygoteFlag != 0 }

// ChunkType returns TypeNHGT.
func (*NativeHeap) ChunkType() Type { return TypeNHGT }

func (m *NativeHeap) pointerSize() int {
	if m.Wide && m.PointerSize == 8 {
		return 8
	}
	return 4
}

func (m *NativeHeap) recordSize() uint64 {
	min := (2 + m.BacktraceSize) * uint64(m.pointerSize())
	if len(m.Allocations) > 0 && m.RecordSize < min {
		return min
	}
	return m.RecordSize
}

// AppendBody appends the little-endian layout: header, maps, records.
func (m *NativeHeap) AppendBody(b []byte) []byte {
	ptr := m.pointerSize()
	rec := m.recordSize()
	allocSize := uint64(len(m.Allocations)) * rec
	w := wire.Writer{B: b}
	if m.Wide {
		w.U4LE(NHGTSignature)
		w.U2LE(m.Version)
		w.U2LE(uint16(ptr))
	}
	for _, v := range [...]uint64{uint64(len(m.Maps)), allocSize, rec, m.TotalMemory, m.BacktraceSize} {
		if m.Wide {
			w.U8LE(v)
		} else {
			w.U4LE(uint32(v))
		}
	}
	w.Bytes(m.Maps)
	pointer := func(v uint64) {
		if ptr == 8 {
			w.U8LE(v)
		} else {
			w.U4LE(uint32(v))
		}
	}
	for i := range m.Allocations {
		a := &m.Allocations[i]
		start := len(w.B)
		pointer(a.Size)
		pointer(a.Count)
		for j := uint64(0); j < m.BacktraceSize; j++ {
			var pc uint64
			if j < uint64(len(a.Backtrace)) {
				pc = a.Backtrace[j]
			}
			pointer(pc)
		}
		w.B = appendZeros(w.B, int(rec)-(len(w.B)-start))
	}
	return w.B
}

// DecodeNativeHeap decodes an NHGT reply, detecting the 64-bit form by its
// signature as ddmlib does. Record size and allocation size must describe
// whole records that fit in the body.
func DecodeNativeHeap(body []byte) (*NativeHeap, error) {
	r := wire.NewReader(body, 0)
	m := &NativeHeap{PointerSize: 4}
	var mapSize, allocSize uint64
	if len(body) >= 4 && uint32(body[0])|uint32(body[1])<<8|uint32(body[2])<<16|uint32(body[3])<<24 == NHGTSignature {
		m.Wide = true
		r.U4LE("signature")
		m.Version = r.U2LE("version")
		m.PointerSize = r.U2LE("pointer size")
		if r.Err() == nil && m.PointerSize != 4 && m.PointerSize != 8 {
			r.Failf("pointer size", "%d, want 4 or 8", m.PointerSize)
		}
		mapSize = r.U8LE("map size")
		allocSize = r.U8LE("allocation size")
		m.RecordSize = r.U8LE("allocation info size")
		m.TotalMemory = r.U8LE("total memory")
		m.BacktraceSize = r.U8LE("backtrace size")
	} else {
		mapSize = uint64(r.U4LE("map size"))
		allocSize = uint64(r.U4LE("allocation size"))
		m.RecordSize = uint64(r.U4LE("allocation info size"))
		m.TotalMemory = uint64(r.U4LE("total memory"))
		m.BacktraceSize = uint64(r.U4LE("backtrace size"))
	}
	m.Maps = rawData(r.Bytes(r.Count(mapSize, 1, "map size"), "maps"))
	recordsAt := r.Offset()
	records := r.Bytes(r.Count(allocSize, 1, "allocation size"), "allocation records")
	r.End("end of body")
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("nhgt: %w", err)
	}
	if err := m.decodeRecords(records, recordsAt); err != nil {
		return nil, fmt.Errorf("nhgt: %w", err)
	}
	return m, nil
}

func (m *NativeHeap) decodeRecords(records []byte, base int) error {
	if len(records) == 0 {
		return nil
	}
	ptr := uint64(m.PointerSize)
	fail := func(what string, err error) error { return &wire.FormatError{Offset: base, What: what, Err: err} }
	if m.RecordSize == 0 {
		return fail("allocation info size", fmt.Errorf("0 with %d bytes of records", len(records)))
	}
	if m.RecordSize > uint64(len(records)) {
		return fail("allocation info size", fmt.Errorf("%d, but only %d bytes of records: %w", m.RecordSize, len(records), wire.ErrTooLong))
	}
	if m.BacktraceSize > m.RecordSize/ptr || m.RecordSize < (2+m.BacktraceSize)*ptr {
		return fail("allocation info size", fmt.Errorf("%d bytes cannot hold size, count and %d %d-byte return addresses",
			m.RecordSize, m.BacktraceSize, ptr))
	}
	if uint64(len(records))%m.RecordSize != 0 {
		return fail("allocation size", fmt.Errorf("%d bytes is not a whole number of %d-byte records: %w",
			len(records), m.RecordSize, errors.New("partial record")))
	}
	n := uint64(len(records)) / m.RecordSize
	m.Allocations = make([]NativeAllocation, n)
	var pcs []uint64
	if m.BacktraceSize > 0 {
		pcs = make([]uint64, n*m.BacktraceSize)
	}
	r := wire.NewReader(records, base)
	read := func(what string) uint64 {
		if ptr == 8 {
			return r.U8LE(what)
		}
		return uint64(r.U4LE(what))
	}
	bt := int(m.BacktraceSize)
	for i := range m.Allocations {
		a := &m.Allocations[i]
		start := r.Offset()
		a.Size = read("allocation size")
		a.Count = read("allocation count")
		if bt > 0 {
			a.Backtrace = pcs[i*bt : (i+1)*bt : (i+1)*bt]
			for j := range a.Backtrace {
				a.Backtrace[j] = read("return address")
			}
		}
		r.Skip(int(m.RecordSize)-(r.Offset()-start), "record padding")
	}
	return r.Err()
}
