package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// slowController's requests block until their context ends, then take a
// little longer to return (as a VM connection does): work that is not
// owned by the dashboard is still running when Run returns.
type slowController struct {
	fakeController
	inflight atomic.Int32
	started  atomic.Int32
}

func (c *slowController) block(ctx context.Context, what string) error {
	c.record(what)
	c.inflight.Add(1)
	c.started.Add(1)
	defer c.inflight.Add(-1)
	<-ctx.Done()
	time.Sleep(150 * time.Millisecond)
	return ctx.Err()
}

func (c *slowController) GC(ctx context.Context, key string) error { return c.block(ctx, "gc "+key) }
func (c *slowController) SetSegments(ctx context.Context, key string, o monitor.SegmentOptions) error {
	return c.block(ctx, fmt.Sprintf("segments %s %v", key, o.Managed))
}
func (c *slowController) Stack(ctx context.Context, key string, tid uint64) ([]ddm.StackFrame, error) {
	return nil, c.block(ctx, "stack "+key)
}
func (c *slowController) StartProfiling(ctx context.Context, key string, _ monitor.ProfileOptions) error {
	return c.block(ctx, "profile start "+key)
}
func (c *slowController) ThreadDump(ctx context.Context, key string) ([]byte, error) {
	return nil, c.block(ctx, "dump "+key)
}
func (c *slowController) HeapDumpTo(ctx context.Context, key string, w io.Writer, _ func(uint64)) (int64, error) {
	w.Write([]byte("JAVA PROFILE 1.0.3\x00partial"))
	return 0, c.block(ctx, "hpds "+key)
}

// TestQuitWaitsForKeyJobs: quitting right after keys that start requests
// (segments, GC, thread dump, heap dump, trace, stack) returns only once
// every one of them ended, and leaves no goroutine (leakcheck).
func TestQuitWaitsForKeyJobs(t *testing.T) {
	ctrl := &slowController{}
	hs := startCfg(t, 120, 40, style.Palette{}, twoVMs, func(c *Config) { c.Controller = ctrl })
	hs.waitText("Binder:1234_1")
	hs.runes("gdHp")
	hs.key(tcell.KeyTab, 0)   // the threads
	hs.key(tcell.KeyEnter, 0) // a stack
	deadline := time.Now().Add(5 * time.Second)
	for ctrl.started.Load() < 6 { // segments, gc, dump, hpds, profile, stack
		if time.Now().After(deadline) {
			t.Fatalf("only %d requests started: %v", ctrl.started.Load(), ctrl.calls)
		}
		time.Sleep(5 * time.Millisecond)
	}
	hs.runes("q")
	var err error
	select {
	case err = <-hs.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the dashboard did not stop")
	}
	hs.done <- err // for the harness's cleanup
	if n := ctrl.inflight.Load(); n != 0 {
		t.Fatalf("Run returned with %d request(s) still running", n)
	}
}

// TestBusyKeysSaySo: a second heap dump or thread dump of the same VM
// while one runs is refused with a message, not started twice.
func TestBusyKeysSaySo(t *testing.T) {
	ctrl := &slowController{}
	hs := startCfg(t, 160, 40, style.Palette{}, twoVMs, func(c *Config) { c.Controller = ctrl })
	hs.waitText("Binder:1234_1")
	hs.runes("H")
	hs.waitFor("the heap dump", func(string) bool { return ctrl.called("hpds local:8000") })
	hs.runes("H")
	hs.waitText("busy: a heap dump of com.example.mail is under way")
	hs.runes("d")
	hs.waitFor("the thread dump", func(string) bool { return ctrl.called("dump local:8000") })
	hs.runes("d")
	hs.waitText("busy: a thread dump of com.example.mail is under way")
	ctrl.mu.Lock()
	n := 0
	for _, c := range ctrl.calls {
		if c == "hpds local:8000" || c == "dump local:8000" {
			n++
		}
	}
	ctrl.mu.Unlock()
	if n != 2 {
		t.Fatalf("%d dumps started, want 2 (one of each): %v", n, ctrl.calls)
	}
}

// failingSegments refuses the first n SetSegments calls.
type failingSegments struct {
	fakeController
	fails atomic.Int32
}

func (c *failingSegments) SetSegments(ctx context.Context, key string, o monitor.SegmentOptions) error {
	if c.fails.Add(-1) >= 0 {
		c.record("segments refused " + key)
		return errors.New("the session is not ready")
	}
	return c.fakeController.SetSegments(ctx, key, o)
}

