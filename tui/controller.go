package tui

import (
	"context"
	"errors"
	"io"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/monitor"
)

// Controller is what the dashboard asks of VMs. The engine implements it;
// tests use a fake. Calls are made off the UI goroutine.
type Controller interface {
	GC(ctx context.Context, key string) error
	SetSegments(ctx context.Context, key string, o monitor.SegmentOptions) error
	Stack(ctx context.Context, key string, thread uint64) ([]ddm.StackFrame, error)
	StartProfiling(ctx context.Context, key string, o monitor.ProfileOptions) error
	// StopProfilingTo stops profiling and writes the trace file to w as it
	// arrives; it returns the bytes written.
	StopProfilingTo(ctx context.Context, key string, sampling bool, w io.Writer) (int64, error)
	Exit(ctx context.Context, key string, status int32) error
	ThreadDump(ctx context.Context, key string) ([]byte, error)
	AllocTracking(ctx context.Context, key string) (bool, error)
	SetAllocTracking(ctx context.Context, key string, on bool) error
	Allocations(ctx context.Context, key string) (*ddm.Allocations, error)
	// HeapDumpTo writes the VM's HPROF dump (Android's variant) to w as it
	// arrives, through the same fallbacks as `ddmtui hprof` (monitor's
	// HeapDumpTo), and returns the bytes written.
	HeapDumpTo(ctx context.Context, key string, w io.Writer, progress func(received uint64)) (int64, error)
}

// EngineController adapts a monitor.Engine.
type EngineController struct{ Engine *monitor.Engine }

var errNoSession = errors.New("VM is gone")

// GC asks the VM for a garbage collection.
func (c EngineController) GC(ctx context.Context, key string) error {
	s := c.Engine.Session(key)
	if s == nil {
		return errNoSession
	}
	return s.GC(ctx)
}

// SetSegments asks for exactly the heap maps o names.
func (c EngineController) SetSegments(ctx context.Context, key string, o monitor.SegmentOptions) error {
	s := c.Engine.Session(key)
	if s == nil {
		return errNoSession
	}
	return s.SetSegmentOptions(ctx, o)
}

// Stack fetches one thread's stack.
func (c EngineController) Stack(ctx context.Context, key string, thread uint64) ([]ddm.StackFrame, error) {
	s := c.Engine.Session(key)
	if s == nil {
		return nil, errNoSession
	}
	return s.Stack(ctx, thread)
}

// StartProfiling starts streaming method profiling.
func (c EngineController) StartProfiling(ctx context.Context, key string, o monitor.ProfileOptions) error {
	s := c.Engine.Session(key)
	if s == nil {
		return errNoSession
	}
	return s.StartProfiling(ctx, o)
}

// StopProfilingTo stops profiling and streams the trace file to w.
func (c EngineController) StopProfilingTo(ctx context.Context, key string, sampling bool, w io.Writer) (int64, error) {
	s := c.Engine.Session(key)
	if s == nil {
		return 0, errNoSession
	}
	return s.StopProfilingTo(ctx, sampling, w)
}

// Exit asks the VM to halt (EXIT).
func (c EngineController) Exit(ctx context.Context, key string, status int32) error {
	s := c.Engine.Session(key)
	if s == nil {
		return errNoSession
	}
	return s.Exit(ctx, status)
}

// ThreadDump asks the VM's device for a SIGQUIT dump.
func (c EngineController) ThreadDump(ctx context.Context, key string) ([]byte, error) {
	s := c.Engine.Session(key)
	if s == nil {
		return nil, errNoSession
	}
	return s.ThreadDump(ctx)
}

// AllocTracking asks whether the allocation tracker runs (REAQ).
func (c EngineController) AllocTracking(ctx context.Context, key string) (bool, error) {
	s := c.Engine.Session(key)
	if s == nil {
		return false, errNoSession
	}
	return s.AllocTracking(ctx)
}

// SetAllocTracking turns the allocation tracker on or off (REAE).
func (c EngineController) SetAllocTracking(ctx context.Context, key string, on bool) error {
	s := c.Engine.Session(key)
	if s == nil {
		return errNoSession
	}
	return s.SetAllocTracking(ctx, on)
}

// Allocations fetches the recent allocations (REAL).
func (c EngineController) Allocations(ctx context.Context, key string) (*ddm.Allocations, error) {
	s := c.Engine.Session(key)
	if s == nil {
		return nil, errNoSession
	}
	return s.Allocations(ctx)
}

// HeapDumpTo streams an HPROF dump (Android's variant) of the VM to w.
func (c EngineController) HeapDumpTo(ctx context.Context, key string, w io.Writer, progress func(uint64)) (int64, error) {
	s := c.Engine.Session(key)
	if s == nil {
		return 0, errNoSession
	}
	return s.HeapDumpTo(ctx, w, progress)
}
