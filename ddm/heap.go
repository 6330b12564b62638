package ddm

import (
	"fmt"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// HPIF "when" values (spec/ddm-chunks.md §7.1).
const (
	HeapInfoNever   = 0 // stop sending at GC
	HeapInfoNow     = 1 // send one HPIF immediately
	HeapInfoNextGC  = 2 // at the next GC only
	HeapInfoEveryGC = 3 // after every GC
)

// HeapInfoRequest is the HPIF request: u1 when. The data arrives as an
// unsolicited HPIF chunk (HeapInfo), also for HeapInfoNow.
type HeapInfoRequest struct {
	When uint8
}

// ChunkType returns TypeHPIF.
func (*HeapInfoRequest) ChunkType() Type { return TypeHPIF }

// AppendBody appends the when byte.
func (m *HeapInfoRequest) AppendBody(b []byte) []byte { return append(b, m.When) }

// DecodeHeapInfoRequest decodes an HPIF request.
func DecodeHeapInfoRequest(body []byte) (*HeapInfoRequest, error) {
	r := wire.NewReader(body, 0)
	m := &HeapInfoRequest{When: r.U1("when")}
	return finish(TypeHPIF, m, r)
}

// HeapInfo is the unsolicited HPIF data chunk (spec/ddm-chunks.md §7.1).
type HeapInfo struct {
	Heaps []HeapStats
}

// HeapStats describes one heap in HPIF. The u4 sizes are truncated to 32
// bits by the VM.
type HeapStats struct {
	HeapID uint32 // always 1
	// Timestamp is in milliseconds: since the Unix epoch on Dalvik, since
	// boot (CLOCK_MONOTONIC) on ART.
	Timestamp        uint64
	Reason           uint8  // the "when" value that caused this report
	MaxBytes         uint32 // -Xmx
	SizeBytes        uint32 // current footprint
	AllocatedBytes   uint32
	AllocatedObjects uint32
}

// hpifHeapLen is the size of one heap's record.
const hpifHeapLen = 4 + 8 + 1 + 4*4

// ChunkType returns TypeHPIF.
func (*HeapInfo) ChunkType() Type { return TypeHPIF }

// AppendBody appends u4 count and the heap records.
func (m *HeapInfo) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(uint32(len(m.Heaps)))
	for i := range m.Heaps {
		h := &m.Heaps[i]
		w.U4(h.HeapID)
		w.U8(h.Timestamp)
		w.U1(h.Reason)
		w.U4(h.MaxBytes)
		w.U4(h.SizeBytes)
		w.U4(h.AllocatedBytes)
		w.U4(h.AllocatedObjects)
	}
	return w.B
}

// DecodeHeapInfo decodes an HPIF data chunk.
func DecodeHeapInfo(body []byte) (*HeapInfo, error) {
	r := wire.NewReader(body, 0)
	m := &HeapInfo{}
	n := r.Count(uint64(r.U4("heap count")), hpifHeapLen, "heap count")
	if n > 0 {
		m.Heaps = make([]HeapStats, n)
	}
	for i := range m.Heaps {
		h := &m.Heaps[i]
		h.HeapID = r.U4("heap id")
		h.Timestamp = r.U8("timestamp")
		h.Reason = r.U1("reason")
		h.MaxBytes = r.U4("max heap size")
		h.SizeBytes = r.U4("heap size")
		h.AllocatedBytes = r.U4("bytes allocated")
		h.AllocatedObjects = r.U4("objects allocated")
	}
	return finish(TypeHPIF, m, r)
}

// GCRequest is the HPGC request: run a GC; the reply is empty
// (spec/ddm-chunks.md §7.2).
type GCRequest struct{}

// ChunkType returns TypeHPGC.
func (*GCRequest) ChunkType() Type { return TypeHPGC }

// AppendBody appends nothing.
func (*GCRequest) AppendBody(b []byte) []byte { return b }