// TestSegmentsErrorShownAndRetried: SetSegments' error reaches the status
// line (it used to be dropped), and the request is made again at the next
// change of the VM list, so the heap map is not lost for good.
func TestSegmentsErrorShownAndRetried(t *testing.T) {
	ctrl := &failingSegments{}
	ctrl.fails.Store(1)
	hs := startCfg(t, 160, 40, style.Palette{}, twoVMs, func(c *Config) { c.Controller = ctrl })
	hs.waitText("heap map of com.example.mail not requested: the session is not ready")
	if ctrl.called("segments local:8000 true") {
		t.Fatal("segments requested although refused")
	}
	hs.store.UpdateVM("local:8000", func(vm *monitor.VM) { vm.Debugger = monitor.DebuggerNone })
	hs.waitFor("segments asked again", func(string) bool { return ctrl.called("segments local:8000 true") })
}

// TestSegmentsFollowDDMReady: a VM listed and selected before its HELO
// was answered (not DDM yet) gets its heap map asked for once it turns out
// to speak DDM (the demo's VMs arrive this way).
func TestSegmentsFollowDDMReady(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		s.UpdateVM("local:8000", func(vm *monitor.VM) { vm.Source, vm.PID, vm.App = "local:8000", 1234, "com.example.mail" })
	})
	hs.waitText("com.example.mail")
	time.Sleep(50 * time.Millisecond)
	if hs.ctrl.called("segments local:8000 true") {
		t.Fatal("segments requested of a VM not known to speak DDM")
	}
	hs.store.UpdateVM("local:8000", func(vm *monitor.VM) { vm.DDM = true })
	hs.waitFor("segments requested", func(string) bool { return hs.ctrl.called("segments local:8000 true") })
}

// orderController records trace starts and stops and the segment wishes
// in the order they reach it; a start takes longer than a stop, so a stop
// sent beside its start (not after it) overtakes it.
type orderController struct {
	fakeController
	omu   sync.Mutex
	order []string
	segs  map[string]bool // the last wish per VM
}

func (c *orderController) note(s string, after time.Duration) {
	time.Sleep(after)
	c.omu.Lock()
	c.order = append(c.order, s)
	c.omu.Unlock()
}

func (c *orderController) StartProfiling(_ context.Context, key string, _ monitor.ProfileOptions) error {
	c.note("start", 100*time.Millisecond)
	return nil
}

// StopProfilingTo fails, so that no profile view opens over the dashboard
// and takes the keys that follow.
func (c *orderController) StopProfilingTo(context.Context, string, bool, io.Writer) (int64, error) {
	c.note("stop", 0)
	return 0, errors.New("test: no trace kept")
}

func (c *orderController) SetSegments(ctx context.Context, key string, o monitor.SegmentOptions) error {
	time.Sleep(time.Millisecond)
	if ctx.Err() != nil {
		return ctx.Err() // replaced by a newer wish before it was sent
	}
	c.omu.Lock()
	c.segs[key] = o.Managed
	c.omu.Unlock()
	return nil
}

// TestRepeatedTogglesInOrder (run with -race): pressing p and h many times
// as fast as keys come, the VM sees trace starts and stops alternating,
// first a start, and the heap map wished for ends as the pane shows it.
func TestRepeatedTogglesInOrder(t *testing.T) {
	ctrl := &orderController{segs: map[string]bool{}}
	hs := startCfg(t, 160, 40, style.Palette{}, twoVMs, func(c *Config) { c.Controller = ctrl })
	hs.waitText("Binder:1234_1")
	for range 9 { // odd: a trace runs at the end
		hs.screen.InjectKey(tcell.KeyRune, 'p', tcell.ModNone)
		hs.screen.InjectKey(tcell.KeyRune, 'h', tcell.ModNone)
	}
	hs.waitGone("Heap ·") // 9 presses: hidden
	hs.waitFor("nine trace requests", func(string) bool {
		ctrl.omu.Lock()
		defer ctrl.omu.Unlock()
		return len(ctrl.order) == 9
	})
	ctrl.omu.Lock()
	order := strings.Join(ctrl.order, " ")
	ctrl.omu.Unlock()
	if want := strings.TrimSpace(strings.Repeat("start stop ", 4) + "start"); order != want {
		t.Fatalf("trace requests reached the VM as %q, want %q", order, want)
	}
	hs.waitText("tracing com.example.mail")
	hs.waitFor("the heap map stopped", func(string) bool {
		ctrl.omu.Lock()
		defer ctrl.omu.Unlock()
		on, asked := ctrl.segs["local:8000"]
		return asked && !on
	})
	time.Sleep(100 * time.Millisecond) // nothing late turns it back on
	ctrl.omu.Lock()
	defer ctrl.omu.Unlock()
	if ctrl.segs["local:8000"] {
		t.Fatal("the heap map is hidden but its segments are still asked for")
	}
}
