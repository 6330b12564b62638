package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// The tests of this file are issue 29's defects, each failing before its fix.

// The line under the heap header counts the GCs the header counts: the
// report asked for at connect is not a GC (#15).
func TestHeapHistoryCountsGCsAsTheHeader(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		twoVMs(s)
		now := time.Now()
		var hist []monitor.HeapSample
		for i := 0; i <= 3; i++ { // the connect report, then GCs 1…3
			hist = append(hist, monitor.HeapSample{Time: now, AllocatedBytes: uint64(i+1) << 20, SizeBytes: 12 << 20, GCCount: i})
		}
		s.SetHeaps("local:8000", []monitor.Heap{{ID: 1, MaxBytes: 256 << 20, SizeBytes: 12 << 20, AllocatedBytes: 4 << 20, Objects: 91234, GCCount: 3, History: hist}})
	})
	hs.waitText("GCs 3")
	hs.waitText("allocated over 3 GCs: 1.0M → 4.0M")
}

func TestGCsSpanned(t *testing.T) {
	for _, c := range []struct{ first, last, want int }{{0, 3, 3}, {1, 3, 3}, {5, 5, 1}, {0, 0, 0}, {238, 477, 240}} {
		if got := gcsSpanned(monitor.HeapSample{GCCount: c.first}, monitor.HeapSample{GCCount: c.last}); got != c.want {
			t.Errorf("gcsSpanned(%d, %d) = %d, want %d", c.first, c.last, got, c.want)
		}
	}
}

// twelveVMs adds VMs local:8000…8011.
func twelveVMs(s *monitor.Store) {
	twoVMs(s)
	now := time.Now().Add(-time.Minute)
	for i := 2; i < 12; i++ {
		key := fmt.Sprintf("local:%d", 8000+i)
		s.UpdateVM(key, func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = key, 2000+i, fmt.Sprintf("com.example.app%d", i), true, now
		})
	}
}

// After the VM list shrinks (the log pane opens) and grows again, it shows
// its first rows again when the selection fits with them (#15).
func TestVMListUnscrollsWhenItGrows(t *testing.T) {
	hs := start(t, 120, 24, style.Palette{}, twelveVMs)
	hs.waitText("Binder:1234_1")
	for i := 0; i < 5; i++ {
		hs.key(tcell.KeyRune, 'j')
	}
	hs.waitText("selected: com.example.app5")
	hs.key(tcell.KeyRune, 'l')
	hs.waitText("Log")
	hs.waitGone(" local:8000 ")
	hs.key(tcell.KeyRune, 'l')
	hs.waitFor("the log pane closed", func(s string) bool { return !strings.Contains(s, "┌Log") })
	hs.waitText(" local:8000 ")
	hs.waitText("▶ local:8005")
}

// noLiveController is a replay's controller: every request is refused.
type noLiveController struct {
	*fakeController
	segments atomic.Int32
}

func (c *noLiveController) SetSegments(context.Context, string, monitor.SegmentOptions) error {
	c.segments.Add(1)
	return monitor.ErrNoLiveVM
}

type fixedTimeline struct{}

func (fixedTimeline) TogglePlay()          {}
func (fixedTimeline) Step()                {}
func (fixedTimeline) SeekBy(time.Duration) {}
func (fixedTimeline) SeekEdge(bool)        {}
func (fixedTimeline) ScaleSpeed(float64)   {}
func (fixedTimeline) Status() string       { return "▶ 0:05.0 / 1:00.0 ×1" }

// A replay says once that its heap maps are only the recorded ones, asks
// no more, and the replay position stays on a 120-column status line
// while the message shows (#4).
func TestReplayHeapMapSaidOncePositionKept(t *testing.T) {
	ctrl := &noLiveController{fakeController: &fakeController{}}
	hs := startCfg(t, 120, 40, style.Palette{}, twoVMs, func(c *Config) {
		c.Controller, c.Timeline = ctrl, fixedTimeline{}
		c.Discovery = "replay of /tmp/a-long-recording-name.ddmrec (3 devices, 9 VMs)"
	})
	hs.waitText("heap maps are only what was recorded")
	hs.waitText("0:05.0 / 1:00.0")
	for i := 0; i < 6; i++ { // changes and seeks used to ask (and say it) again
		hs.store.SetThreads("local:8001", []monitor.Thread{{ID: 1, Name: fmt.Sprintf("t%d", i), Status: 3}})
		hs.key(tcell.KeyRune, 'j')
		hs.key(tcell.KeyRune, 'k')
		time.Sleep(20 * time.Millisecond)
	}
	hs.waitText("0:05.0 / 1:00.0")
	said := 0
	hs.dash.App().QueueUpdate(func() {
		for _, m := range hs.dash.statusP.history {
			if strings.Contains(m.text, "heap map") {
				said++
			}
		}
	})
	if said != 1 {
		t.Errorf("the heap map message went to the history %d times, want once", said)
	}
	if n := ctrl.segments.Load(); n > 2 {
		t.Errorf("segments asked %d times of a replayed VM", n)
	}
}