// DecodeGCRequest decodes an HPGC request (empty body).
func DecodeGCRequest(body []byte) (*GCRequest, error) {
	return decodeEmpty[GCRequest](TypeHPGC, body)
}

// HPSG/NHSG request values (spec/ddm-chunks.md §7.3).
const (
	SegmentWhenNever   = 0 // stop sending segments
	SegmentWhenEveryGC = 1 // send them at every GC
	SegmentWhatMerged  = 0 // the VM sends HPSG chunks
	SegmentWhatObjects = 1 // the VM sends HPSO chunks (NHSG either way)
)

// SegmentRequest is the HPSG or NHSG request: u1 when, u1 what. Its reply is
// empty; the data arrives as HPST, HPSG/HPSO…, HPEN (or NHST, NHSG…, NHEN).
type SegmentRequest struct {
	Type Type // TypeHPSG or TypeNHSG
	When uint8
	What uint8
}

// ChunkType returns m.Type.
func (m *SegmentRequest) ChunkType() Type { return m.Type }

// AppendBody appends when and what.
func (m *SegmentRequest) AppendBody(b []byte) []byte { return append(b, m.When, m.What) }

// DecodeSegmentRequest decodes an HPSG or NHSG request body of chunk type t.
func DecodeSegmentRequest(t Type, body []byte) (*SegmentRequest, error) {
	if t != TypeHPSG && t != TypeNHSG {
		return nil, fmt.Errorf("ddm: %v is not a heap segment request type", t)
	}
	r := wire.NewReader(body, 0)
	m := &SegmentRequest{Type: t, When: r.U1("when"), What: r.U1("what")}
	return finish(t, m, r)
}

// HeapStart is the unsolicited HPST chunk: the Java heap's segments follow.
type HeapStart struct{ HeapID uint32 }

// HeapEnd is the unsolicited HPEN chunk: the Java heap's segments are
// complete.
type HeapEnd struct{ HeapID uint32 }

// NativeHeapStart is the unsolicited NHST chunk.
type NativeHeapStart struct{ HeapID uint32 }

// NativeHeapEnd is the unsolicited NHEN chunk.
type NativeHeapEnd struct{ HeapID uint32 }

// ChunkType returns TypeHPST.
func (*HeapStart) ChunkType() Type { return TypeHPST }

// ChunkType returns TypeHPEN.
func (*HeapEnd) ChunkType() Type { return TypeHPEN }

// ChunkType returns TypeNHST.
func (*NativeHeapStart) ChunkType() Type { return TypeNHST }

// ChunkType returns TypeNHEN.
func (*NativeHeapEnd) ChunkType() Type { return TypeNHEN }

// AppendBody appends the heap id.
func (m *HeapStart) AppendBody(b []byte) []byte { return appendU4(b, m.HeapID) }

// AppendBody appends the heap id.
func (m *HeapEnd) AppendBody(b []byte) []byte { return appendU4(b, m.HeapID) }

// AppendBody appends the heap id.
func (m *NativeHeapStart) AppendBody(b []byte) []byte { return appendU4(b, m.HeapID) }

// AppendBody appends the heap id.
func (m *NativeHeapEnd) AppendBody(b []byte) []byte { return appendU4(b, m.HeapID) }

func appendU4(b []byte, v uint32) []byte {
	w := wire.Writer{B: b}
	w.U4(v)
	return w.B
}

func decodeHeapID(t Type, body []byte) (uint32, error) {
	r := wire.NewReader(body, 0)
	id := r.U4("heap id")
	r.End("end of body")
	if err := r.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", t.name(), err)
	}
	return id, nil
}

// DecodeHeapStart decodes an HPST body.
func DecodeHeapStart(body []byte) (*HeapStart, error) {
	id, err := decodeHeapID(TypeHPST, body)
	if err != nil {
		return nil, err
	}
	return &HeapStart{HeapID: id}, nil
}

