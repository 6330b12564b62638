package tui

import (
	"context"
	"errors"
	"io"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/monitor"
)

// Controller is what the dashboard asks of VMs: the requests for one VM,
// by its key. The engine implements it (EngineController); a replay answers
// with Unavailable; tests use a fake. VM never returns nil.
type Controller interface {
	VM(key string) VMControl
}

// VMControl is what the dashboard asks of one VM. *monitor.Session
// implements it. Calls are made off the UI goroutine.
type VMControl interface {
	GC(ctx context.Context) error
	SetSegmentOptions(ctx context.Context, o monitor.SegmentOptions) error
	Stack(ctx context.Context, thread uint64) ([]ddm.StackFrame, error)
	StartProfiling(ctx context.Context, o monitor.ProfileOptions) error
	// StopProfilingTo stops profiling and writes the trace file to w as it
	// arrives; it returns the bytes written.
	StopProfilingTo(ctx context.Context, sampling bool, w io.Writer) (int64, error)
	Exit(ctx context.Context, status int32) error
	ThreadDump(ctx context.Context) ([]byte, error)
	AllocTracking(ctx context.Context) (bool, error)
	SetAllocTracking(ctx context.Context, on bool) error
	Allocations(ctx context.Context) (*ddm.Allocations, error)
	// HeapDumpTo writes the VM's HPROF dump (Android's variant) to w as it
	// arrives, through the same fallbacks as `ddmtui hprof` (monitor's
	// HeapDumpTo), and returns the bytes written.
	HeapDumpTo(ctx context.Context, w io.Writer, progress func(received uint64)) (int64, error)
	// RecordSamples samples the process's CPU with simpleperf on its
	// device and writes report-sample's stream to w (monitor's).
	RecordSamples(ctx context.Context, o monitor.SampleOptions, w io.Writer) (int64, error)
	// HeapGraphTo writes the VM's Java heap as a Perfetto heap graph (the
	// device's perfetto: profileable apps too, Android 11+) to w as it is
	// pulled, and returns the bytes written.
	HeapGraphTo(ctx context.Context, w io.Writer, progress func(received uint64)) (int64, error)
}

var _ VMControl = (*monitor.Session)(nil)

// EngineController adapts a monitor.Engine: a VM's requests go to its
// session.
type EngineController struct{ Engine *monitor.Engine }

var errNoSession = errors.New("VM is gone")

// VM returns the session of the VM with key, or Unavailable(errNoSession)
// when it has none (the VM is gone).
func (c EngineController) VM(key string) VMControl {
	if s := c.Engine.Session(key); s != nil {
		return s
	}
	return Unavailable(errNoSession)
}

// Unavailable is a VMControl that refuses every request with err: a VM
// that is gone, or one that is not live (a replay).
func Unavailable(err error) VMControl { return unavailable{err} }

type unavailable struct{ err error }

func (u unavailable) GC(context.Context) error                                        { return u.err }
func (u unavailable) SetSegmentOptions(context.Context, monitor.SegmentOptions) error { return u.err }
func (u unavailable) Stack(context.Context, uint64) ([]ddm.StackFrame, error)         { return nil, u.err }
func (u unavailable) StartProfiling(context.Context, monitor.ProfileOptions) error {
	return u.err
}
func (u unavailable) StopProfilingTo(context.Context, bool, io.Writer) (int64, error) {
	return 0, u.err
}
func (u unavailable) Exit(context.Context, int32) error                     { return u.err }
func (u unavailable) ThreadDump(context.Context) ([]byte, error)            { return nil, u.err }
func (u unavailable) AllocTracking(context.Context) (bool, error)           { return false, u.err }
func (u unavailable) SetAllocTracking(context.Context, bool) error          { return u.err }
func (u unavailable) Allocations(context.Context) (*ddm.Allocations, error) { return nil, u.err }
func (u unavailable) HeapDumpTo(context.Context, io.Writer, func(uint64)) (int64, error) {
	return 0, u.err
}
func (u unavailable) RecordSamples(context.Context, monitor.SampleOptions, io.Writer) (int64, error) {
	return 0, u.err
}
func (u unavailable) HeapGraphTo(context.Context, io.Writer, func(uint64)) (int64, error) {
	return 0, u.err
}