// A filtered thread title wider than its pane is cut at its end with '…',
// not at both ends (it lost its first letter, "┌hreads"), and the native
// heap's note wraps between words (#14).
func TestTitlesAndNotesCutAtTheEnd(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		twoVMs(s)
		s.UpdateVM("local:8000", func(vm *monitor.VM) { vm.App = "com.example.averyveryverylongapplicationname" })
	})
	hs.waitText("AsyncTask #1")
	hs.key(tcell.KeyTab, 0)
	hs.runes("/Binder:1234")
	hs.key(tcell.KeyEnter, 0)
	hs.waitGone("AsyncTask #1")
	hs.waitFor("the title cut at its end", func(s string) bool {
		l := lineWith(s, "╔ Threads · com.example.averyvery")
		return l != "" && strings.HasSuffix(l, "·… ╗")
	})
	// The native heap before its first segments: the note wraps by words.
	hs.key(tcell.KeyEscape, 0)
	hs.key(tcell.KeyRune, 'n')
	hs.waitText("native heap: segments arrive at the next GC")
	lines := hs.text()
	var note []string
	for i, l := range lines {
		if strings.Contains(l, "native heap: segments") {
			for _, nl := range lines[i : i+3] {
				f := strings.Split(nl, "│") // the heap pane is the first on its line
				if len(f) > 1 && strings.TrimSpace(f[1]) != "" {
					note = append(note, strings.TrimSpace(f[1]))
				}
			}
			break
		}
	}
	const want = "native heap: segments arrive at the next GC (g causes one); only Dalvik reports native allocations"
	if got := strings.Join(note, " "); got != want || len(note) < 2 {
		t.Fatalf("the note is %q in %d lines, want it wrapped between words: %q", got, len(note), want)
	}
}

// The status line is cut with '…' when it cannot hold its parts (#14).
func TestFitStatus(t *testing.T) {
	parts := func() []statusPart {
		return []statusPart{
			{open: "[::b]ddmtui[::-] [::d]", text: "?:help q:quit", close: "[::-]", keep: keepBrand},
			{open: "[yellow]", text: "a message [red] that is long enough to be cut", close: "[-]", keep: keepMessage, cut: true},
			{text: "2 VMs", keep: keepCount},
			{open: "[::b]", text: "▶ 0:05.0 / 1:00.0", close: "[::-]", keep: keepPosition},
			{text: "scan 127.0.0.1:8000-8100", keep: keepDiscovery, cut: true},
		}
	}
	for _, c := range []struct {
		w    int
		want string
	}{
		{0, "[::b]ddmtui[::-] [::d]?:help q:quit[::-] · [yellow]a message [[:]red] that is long enough to be cut[-] · 2 VMs · [::b]▶ 0:05.0 / 1:00.0[::-] · scan 127.0.0.1:8000-8100"},
		{112, "[::b]ddmtui[::-] [::d]?:help q:quit[::-] · [yellow]a message [[:]red] that is long enough to be cut[-] · 2 VMs · [::b]▶ 0:05.0 / 1:00.0[::-] · scan 127.0.0…"},
		{100, "[::b]ddmtui[::-] [::d]?:help q:quit[::-] · [yellow]a message [[:]red] that is long enough to be cut[-] · 2 VMs · [::b]▶ 0:05.0 / 1:00.0[::-]"},
		{80, "[::b]ddmtui[::-] [::d]?:help q:quit[::-] · [yellow]a message [[:]red] that is long enough …[-] · [::b]▶ 0:05.0 / 1:00.0[::-]"},
		{50, "[::b]ddmtui[::-] [::d]?:help q:quit[::-] · [::b]▶ 0:05.0 / 1:00.0[::-]"},
		{30, "[::b]ddmtui[::-] [::d]?:help q:quit[::-]"},
		{12, "[::b]ddmtui[::-] [::d]?:he…[::-]"},
	} {
		got := fitStatus(parts(), c.w)
		if got != c.want {
			t.Errorf("w %d:\n got %q\nwant %q", c.w, got, c.want)
		}
		if c.w > 0 && tview.TaggedStringWidth(got) > c.w {
			t.Errorf("w %d: %d cells wide", c.w, tview.TaggedStringWidth(got))
		}
	}
}