// DecodeHeapEnd decodes an HPEN body.
func DecodeHeapEnd(body []byte) (*HeapEnd, error) {
	id, err := decodeHeapID(TypeHPEN, body)
	if err != nil {
		return nil, err
	}
	return &HeapEnd{HeapID: id}, nil
}

// DecodeNativeHeapStart decodes an NHST body.
func DecodeNativeHeapStart(body []byte) (*NativeHeapStart, error) {
	id, err := decodeHeapID(TypeNHST, body)
	if err != nil {
		return nil, err
	}
	return &NativeHeapStart{HeapID: id}, nil
}

// DecodeNativeHeapEnd decodes an NHEN body.
func DecodeNativeHeapEnd(body []byte) (*NativeHeapEnd, error) {
	id, err := decodeHeapID(TypeNHEN, body)
	if err != nil {
		return nil, err
	}
	return &NativeHeapEnd{HeapID: id}, nil
}

// HeapDumpRequest is the HPDU request: write an HPROF file on the device
// (spec/ddm-chunks.md §7.6).
type HeapDumpRequest struct {
	FileName string // e.g. "/sdcard/com.example.hprof"
}

// ChunkType returns TypeHPDU.
func (*HeapDumpRequest) ChunkType() Type { return TypeHPDU }

// AppendBody appends the DDM string file name.
func (m *HeapDumpRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.DDMString(m.FileName)
	return w.B
}

// DecodeHeapDumpRequest decodes an HPDU request.
func DecodeHeapDumpRequest(body []byte) (*HeapDumpRequest, error) {
	r := wire.NewReader(body, 0)
	m := &HeapDumpRequest{FileName: r.DDMString("file name")}
	return finish(TypeHPDU, m, r)
}

// HeapDumpResult is the HPDU reply: u1 result, 0 = written, 0xFF = failed.
type HeapDumpResult struct {
	Result uint8
}

// OK reports whether the VM wrote the file.
func (m *HeapDumpResult) OK() bool { return m.Result == 0 }

// ChunkType returns TypeHPDU.
func (*HeapDumpResult) ChunkType() Type { return TypeHPDU }

// AppendBody appends the result byte.
func (m *HeapDumpResult) AppendBody(b []byte) []byte { return append(b, m.Result) }

// DecodeHeapDumpResult decodes an HPDU reply.
func DecodeHeapDumpResult(body []byte) (*HeapDumpResult, error) {
	r := wire.NewReader(body, 0)
	m := &HeapDumpResult{Result: r.U1("result")}
	return finish(TypeHPDU, m, r)
}

// HeapDumpStreamRequest is the HPDS request (empty). The VM answers with an
// unsolicited HPDS chunk holding the HPROF file, then an empty reply.
type HeapDumpStreamRequest struct{}

// ChunkType returns TypeHPDS.
func (*HeapDumpStreamRequest) ChunkType() Type { return TypeHPDS }

// AppendBody appends nothing.
func (*HeapDumpStreamRequest) AppendBody(b []byte) []byte { return b }

// DecodeHeapDumpStreamRequest decodes an HPDS request (empty body).
func DecodeHeapDumpStreamRequest(body []byte) (*HeapDumpStreamRequest, error) {
	return decodeEmpty[HeapDumpStreamRequest](TypeHPDS, body)
}

// HeapDumpData is the unsolicited HPDS chunk: a complete Android HPROF file
// ("JAVA PROFILE 1.0.3"). HPROF aliases the chunk body.
type HeapDumpData struct {
	HPROF []byte
}

// ChunkType returns TypeHPDS.
func (*HeapDumpData) ChunkType() Type { return TypeHPDS }

// AppendBody appends the HPROF bytes.
func (m *HeapDumpData) AppendBody(b []byte) []byte { return append(b, m.HPROF...) }

// DecodeHeapDumpData wraps an HPDS body without copying it.
func DecodeHeapDumpData(body []byte) (*HeapDumpData, error) {
	return &HeapDumpData{HPROF: rawData(body)}, nil
}
