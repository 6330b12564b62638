package ddm

import "github.com/ddmtui/ddmtui/internal/wire"

// TraceCountAllocs is bit 0 of the profiling flags: add allocation counts
// to the trace key (spec/ddm-chunks.md §8). ddmlib always sends 0.
const TraceCountAllocs = 1

// TraceFormatV2 in the profiling flags asks ART for its method-trace format
// V2 (trace versions 4 and 5): the format field is bits 1–2 of the flags
// (art/runtime/trace.h: kTraceFormatVersionFlagMask 0b110, shift 1,
// kFormatV2 = 1), as ART's own tests set TRACE_OUTPUT_V2_FLAG = 0b010.
// ART writes V2 only to files (MPRS), never over DDM (MPSS/MPSE); earlier
// ART ignores the bit and writes format V1.
const TraceFormatV2 = 1 << 1

// MethodTraceStartRequest is MPRS: start method tracing into a file on the
// device; the reply is empty or FAIL (spec/ddm-chunks.md §8).
type MethodTraceStartRequest struct {
	BufferSize uint32 // bytes; ddmlib sends 8 MiB by default
	Flags      uint32
	FileName   string // e.g. "/sdcard/com.example.trace"
}

// ChunkType returns TypeMPRS.
func (*MethodTraceStartRequest) ChunkType() Type { return TypeMPRS }

// AppendBody appends u4 buffer size, u4 flags, DDM string file name.
func (m *MethodTraceStartRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.BufferSize)
	w.U4(m.Flags)
	w.DDMString(m.FileName)
	return w.B
}

// DecodeMethodTraceStartRequest decodes an MPRS request.
func DecodeMethodTraceStartRequest(body []byte) (*MethodTraceStartRequest, error) {
	r := wire.NewReader(body, 0)
	m := &MethodTraceStartRequest{BufferSize: r.U4("buffer size"), Flags: r.U4("flags"), FileName: r.DDMString("file name")}
	return finish(TypeMPRS, m, r)
}

// MethodTraceStopRequest is the MPRE request (empty).
type MethodTraceStopRequest struct{}

// ChunkType returns TypeMPRE.
func (*MethodTraceStopRequest) ChunkType() Type { return TypeMPRE }

// AppendBody appends nothing.
func (*MethodTraceStopRequest) AppendBody(b []byte) []byte { return b }

// DecodeMethodTraceStopRequest decodes an MPRE request (empty body).
func DecodeMethodTraceStopRequest(body []byte) (*MethodTraceStopRequest, error) {
	return decodeEmpty[MethodTraceStopRequest](TypeMPRE, body)
}

// MethodTraceResult is the MPRE reply: u1 0 = trace written, 1 = failed.
type MethodTraceResult struct {
	Result uint8
}

// OK reports whether the trace file was written.
func (m *MethodTraceResult) OK() bool { return m.Result == 0 }

// ChunkType returns TypeMPRE.
func (*MethodTraceResult) ChunkType() Type { return TypeMPRE }

// AppendBody appends the result byte.
func (m *MethodTraceResult) AppendBody(b []byte) []byte { return append(b, m.Result) }

// DecodeMethodTraceResult decodes an MPRE reply.
func DecodeMethodTraceResult(body []byte) (*MethodTraceResult, error) {
	r := wire.NewReader(body, 0)
	m := &MethodTraceResult{Result: r.U1("result")}
	return finish(TypeMPRE, m, r)
}

// MethodTraceStreamStartRequest is MPSS: start method tracing with the
// trace returned over the connection.
type MethodTraceStreamStartRequest struct {
	BufferSize uint32
	Flags      uint32
}

// ChunkType returns TypeMPSS.
func (*MethodTraceStreamStartRequest) ChunkType() Type { return TypeMPSS }

// AppendBody appends u4 buffer size, u4 flags.
func (m *MethodTraceStreamStartRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.BufferSize)
	w.U4(m.Flags)
	return w.B
}

// DecodeMethodTraceStreamStartRequest decodes an MPSS request.
func DecodeMethodTraceStreamStartRequest(body []byte) (*MethodTraceStreamStartRequest, error) {
	r := wire.NewReader(body, 0)
	m := &MethodTraceStreamStartRequest{BufferSize: r.U4("buffer size"), Flags: r.U4("flags")}
	return finish(TypeMPSS, m, r)
}

// MethodTraceStreamStopRequest is the MPSE request (empty). The VM answers
// with an unsolicited MPSE chunk holding the trace, then an empty reply.
type MethodTraceStreamStopRequest struct{}

