package tui

import (
	"context"
	"errors"
	"io"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/monitor"
)

// keyedFake is the shape the tests' fake controllers take: every request
// with the VM's key, so one fake records the requests of all VMs and a
// wrapper overrides one request (slowController, failingSegments, …).
type keyedFake interface {
	GC(ctx context.Context, key string) error
	SetSegments(ctx context.Context, key string, o monitor.SegmentOptions) error
	Stack(ctx context.Context, key string, thread uint64) ([]ddm.StackFrame, error)
	StartProfiling(ctx context.Context, key string, o monitor.ProfileOptions) error
	StopProfilingTo(ctx context.Context, key string, sampling bool, w io.Writer) (int64, error)
	Exit(ctx context.Context, key string, status int32) error
	ThreadDump(ctx context.Context, key string) ([]byte, error)
	AllocTracking(ctx context.Context, key string) (bool, error)
	SetAllocTracking(ctx context.Context, key string, on bool) error
	Allocations(ctx context.Context, key string) (*ddm.Allocations, error)
	HeapDumpTo(ctx context.Context, key string, w io.Writer, progress func(uint64)) (int64, error)
	HeapGraphTo(ctx context.Context, key string, w io.Writer, progress func(uint64)) (int64, error)
}

// perKey is a keyedFake's VMControl for one VM.
type perKey struct {
	f   keyedFake
	key string
}

func (p perKey) GC(ctx context.Context) error { return p.f.GC(ctx, p.key) }
func (p perKey) SetSegmentOptions(ctx context.Context, o monitor.SegmentOptions) error {
	return p.f.SetSegments(ctx, p.key, o)
}
func (p perKey) Stack(ctx context.Context, tid uint64) ([]ddm.StackFrame, error) {
	return p.f.Stack(ctx, p.key, tid)
}
func (p perKey) StartProfiling(ctx context.Context, o monitor.ProfileOptions) error {
	return p.f.StartProfiling(ctx, p.key, o)
}
func (p perKey) StopProfilingTo(ctx context.Context, sampling bool, w io.Writer) (int64, error) {
	return p.f.StopProfilingTo(ctx, p.key, sampling, w)
}
func (p perKey) Exit(ctx context.Context, status int32) error { return p.f.Exit(ctx, p.key, status) }
func (p perKey) ThreadDump(ctx context.Context) ([]byte, error) {
	return p.f.ThreadDump(ctx, p.key)
}
func (p perKey) AllocTracking(ctx context.Context) (bool, error) {
	return p.f.AllocTracking(ctx, p.key)
}
func (p perKey) SetAllocTracking(ctx context.Context, on bool) error {
	return p.f.SetAllocTracking(ctx, p.key, on)
}
func (p perKey) Allocations(ctx context.Context) (*ddm.Allocations, error) {
	return p.f.Allocations(ctx, p.key)
}

// sampler is a keyedFake that records samples too; one that is not
// refuses.
type sampler interface {
	RecordSamples(ctx context.Context, key string, o monitor.SampleOptions, w io.Writer) (int64, error)
}

func (p perKey) RecordSamples(ctx context.Context, o monitor.SampleOptions, w io.Writer) (int64, error) {
	if s, ok := p.f.(sampler); ok {
		return s.RecordSamples(ctx, p.key, o, w)
	}
	return 0, errors.New("this fake does not sample")
}

func (p perKey) HeapDumpTo(ctx context.Context, w io.Writer, progress func(uint64)) (int64, error) {
	return p.f.HeapDumpTo(ctx, p.key, w, progress)
}
func (p perKey) HeapGraphTo(ctx context.Context, w io.Writer, progress func(uint64)) (int64, error) {
	return p.f.HeapGraphTo(ctx, p.key, w, progress)
}

// Each fake's VM method hands its own requests (with its overrides) to
// the dashboard. A fake that embeds another and overrides a request must
// declare its own VM: the promoted one would hand the embedded fake's.
func (f *fakeController) VM(key string) VMControl   { return perKey{f, key} }
func (c *slowController) VM(key string) VMControl   { return perKey{c, key} }
func (c *failingSegments) VM(key string) VMControl  { return perKey{c, key} }
func (c *orderController) VM(key string) VMControl  { return perKey{c, key} }
func (c *noLiveController) VM(key string) VMControl { return perKey{c, key} }
func (c longStackErr) VM(key string) VMControl      { return perKey{c, key} }