// The heap footer keeps the free space and its fragmentation before the
// geometry when the pane cannot hold every part (#14).
func TestHeapFooterKeepsFragmentation(t *testing.T) {
	hs := start(t, 80, 24, style.Palette{}, twoVMs)
	hs.waitText("91,234")
	hs.store.SetSegments("local:8000", specSnapshot(t))
	hs.waitText("1-byte[]")
	hs.waitFor("fragmentation in the footer", func(s string) bool {
		l := lineWith(s, "rows 1-2 of 2")
		return strings.Contains(l, "free ") && strings.Contains(l, "fragmentation ")
	})
}

// A half-typed log query only marks the prompt; the complete one applies
// with no error left on the status line or in the history; Enter on a
// wrong one says why once (#7).
func TestLogQueryCheckedOnEnter(t *testing.T) {
	r := startLogRig(t, 120, 40, style.Palette{})
	r.add(100, logcat.Info, "A", "hello one")
	r.add(100, logcat.Warn, "A", "careful two")
	r.selectApp()
	r.key(tcell.KeyRune, 'l')
	r.waitText("hello one")
	r.key(tcell.KeyRune, '/')
	r.runes("level:")
	r.waitText("Esc clears): ✗ level:")
	r.runes("W")
	r.waitText("Esc clears): level:W")
	r.waitGone("hello one")
	r.key(tcell.KeyEnter, 0)
	r.waitText("/level:W")
	history := func() []string {
		var out []string
		r.dash.App().QueueUpdate(func() {
			for _, m := range r.dash.statusP.history {
				out = append(out, m.text)
			}
		})
		return out
	}
	if h := history(); len(h) != 0 {
		t.Fatalf("typing a valid query left messages: %q", h)
	}
	s := strings.Join(r.text(), "\n")
	if l := r.text()[len(r.text())-1]; strings.Contains(l, "level") {
		t.Fatalf("status line after a valid query: %q\n%s", l, s)
	}
	r.key(tcell.KeyRune, '/')
	r.runes("Q") // level:WQ
	r.waitText("Esc clears): ✗ level:WQ")
	r.key(tcell.KeyEnter, 0)
	r.waitText("unknown level")
	r.waitText("/level:W ") // the last good query stays
	r.waitText("careful two")
	if h := history(); len(h) != 1 {
		t.Fatalf("history after one wrong query: %q", h)
	}
}

// What a VM cannot do opens no empty viewer: the key says why (#20).
func TestUnableVMSaysWhyInsteadOfViewer(t *testing.T) {
	const why = "allocation tracking needs the DDM heap handler, which Android 11 and later no longer register"
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		modernVMs(s)
		s.UpdateVM("adb:emu-5556:4321", func(vm *monitor.VM) {
			vm.Capabilities[monitor.FeatAllocations] = monitor.Capability{Source: monitor.SourceNone, Reason: why}
			vm.Capabilities[monitor.FeatMethodTrace] = monitor.Capability{Source: monitor.SourceNone, Reason: "no [streaming] trace"}
		})
	})
	hs.waitText("mainthr")
	hs.key(tcell.KeyRune, 'a')
	hs.waitText("no allocation tracker: allocation tracking needs the DDM heap handler")
	if s := strings.Join(hs.text(), "\n"); strings.Contains(s, "tracking ?") || strings.Contains(s, "asking") {
		t.Fatalf("an allocation viewer opened:\n%s", s)
	}
	hs.key(tcell.KeyRune, 'p')
	hs.waitText("no method trace: no [streaming] trace")
	if hs.ctrl.called("reaq adb:emu-5556:4321") || hs.ctrl.called("profile start adb:emu-5556:4321") {
		t.Fatal("a VM that cannot was asked")
	}
}

// longStackErr is a controller whose stacks fail with a long reason.
type longStackErr struct{ *fakeController }

func (longStackErr) Stack(context.Context, string, uint64) ([]ddm.StackFrame, error) {
	return nil, errors.New("the thread is suspended by another debugger, its kernel state=S, so no stack can be read now")
}

// The stack pane wraps its text between words (#16).
func TestStackPaneWrapsBetweenWords(t *testing.T) {
	hs := startCfg(t, 120, 40, style.Palette{}, twoVMs, func(c *Config) { c.Controller = longStackErr{&fakeController{}} })
	hs.waitText("AsyncTask #1")
	hs.key(tcell.KeyTab, 0)
	hs.key(tcell.KeyEnter, 0)
	hs.waitText("the thread is")
	var text []string
	for _, l := range hs.text() {
		f := strings.Split(l, "│")
		if len(f) >= 5 { // heap pane │…││ stack pane │
			if s := strings.TrimSpace(f[3]); s != "" {
				text = append(text, s)
			}
		}
	}
	const want = "the thread is suspended by another debugger, its kernel state=S, so no stack can be read now"
	if got := strings.Join(text, " "); got != want || len(text) < 2 {
		t.Fatalf("stack pane text %q in %d lines, want %q wrapped between words", got, len(text), want)
	}
}

