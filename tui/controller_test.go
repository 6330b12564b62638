package tui

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/ddmtui/ddmtui/monitor"
)

// A VM the engine has no session for is refused with errNoSession, by
// every request; a replay's Unavailable refuses with its own error.
func TestUnavailableRefusesEveryRequest(t *testing.T) {
	ctx := context.Background()
	engine := monitor.NewEngine(monitor.NewStore(monitor.NewBus()), monitor.SessionOptions{})
	for name, tc := range map[string]struct {
		vm   VMControl
		want error
	}{
		"gone VM": {EngineController{Engine: engine}.VM("local:1"), errNoSession},
		"replay":  {Unavailable(monitor.ErrNoLiveVM), monitor.ErrNoLiveVM},
	} {
		v := tc.vm
		calls := map[string]func() error{
			"GC":                func() error { return v.GC(ctx) },
			"SetSegmentOptions": func() error { return v.SetSegmentOptions(ctx, monitor.SegmentOptions{}) },
			"Stack": func() error {
				f, err := v.Stack(ctx, 1)
				if f != nil {
					t.Errorf("%s: Stack gave frames", name)
				}
				return err
			},
			"StartProfiling": func() error { return v.StartProfiling(ctx, monitor.ProfileOptions{}) },
			"StopProfilingTo": func() error {
				n, err := v.StopProfilingTo(ctx, false, io.Discard)
				if n != 0 {
					t.Errorf("%s: StopProfilingTo wrote %d", name, n)
				}
				return err
			},
			"Exit":       func() error { return v.Exit(ctx, 1) },
			"ThreadDump": func() error { b, err := v.ThreadDump(ctx); return errIfData(b != nil, err) },
			"AllocTracking": func() error {
				on, err := v.AllocTracking(ctx)
				return errIfData(on, err)
			},
			"SetAllocTracking": func() error { return v.SetAllocTracking(ctx, true) },
			"Allocations":      func() error { a, err := v.Allocations(ctx); return errIfData(a != nil, err) },
			"HeapDumpTo": func() error {
				n, err := v.HeapDumpTo(ctx, io.Discard, nil)
				return errIfData(n != 0, err)
			},
		}
		for call, fn := range calls {
			if err := fn(); !errors.Is(err, tc.want) {
				t.Errorf("%s: %s = %v, want %v", name, call, err, tc.want)
			}
		}
	}
}

// errIfData turns a result that should be empty into an error.
func errIfData(data bool, err error) error {
	if data {
		return errors.New("a result with the refusal")
	}
	return err
}