// ChunkType returns TypeMPSE.
func (*MethodTraceStreamStopRequest) ChunkType() Type { return TypeMPSE }

// AppendBody appends nothing.
func (*MethodTraceStreamStopRequest) AppendBody(b []byte) []byte { return b }

// DecodeMethodTraceStreamStopRequest decodes an MPSE request (empty body).
func DecodeMethodTraceStreamStopRequest(body []byte) (*MethodTraceStreamStopRequest, error) {
	return decodeEmpty[MethodTraceStreamStopRequest](TypeMPSE, body)
}

// MethodTraceData is the unsolicited MPSE chunk that follows MPSE or SPSE:
// a complete dmtrace file, key text followed by the binary data
// (spec/dmtrace.md). Trace aliases the chunk body.
type MethodTraceData struct {
	Trace []byte
}

// ChunkType returns TypeMPSE.
func (*MethodTraceData) ChunkType() Type { return TypeMPSE }

// AppendBody appends the trace file.
func (m *MethodTraceData) AppendBody(b []byte) []byte { return append(b, m.Trace...) }

// DecodeMethodTraceData wraps an MPSE data body without copying it.
func DecodeMethodTraceData(body []byte) (*MethodTraceData, error) {
	return &MethodTraceData{Trace: rawData(body)}, nil
}

// SamplingStartRequest is SPSS: start the sampling profiler.
type SamplingStartRequest struct {
	BufferSize     uint32
	Flags          uint32
	IntervalMicros uint32 // sampling interval in µs
}

// ChunkType returns TypeSPSS.
func (*SamplingStartRequest) ChunkType() Type { return TypeSPSS }

// AppendBody appends u4 buffer size, u4 flags, u4 interval.
func (m *SamplingStartRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.BufferSize)
	w.U4(m.Flags)
	w.U4(m.IntervalMicros)
	return w.B
}

// DecodeSamplingStartRequest decodes an SPSS request.
func DecodeSamplingStartRequest(body []byte) (*SamplingStartRequest, error) {
	r := wire.NewReader(body, 0)
	m := &SamplingStartRequest{BufferSize: r.U4("buffer size"), Flags: r.U4("flags"), IntervalMicros: r.U4("interval")}
	return finish(TypeSPSS, m, r)
}

// SamplingStopRequest is the SPSE request (empty); the data arrives as an
// MPSE chunk (MethodTraceData).
type SamplingStopRequest struct{}

// ChunkType returns TypeSPSE.
func (*SamplingStopRequest) ChunkType() Type { return TypeSPSE }

// AppendBody appends nothing.
func (*SamplingStopRequest) AppendBody(b []byte) []byte { return b }

// DecodeSamplingStopRequest decodes an SPSE request (empty body).
func DecodeSamplingStopRequest(body []byte) (*SamplingStopRequest, error) {
	return decodeEmpty[SamplingStopRequest](TypeSPSE, body)
}

// ProfilingStatusRequest is the MPRQ request (empty).
type ProfilingStatusRequest struct{}

// ChunkType returns TypeMPRQ.
func (*ProfilingStatusRequest) ChunkType() Type { return TypeMPRQ }

// AppendBody appends nothing.
func (*ProfilingStatusRequest) AppendBody(b []byte) []byte { return b }

// DecodeProfilingStatusRequest decodes an MPRQ request (empty body).
func DecodeProfilingStatusRequest(body []byte) (*ProfilingStatusRequest, error) {
	return decodeEmpty[ProfilingStatusRequest](TypeMPRQ, body)
}

// MPRQ reply values.
const (
	ProfilingInactive    = 0
	ProfilingMethodTrace = 1
	ProfilingSampling    = 2
)

// ProfilingStatus is the MPRQ reply: u1 mode.
type ProfilingStatus struct {
	Mode uint8 // ProfilingInactive, ProfilingMethodTrace or ProfilingSampling
}

// ChunkType returns TypeMPRQ.
func (*ProfilingStatus) ChunkType() Type { return TypeMPRQ }

// AppendBody appends the mode byte.
func (m *ProfilingStatus) AppendBody(b []byte) []byte { return append(b, m.Mode) }

// DecodeProfilingStatus decodes an MPRQ reply.
func DecodeProfilingStatus(body []byte) (*ProfilingStatus, error) {
	r := wire.NewReader(body, 0)
	m := &ProfilingStatus{Mode: r.U1("mode")}
	return finish(TypeMPRQ, m, r)
}
