package monitor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/devshell"
)

// ErrNoStreaming is returned by StartProfiling for a VM that can only write
// traces to a file on the device (no method-trace-profiling-streaming).
var ErrNoStreaming = errors.New("the VM cannot stream method traces (no method-trace-profiling-streaming feature)")

// ProfileOptions choose how a VM is profiled.
type ProfileOptions struct {
	// Sampling, when non-zero, uses the sampling profiler (SPSS) with this
	// interval instead of instrumented method tracing (MPSS).
	Sampling time.Duration
	// BufferSize is the VM's trace buffer (default 8 MiB, as ddmlib).
	BufferSize uint32
}

// TraceFormatV2API is the first Android API level whose ART writes method
// traces in its format V2 when asked (ddm.TraceFormatV2): Android 15. ART's
// sources of late 2023 (Android 14) have no format field in the trace
// flags; those of 2024 do.
const TraceFormatV2API = 35

// profiler runs a VM's method profiling (spec/ddm-chunks.md §8): streamed
// (MPSS/MPSE, SPSS/SPSE) or into a file on the device (MPRS/MPRE, pulled
// when it stops).
type profiler struct {
	conn    *vmConn
	xfer    *transfers
	entry   *vmEntry
	dev     devshell.Shell // nil: the VM is not on a device
	maxFile int64          // SessionOptions.MaxDeviceFile
	log     *slog.Logger

	mu        sync.Mutex
	traceFile bool // the running trace goes to a device file (MPRS)
}

// tracePath is where MPRS makes the VM write its trace, as ddmlib does
// (devshell.TracePath of the app's name).
func (p *profiler) tracePath() string {
	vm, _ := p.entry.vm()
	return devshell.TracePath(vm.App)
}

func (p *profiler) setTraceFile(on bool) (was bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	was, p.traceFile = p.traceFile, on
	return was
}

// start is Session.StartProfiling.
func (p *profiler) start(ctx context.Context, o ProfileOptions) error {
	if err := p.conn.readyDDM(ctx); err != nil {
		return err
	}
	if o.BufferSize == 0 {
		o.BufferSize = 8 << 20
	}
	if o.Sampling == 0 {
		if started, err := p.startFileV2(ctx, o.BufferSize); started || err != nil {
			return err
		}
	}
	var req ddm.Message = &ddm.MethodTraceStreamStartRequest{BufferSize: o.BufferSize}
	switch {
	case o.Sampling > 0:
		if !p.entry.hasFeature("method-sample-profiling") {
			return errors.New("the VM has no sampling profiler (no method-sample-profiling feature)")
		}
		req = &ddm.SamplingStartRequest{BufferSize: o.BufferSize, IntervalMicros: uint32(o.Sampling.Microseconds())}
	case !p.entry.hasFeature("method-trace-profiling-streaming"):
		if p.dev == nil || !p.entry.hasFeature("method-trace-profiling") {
			return ErrNoStreaming
		}
		req = &ddm.MethodTraceStartRequest{BufferSize: o.BufferSize, FileName: p.tracePath()}
		p.setTraceFile(true)
	}
	_, err := p.conn.request(ctx, req)
	if isSoftTimeout(ctx, err) {
		err = nil // modern ART does not answer; MPRQ would tell, but it is not answered either
	}
	return err
}

// startFileV2 asks a VM on a device at TraceFormatV2API or later for a
// method trace in format V2. ART writes V2 only to files, so this is MPRS
// (to tracePath, read back by stop) with ddm.TraceFormatV2 in its flags.
// It reports whether tracing started. A VM that answers FAIL is left to the
// format V1 request (started false, no error); an ART that ignores the
// flag writes a V1 file, which reads the same way.
func (p *profiler) startFileV2(ctx context.Context, bufferSize uint32) (started bool, err error) {
	vm, ok := p.entry.vm()
	if !ok || vm.API < TraceFormatV2API || p.dev == nil || !p.entry.hasFeature(ddm.FeatureMethodTrace) {
		return false, nil
	}
	_, err = p.conn.request(ctx, &ddm.MethodTraceStartRequest{BufferSize: bufferSize, Flags: ddm.TraceFormatV2, FileName: p.tracePath()})
	if err != nil && !isSoftTimeout(ctx, err) {
		var fail *ddm.FailError
		if ctx.Err() == nil && errors.As(err, &fail) {
			p.log.Info("format V2 method trace refused; asking for format V1", "error", err)
			return false, nil
		}
		return false, err
	}
	p.setTraceFile(true)
	return true, nil
}

// stop is Session.StopProfilingTo.
func (p *profiler) stop(ctx context.Context, sampling bool, w io.Writer) (int64, error) {
	if err := p.conn.readyDDM(ctx); err != nil {
		return 0, err
	}
	if p.setTraceFile(false) {
		return p.stopFile(ctx, w)
	}
	var req ddm.Message = &ddm.MethodTraceStreamStopRequest{}
	if sampling {
		req = &ddm.SamplingStopRequest{}
	}
	return p.xfer.collect(ctx, ddm.TypeMPSE, req, "method trace", w, nil)
}

// stopFile ends a file trace (MPRE) and copies the file from the device to
// w (sync: RECV, or cat where the device refuses sync:).
func (p *profiler) stopFile(ctx context.Context, w io.Writer) (int64, error) {
	m, err := p.conn.request(ctx, &ddm.MethodTraceStopRequest{})
	if err != nil && !isSoftTimeout(ctx, err) {
		return 0, err
	}
	if r, ok := m.(*ddm.MethodTraceResult); ok && r.Result != 0 {
		return 0, errors.New("the VM could not write the trace file")
	}
	limit := p.maxFile
	if _, held := w.(*heldBytes); held {
		limit = min(limit, maxHeldDeviceFile)
	}
	return p.dev.PullTo(ctx, p.tracePath(), w, limit)
}

// StartProfiling starts method profiling (spec/ddm-chunks.md §8): on a
// device whose ART writes format V2 (TraceFormatV2API), into a V2 file on
// the device; else streamed (MPSS, or SPSS when sampling) when the VM can,
// otherwise into a file on the device (MPRS) when the VM is on an adb
// device. The VM answers with an empty reply, a FAIL, or (modern ART)
// nothing.
func (s *Session) StartProfiling(ctx context.Context, o ProfileOptions) error {
	return s.prof.start(ctx, o)
}

// StopProfiling stops streaming profiling and returns the trace file the VM
// sends (an unsolicited MPSE chunk whose body is the whole .trace file:
// key text followed by the binary data). It waits until ctx ends for the
// data, which can be large.
func (s *Session) StopProfiling(ctx context.Context, sampling bool) ([]byte, error) {
	var h heldBytes // read whole, not diverted (transfers.collect)
	if _, err := s.prof.stop(ctx, sampling, &h); err != nil {
		return nil, err
	}
	return h.b, nil
}

// StopProfilingTo is StopProfiling writing the trace to w as it arrives:
// an MPSE chunk that comes as one large packet in pieces of 64 KiB
// (hpdsstream.go), a trace written on the device through sync: RECV
// (bounded by MaxDeviceFile). It returns the bytes written.
func (s *Session) StopProfilingTo(ctx context.Context, sampling bool, w io.Writer) (int64, error) {
	return s.prof.stop(ctx, sampling, w)
}
