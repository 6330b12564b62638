package ddm

import (
	"errors"
	"fmt"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// ErrUnknownChunk is wrapped by DecodeFromVM and DecodeFromMonitor for a
// chunk type that has no decoder in that direction. Callers log such chunks
// and ignore them (spec/ddm-chunks.md §2: unknown types are not an error).
var ErrUnknownChunk = errors.New("no decoder for this chunk type")

type decoder func(body []byte) (Message, error)

// as adapts a typed DecodeXxx function for a decoder table.
func as[T any, PT interface {
	*T
	Message
}](decode func([]byte) (PT, error)) decoder {
	return func(body []byte) (Message, error) {
		m, err := decode(body)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
}

// fromVM decodes replies and unsolicited chunks, the chunks a monitor
// receives (spec/ddm-chunks.md §4, direction V→M).
var fromVM = map[Type]decoder{
	TypeHELO: as(DecodeHello),
	TypeFEAT: as(DecodeFeatures),
	TypeAPNM: as(DecodeAppName),
	TypeWAIT: as(DecodeWait),
	TypeFAIL: as(DecodeFail),
	TypeTEST: as(DecodeTestChunk),
	TypeTHCR: as(DecodeThreadCreated),
	TypeTHDE: as(DecodeThreadDied),
	TypeTHNM: as(DecodeThreadRenamed),
	TypeTHST: as(DecodeThreadStatusTable),
	TypeSTKL: as(DecodeStackTrace),
	TypeHPIF: as(DecodeHeapInfo),
	TypeHPST: as(DecodeHeapStart),
	TypeHPEN: as(DecodeHeapEnd),
	TypeNHST: as(DecodeNativeHeapStart),
	TypeNHEN: as(DecodeNativeHeapEnd),
	TypeHPSG: segmentDecoder(TypeHPSG),
	TypeHPSO: segmentDecoder(TypeHPSO),
	TypeNHSG: segmentDecoder(TypeNHSG),
	TypeHPDU: as(DecodeHeapDumpResult),
	TypeHPDS: as(DecodeHeapDumpData),
	TypeREAQ: as(DecodeAllocTrackerStatus),
	TypeREAL: as(DecodeAllocations),
	TypeNHGT: as(DecodeNativeHeap),
	TypeMPRE: as(DecodeMethodTraceResult),
	TypeMPSE: as(DecodeMethodTraceData),
	TypeMPRQ: as(DecodeProfilingStatus),
	TypeVULW: as(DecodeViewWindows),
	TypeVURT: as(DecodeViewRootData),
	TypeVUOP: as(DecodeViewOpData),
}

// fromMonitor decodes requests, the chunks a VM (the simulator) receives
// (spec/ddm-chunks.md §4, direction M→V).
var fromMonitor = map[Type]decoder{
	TypeHELO: as(DecodeHelloRequest),
	TypeFEAT: as(DecodeFeaturesRequest),
	TypeEXIT: as(DecodeExitRequest),
	TypeTHEN: as(DecodeThreadNotifyRequest),
	TypeTHST: as(DecodeThreadStatusRequest),
	TypeSTKL: as(DecodeStackTraceRequest),
	TypeHPIF: as(DecodeHeapInfoRequest),
	TypeHPGC: as(DecodeGCRequest),
	TypeHPSG: segmentRequestDecoder(TypeHPSG),
	TypeNHSG: segmentRequestDecoder(TypeNHSG),
	TypeHPDU: as(DecodeHeapDumpRequest),
	TypeHPDS: as(DecodeHeapDumpStreamRequest),
	TypeREAE: as(DecodeAllocTrackerEnableRequest),
	TypeREAQ: as(DecodeAllocTrackerStatusRequest),
	TypeREAL: as(DecodeAllocationsRequest),
	TypeNHGT: as(DecodeNativeHeapRequest),
	TypeMPRS: as(DecodeMethodTraceStartRequest),
	TypeMPRE: as(DecodeMethodTraceStopRequest),
	TypeMPSS: as(DecodeMethodTraceStreamStartRequest),
	TypeMPSE: as(DecodeMethodTraceStreamStopRequest),
	TypeSPSS: as(DecodeSamplingStartRequest),
	TypeSPSE: as(DecodeSamplingStopRequest),
	TypeMPRQ: as(DecodeProfilingStatusRequest),
	TypeVULW: as(DecodeViewWindowsRequest),
	TypeVURT: as(DecodeViewRootRequest),
	TypeVUOP: as(DecodeViewOpRequest),
	TypeVUGL: as(DecodeGLTracingRequest),
}

func segmentDecoder(t Type) decoder {
	return func(body []byte) (Message, error) {
		s, err := DecodeHeapSegment(t, body)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

func segmentRequestDecoder(t Type) decoder {
	return func(body []byte) (Message, error) {
		s, err := DecodeSegmentRequest(t, body)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// DecodeFromVM decodes a chunk a monitor received from a VM: a reply to one
// of its requests or an unsolicited chunk. A FAIL chunk decodes to
// *FailError, a Message that is also the error to report for the request.
// An unknown type yields an error wrapping ErrUnknownChunk.
func DecodeFromVM(c Chunk) (Message, error) {
	d, ok := fromVM[c.Type]
	if !ok {
		return nil, fmt.Errorf("ddm: %v from a VM: %w", c.Type, ErrUnknownChunk)
	}
	return d(c.Data)
}

// KnownFromVM reports whether DecodeFromVM has a decoder for chunks of
// type t.
func KnownFromVM(t Type) bool {
	_, ok := fromVM[t]
	return ok
}

// DecodeFromMonitor decodes a request chunk a VM received from a monitor.
// An unknown type yields an error wrapping ErrUnknownChunk.
func DecodeFromMonitor(c Chunk) (Message, error) {
	d, ok := fromMonitor[c.Type]
	if !ok {
		return nil, fmt.Errorf("ddm: %v from a monitor: %w", c.Type, ErrUnknownChunk)
	}
	return d(c.Data)
}

// finish requires r to be fully consumed and returns m, or the first error
// prefixed with the chunk type.
func finish[T any](t Type, m *T, r *wire.Reader) (*T, error) {
	r.End("end of body")
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", t.name(), err)
	}
	return m, nil
}

// decodeEmpty decodes the body of a request that carries no data.
func decodeEmpty[T any](t Type, body []byte) (*T, error) {
	return finish(t, new(T), wire.NewReader(body, 0))
}

// rawData returns body, or nil when it is empty, so that decoded values
// compare equal whatever the empty slice they came from.
func rawData(body []byte) []byte {
	if len(body) == 0 {
		return nil
	}
	return body
}

// readStrings reads u4 count then count DDM strings (FEAT, VULW).
func readStrings(r *wire.Reader, what string) []string {
	n := r.Count(uint64(r.U4(what+" count")), 4, what+" count")
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.DDMString(what)
	}
	return out
}

func appendStrings(b []byte, list []string) []byte {
	w := wire.Writer{B: b}
	w.U4(uint32(len(list)))
	for _, s := range list {
		w.DDMString(s)
	}
	return w.B
}
