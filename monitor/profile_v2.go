package monitor

import (
	"context"
	"errors"

	"github.com/ddmtui/ddmtui/ddm"
)

// TraceFormatV2API is the first Android API level whose ART writes method
// traces in its format V2 when asked (ddm.TraceFormatV2): Android 15. ART's
// sources of late 2023 (Android 14) have no format field in the trace
// flags; those of 2024 do.
const TraceFormatV2API = 35

// startFileTraceV2 asks a VM on a device at TraceFormatV2API or later for a
// method trace in format V2. ART writes V2 only to files, so this is MPRS
// (to deviceTracePath, read back by StopProfiling) with ddm.TraceFormatV2 in
// its flags. It reports whether tracing started. A VM that answers FAIL is
// left to the format V1 request (started false, no error); an ART that
// ignores the flag writes a V1 file, which reads the same way.
func (s *Session) startFileTraceV2(ctx context.Context, bufferSize uint32) (started bool, err error) {
	vm, ok := s.store.VM(s.key)
	if !ok || vm.API < TraceFormatV2API || s.shell == nil || !s.hasFeature(ddm.FeatureMethodTrace) {
		return false, nil
	}
	_, err = s.request(ctx, &ddm.MethodTraceStartRequest{BufferSize: bufferSize, Flags: ddm.TraceFormatV2, FileName: s.deviceTracePath()})
	if err != nil && !isSoftTimeout(ctx, err) {
		var fail *ddm.FailError
		if ctx.Err() == nil && errors.As(err, &fail) {
			s.log.Info("format V2 method trace refused; asking for format V1", "error", err)
			return false, nil
		}
		return false, err
	}
	s.mu.Lock()
	s.traceFile = true
	s.mu.Unlock()
	return true, nil
}