// An endpoint that handshakes and then sends garbage is a failed row:
// greyed, "failed: why", no port, never selected (#5).
func TestFailedEndpointRow(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		s.UpdateVM("local:7999", func(vm *monitor.VM) { vm.Source = "local:7999" }) // sorts first
		twoVMs(s)
	})
	hs.waitText("com.example.mail")
	hs.store.RemoveFailed("local:7999", "bad packet length 7")
	hs.waitText("failed: bad packet")
	hs.waitText("selected: com.example.mail")
	// A retry re-lists it: still failed, still not selected.
	hs.store.UpdateVM("local:7999", func(vm *monitor.VM) { vm.Source, vm.DebugPort = "local:7999", 8650 })
	hs.waitText("failed: bad packet")
	line := lineWith(strings.Join(hs.text(), "\n"), "failed: bad packet")
	if strings.Contains(line, "8650") || strings.Contains(line, "gone") || strings.Contains(line, "▶") {
		t.Fatalf("failed row %q", line)
	}
	if st, ok := hs.styleOf("failed: bad packet"); !ok {
		t.Fatal("no failed row")
	} else if _, _, attr := st.Decompose(); attr&tcell.AttrDim == 0 {
		t.Fatalf("failed row not dimmed: %v", attr)
	}
	hs.key(tcell.KeyRune, 'k') // up from the first working VM: nothing to select above
	hs.key(tcell.KeyRune, 'j')
	hs.key(tcell.KeyRune, 'k')
	hs.waitText("selected: com.example.mail")
	if s := strings.Join(hs.text(), "\n"); !strings.Contains(lineWith(s, "local:8000"), "▶") {
		t.Fatalf("cursor not on the working VM:\n%s", s)
	}
	// It answers as a VM at last: an ordinary row again.
	hs.store.UpdateVM("local:7999", func(vm *monitor.VM) { vm.PID, vm.App, vm.DDM = 4242, "com.example.late", true })
	hs.waitGone("failed: bad packet")
	hs.waitText("com.example.late")
}

func TestPackParts(t *testing.T) {
	parts := []string{"rows 1-2 of 2", "free 80B in 1 runs", "fragmentation 0.0%", "merged runs (HPSG)"}
	for _, c := range []struct {
		w, lines int
		want     []string
	}{
		{200, 2, []string{"rows 1-2 of 2 · free 80B in 1 runs · fragmentation 0.0% · merged runs (HPSG)"}},
		{40, 2, []string{"rows 1-2 of 2 · free 80B in 1 runs", "fragmentation 0.0% · merged runs (HPSG)"}},
		{40, 1, []string{"rows 1-2 of 2 · free 80B in 1 runs"}},
		{10, 2, nil},
	} {
		if got := packParts(parts, " · ", c.w, c.lines); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("w %d lines %d: %q, want %q", c.w, c.lines, got, c.want)
		}
	}
}

// A simulated VM with no device shell (the demo's Dalvik VM on a local
// port) shows the thread dump its simulator writes, deadlock marked,
// instead of "not on an adb device" (#11).
func TestSimDumpShowsDeadlock(t *testing.T) {
	asked := make(chan string, 1)
	hs := startCfg(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		twoVMs(s)
		s.UpdateVM("local:8000", func(vm *monitor.VM) {
			vm.Capabilities = monitor.Capabilities{monitor.FeatThreadDump: {Source: monitor.SourceNone, Reason: "thread dumps need an adb device (debuggerd -j or kill -3)"}}
		})
	}, func(c *Config) {
		c.SimDump = func(_ context.Context, vm monitor.VM) ([]byte, bool, error) {
			asked <- vm.Key
			raw, err := (&fakeController{}).ThreadDump(context.Background(), vm.Key) // a two-thread deadlock
			return raw, true, err
		}
	})
	hs.waitText("AsyncTask #1")
	hs.key(tcell.KeyRune, 'd')
	hs.waitText("DEADLOCK")
	if k := <-asked; k != "local:8000" {
		t.Fatalf("SimDump asked for %s", k)
	}
	if hs.ctrl.called("dump local:8000") {
		t.Fatal("the controller was asked too")
	}
}
