package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
)

type fakeController struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeController) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeController) called(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if c == s {
			return true
		}
	}
	return false
}

func (f *fakeController) GC(_ context.Context, key string) error {
	f.record("gc " + key)
	return nil
}

func (f *fakeController) SetSegments(_ context.Context, key string, o monitor.SegmentOptions) error {
	f.record(fmt.Sprintf("segments %s %v", key, o.Managed || o.Native))
	f.record(fmt.Sprintf("segopts %s %+v", key, o))
	return nil
}

func (f *fakeController) Stack(_ context.Context, key string, tid uint64) ([]ddm.StackFrame, error) {
	f.record(fmt.Sprintf("stack %s %d", key, tid))
	if tid == 99 {
		return nil, errors.New("Stack trace unavailable")
	}
	return []ddm.StackFrame{{Class: "com.example.Worker", Method: fmt.Sprintf("run%d", tid), File: "Worker.java", Line: 42},
		{Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 923}}, nil
}

func (f *fakeController) StartProfiling(_ context.Context, key string, o monitor.ProfileOptions) error {
	f.record("profile start " + key)
	return nil
}

func (f *fakeController) StopProfilingTo(_ context.Context, key string, sampling bool, w io.Writer) (int64, error) {
	f.record("profile stop " + key)
	tr, err := trace.Synth{Seed: 1, Records: 4000, NamedThreads: []trace.Thread{{ID: 1, Name: "main"}}}.Trace()
	if err != nil {
		return 0, err
	}
	b, err := tr.MarshalBinary()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

func (f *fakeController) Exit(_ context.Context, key string, status int32) error {
	f.record(fmt.Sprintf("exit %s %d", key, status))
	return nil
}

func (f *fakeController) ThreadDump(_ context.Context, key string) ([]byte, error) {
	f.record("dump " + key)
	return []byte(`----- pid 1234 at 2025-01-02 03:04:05 -----
Cmd line: com.example.mail

DALVIK THREADS (2):
"main" prio=5 tid=1 Blocked
  | group="main" sCount=1 dsCount=0 flags=1 obj=0x12c00000 self=0x7f0000001000
  | sysTid=1234 nice=0 cgrp=default sched=0/0 handle=0x7f0000002000
  | state=S schedstat=( 1000 200 3 ) utm=4 stm=1 core=0 HZ=100
  at com.example.mail.Store.save(Store.java:10)
  - waiting to lock <0x0b5e7a21> (a java.lang.Object) held by thread 2
  - locked <0x03c1f8e6> (a java.lang.Object)

"sync" prio=5 tid=2 Blocked
  | group="main" sCount=1 dsCount=0 flags=1 obj=0x12c00100 self=0x7f0000003000
  | sysTid=1240 nice=0 cgrp=default sched=0/0 handle=0x7f0000004000
  | state=S schedstat=( 1000 200 3 ) utm=2 stm=1 core=0 HZ=100
  at com.example.mail.Sync.run(Sync.java:20)
  - waiting to lock <0x03c1f8e6> (a java.lang.Object) held by thread 1
  - locked <0x0b5e7a21> (a java.lang.Object)

----- end 1234 -----
`), nil
}

func (f *fakeController) AllocTracking(_ context.Context, key string) (bool, error) {
	f.record("reaq " + key)
	return f.called("reae " + key + " true"), nil
}

func (f *fakeController) SetAllocTracking(_ context.Context, key string, on bool) error {
	f.record(fmt.Sprintf("reae %s %v", key, on))
	return nil
}

func (f *fakeController) Allocations(_ context.Context, key string) (*ddm.Allocations, error) {
	f.record("real " + key)
	return &ddm.Allocations{Entries: []ddm.Allocation{
		{Size: 24, ThreadID: 1, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{{Class: "Lcom/example/Foo;", Method: "bar", File: "Foo.java", Line: 42}}},
		{Size: 4096, ThreadID: 2, Class: "[B", Frames: []ddm.AllocFrame{{Class: "Lcom/example/Net;", Method: "read", File: "Net.java", Line: 7}}},
	}}, nil
}

func (f *fakeController) HeapDumpTo(_ context.Context, key string, w io.Writer, progress func(uint64)) (int64, error) {
	f.record("hpds " + key)
	progress(1234)
	b, err := hprof.Synth{Seed: 1}.Bytes()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// HeapGraphTo writes the planted scene's heap as an Android 14 heap graph
// of the process the key ends with.
func (f *fakeController) HeapGraphTo(_ context.Context, key string, w io.Writer, progress func(uint64)) (int64, error) {
	f.record("heapgraph " + key)
	progress(1234)
	pid, _ := strconv.Atoi(key[strings.LastIndexByte(key, ':')+1:])
	b, _, _, err := heapgraph.Scene(scene.Options{Seed: 1, API: 34}, heapgraph.WriterOptions{API: 34, PID: int32(pid)})
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

type harness struct {
	t      *testing.T
	screen tcell.SimulationScreen
	store  *monitor.Store
	ctrl   *fakeController
	dash   *Dashboard
	done   chan error
	cancel context.CancelFunc
}

func start(t *testing.T, w, h int, pal style.Palette, setup func(*monitor.Store)) *harness {
	t.Helper()
	return startCfg(t, w, h, pal, setup, nil)
}

// startCfg is start with tweak applied to the dashboard's Config.
func startCfg(t *testing.T, w, h int, pal style.Palette, setup func(*monitor.Store), tweak func(*Config)) *harness {
	t.Helper()
	leakcheck.Check(t)
	hs := &harness{t: t, screen: tcell.NewSimulationScreen("UTF-8"), store: monitor.NewStore(monitor.NewBus()), ctrl: &fakeController{}, done: make(chan error, 1)}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	if setup != nil {
		setup(hs.store)
	}
	cfg := Config{Store: hs.store, Controller: hs.ctrl, Palette: pal, Discovery: "scan test", Screen: hs.screen,
		FrameInterval: 5 * time.Millisecond, TraceDir: t.TempDir(), ADBStatus: func() string { return "adb 127.0.0.1:5037: 2 devices" }}
	if tweak != nil {
		tweak(&cfg)
	}
	hs.dash = New(cfg)
	hs.screen.SetSize(w, h) // after SetScreen, which initialises the screen at 80x25
	ctx, cancel := context.WithCancel(context.Background())
	hs.cancel = cancel
	go func() { hs.done <- hs.dash.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-hs.done:
		case <-time.After(5 * time.Second):
			t.Error("dashboard did not stop")
		}
	})
	return hs
}

// contents copies the simulated screen on the UI goroutine: GetContents
// returns tcell's live buffer, which drawing writes.
func (hs *harness) contents() ([]tcell.SimCell, int, int) {
	var (
		cells []tcell.SimCell
		w, h  int
	)
	hs.dash.App().QueueUpdate(func() {
		c, cw, ch := hs.screen.GetContents()
		cells = make([]tcell.SimCell, len(c))
		copy(cells, c)
		w, h = cw, ch
	})
	return cells, w, h
}

func (hs *harness) text() []string {
	cells, w, h := hs.contents()
	return cellText(cells, w, h)
}

func cellText(cells []tcell.SimCell, w, h int) []string {
	lines := make([]string, h)
	for y := 0; y < h; y++ {
		var b strings.Builder
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) > 0 {
				b.WriteRune(c.Runes[0])
			} else {
				b.WriteByte(' ')
			}
		}
		lines[y] = b.String()
	}
	return lines
}

func (hs *harness) waitFor(what string, cond func(screen string) bool) {
	hs.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := strings.Join(hs.text(), "\n")
		if cond(s) {
			return
		}
		if time.Now().After(deadline) {
			hs.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (hs *harness) waitText(sub string) {
	hs.t.Helper()
	hs.waitFor(fmt.Sprintf("%q", sub), func(s string) bool { return strings.Contains(s, sub) })
}

func (hs *harness) waitGone(sub string) {
	hs.t.Helper()
	hs.waitFor(fmt.Sprintf("%q to disappear", sub), func(s string) bool { return !strings.Contains(s, sub) })
}

func (hs *harness) key(k tcell.Key, r rune) {
	hs.screen.InjectKey(k, r, tcell.ModNone)
	time.Sleep(15 * time.Millisecond)
}

func (hs *harness) runes(s string) {
	for _, r := range s {
		hs.key(tcell.KeyRune, r)
	}
}

// styleOf returns the style of the first cell whose row contains sub at that
// position.
func (hs *harness) styleOf(sub string) (tcell.Style, bool) {
	cells, w, h := hs.contents()
	for y, line := range cellText(cells, w, h) {
		if i := strings.Index(line, sub); i >= 0 {
			x := len([]rune(line[:i]))
			return cells[y*w+x].Style, true
		}
	}
	return tcell.StyleDefault, false
}

func twoVMs(s *monitor.Store) {
	now := time.Now().Add(-time.Minute)
	s.UpdateVM("local:8000", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.DDM, vm.VMIdent, vm.Connected = "local:8000", 1234, "com.example.mail", true, "Dalvik v2.1.0", now
		vm.Debugger = monitor.DebuggerWaiting
	})
	s.SetThreads("local:8000", []monitor.Thread{
		{ID: 1, Name: "main", Status: 1, State: "running", SysTID: 1234, UTime: 50, Created: now},
		{ID: 2, Name: "Binder:1234_1", Status: 4, State: "wait", SysTID: 1240, UTime: 3, Created: now},
		{ID: 3, Name: "AsyncTask #1", Status: 2, State: "sleeping", SysTID: 1241, UTime: 9, Daemon: true, Created: now, CPUKnown: true, CPUPercent: 37.5},
	})
	s.SetHeaps("local:8000", []monitor.Heap{{ID: 1, MaxBytes: 256 << 20, SizeBytes: 12 << 20, AllocatedBytes: 8 << 20, Objects: 91234, GCCount: 3}})
	s.UpdateVM("local:8001", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.DDM, vm.VMIdent, vm.Connected = "local:8001", 5678, "com.example.maps", true, "Dalvik v2.1.0", now
	})
	s.SetThreads("local:8001", []monitor.Thread{{ID: 1, Name: "maps-main", Status: 3, State: "monitor", Created: now}})
}

func TestVMListAndThreadTable(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("com.example.mail")
	hs.waitText("com.example.maps")
	hs.waitText("waiting")
	hs.waitText("Binder:1234_1")
	// Row 1 is selected (drawn reversed); rows 2 and 3 show their colours.
	st, ok := hs.styleOf("sleeping")
	if fg, _, _ := st.Decompose(); !ok || fg != (style.Palette{}).ThreadState("sleeping") {
		t.Fatalf("sleeping state colour %v", fg)
	}
	st, _ = hs.styleOf("wait ")
	if fg, _, _ := st.Decompose(); fg != (style.Palette{}).ThreadState("wait") {
		t.Fatalf("wait state colour %v", fg)
	}
	hs.waitText("91,234")
	hs.waitText("2 VMs")
	hs.waitText("adb 127.0.0.1:5037: 2 devices")
}

func TestKeysSelectTogglesHelpQuit(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'j')
	hs.key(tcell.KeyEnter, 0)
	hs.waitText("maps-main")
	hs.waitGone("Binder:1234_1")
	hs.waitText("selected: com.example.maps")
	// Segments follow the selection while the heap pane shows.
	hs.waitFor("segments requested", func(string) bool { return hs.ctrl.called("segments local:8001 true") })
	hs.key(tcell.KeyRune, 't')
	hs.waitGone("1 maps-main") // the row; the stack pane's title keeps the name
	hs.key(tcell.KeyRune, 't')
	hs.waitText("1 maps-main")
	hs.key(tcell.KeyRune, 'h')
	hs.waitGone("Heap ·")
	hs.waitFor("segments stopped", func(string) bool { return hs.ctrl.called("segments local:8001 false") })
	hs.key(tcell.KeyRune, 'h')
	hs.waitText("Heap ·")
	hs.key(tcell.KeyRune, '?')
	hs.waitText("cause a GC in the selected VM")
	// Every key's line is in the help, paging down as far as it goes.
	seen := strings.Join(hs.text(), "\n")
	for i := 0; i < 8; i++ {
		hs.key(tcell.KeyPgDn, 0)
		time.Sleep(40 * time.Millisecond) // the key is handled before the screen is read
		seen += strings.Join(hs.text(), "\n")
	}
	for _, b := range hs.dash.Keys().Help() {
		if !strings.Contains(seen, b.Help) {
			t.Errorf("help lacks %q", b.Help)
		}
	}
	hs.key(tcell.KeyEscape, 0)
	hs.waitGone("cause a GC in the selected VM")
	hs.key(tcell.KeyRune, 'g')
	hs.waitFor("GC requested", func(string) bool { return hs.ctrl.called("gc local:8001") })
	hs.key(tcell.KeyRune, 'q')
	select {
	case err := <-hs.done:
		if err != nil {
			t.Fatalf("quit: %v", err)
		}
		hs.done <- nil
	case <-time.After(3 * time.Second):
		t.Fatal("q did not quit")
	}
}

func TestThreadFilterSortAndStack(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("AsyncTask #1")
	hs.key(tcell.KeyTab, 0) // to the thread table
	hs.runes("/Binder")
	hs.key(tcell.KeyEnter, 0)
	hs.waitGone("AsyncTask #1")
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyEscape, 0)
	hs.waitText("AsyncTask #1")
	// Inverted filter.
	hs.runes("/!main")
	hs.key(tcell.KeyEnter, 0)
	hs.waitGone("  1 main")
	hs.key(tcell.KeyEscape, 0)
	// Sort by name: "AsyncTask #1" becomes the first row; ▲ means
	// ascending in every column.
	hs.key(tcell.KeyRune, 'o')
	hs.waitFor("sorted by name", func(s string) bool {
		a, b := strings.Index(s, "AsyncTask #1"), strings.Index(s, "Binder:1234_1")
		return a >= 0 && b > a && strings.Contains(s, "Name▲")
	})
	hs.key(tcell.KeyRune, 'O')
	hs.waitFor("reversed", func(s string) bool {
		return strings.Index(s, "main") < strings.Index(s, "AsyncTask #1") && strings.Contains(s, "Name▼")
	})
	// Enter on the selected thread shows its stack.
	hs.key(tcell.KeyHome, 0)
	hs.key(tcell.KeyEnter, 0)
	hs.waitText("at com.example.Worker.run1") // the location wraps to its own line in a narrow stack pane
	hs.waitText("(Worker.java:42)")
}

func TestThreadChangesBlinkAndDeathsShow(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("AsyncTask #1")
	// The cursor (reverse video) rests on the second row, away from the
	// thread whose change blinks and the one that dies.
	hs.key(tcell.KeyTab, 0)
	hs.key(tcell.KeyRune, 'j')
	now := time.Now()
	hs.store.SetThreads("local:8000", []monitor.Thread{
		{ID: 1, Name: "main", Status: 3, State: "monitor", UTime: 51, Created: now.Add(-time.Minute), Changed: now},
		{ID: 2, Name: "Binder:1234_1", Status: 4, State: "wait", Created: now.Add(-time.Minute)},
	})
	hs.waitText("died")
	if l := lineWith(strings.Join(hs.text(), "\n"), "died"); strings.Contains(l, "37.5") {
		t.Errorf("a dead thread still shows its CPU%%: %q", l)
	}
	st, _ := hs.styleOf("monitor")
	if _, _, attr := st.Decompose(); attr&tcell.AttrUnderline == 0 {
		t.Fatal("a changed state does not blink")
	}
	st, _ = hs.styleOf("died")
	if _, _, attr := st.Decompose(); attr&tcell.AttrStrikeThrough == 0 {
		t.Fatal("a dead thread is not struck through")
	}
	hs.waitFor("blink to end", func(string) bool {
		st, ok := hs.styleOf("monitor")
		_, _, attr := st.Decompose()
		return ok && attr&tcell.AttrUnderline == 0
	})
	hs.waitGone("died")
}

func specSnapshot(t *testing.T) *heap.Snapshot {
	body := []byte{0, 0, 0, 1, 8, 0x12, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x3C,
		0x01, 0x01, 0x19, 0x03, 0x00, 0x09, 0x91, 0xFF, 0x11, 0x2B}
	seg, err := ddm.DecodeHeapSegment(ddm.TypeHPSG, body)
	if err != nil {
		t.Fatal(err)
	}
	return heap.NewSnapshot(1, ddm.TypeHPSG, []ddm.HeapSegment{*seg})
}

func TestHeapBitmapLegendAndToggle(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("91,234")
	hs.store.SetSegments("local:8000", specSnapshot(t))
	hs.waitText("1-byte[]")
	hs.waitText("316 units of 8B")
	// The bitmap: somewhere a cell painted with the 1-byte array colour.
	cells, _, _ := hs.contents()
	found := false
	for _, c := range cells {
		if fg, _, _ := c.Style.Decompose(); fg == (style.Palette{}).HeapKind(int(ddm.KindArray1)) && len(c.Runes) > 0 && c.Runes[0] == '█' {
			found = true
		}
	}
	if !found {
		t.Fatal("no bitmap cell in the 1-byte array colour")
	}
	hs.key(tcell.KeyRune, 'c')
	hs.waitText("finalizable")
}

func TestNoColorUsesGlyphs(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{NoColor: true}, twoVMs)
	hs.store.SetSegments("local:8000", specSnapshot(t))
	hs.waitText("316 units of 8B")
	cells, _, _ := hs.contents()
	for _, c := range cells {
		if fg, bg, _ := c.Style.Decompose(); (fg != tcell.ColorDefault && fg != tcell.ColorReset) || (bg != tcell.ColorDefault && bg != tcell.ColorReset) {
			t.Fatalf("NO_COLOR: a cell %q has colours %v/%v", c.Runes, fg, bg)
		}
	}
	hs.waitText("1 1-byte[]")
}

func TestSmallTerminal(t *testing.T) {
	hs := start(t, 80, 24, style.Palette{}, twoVMs)
	hs.waitText("com.example.mail")
	hs.waitText("Binder:1234_1")
	hs.waitText("Heap ·")
	hs.waitText("?:help q:quit")
	// A resize redraws.
	hs.screen.SetSize(130, 45)
	hs.screen.PostEvent(tcell.NewEventResize(130, 45))
	hs.waitText("Stack")
}

func TestHostileNamesPrintLiterally(t *testing.T) {
	evil := "[red]evil\x1b[2J"
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		s.UpdateVM("local:9", func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = "local:9", 9, evil, true, time.Now()
		})
		s.SetThreads("local:9", []monitor.Thread{{ID: 1, Name: evil, State: "running"}})
	})
	hs.waitFor("both escaped names", func(s string) bool { return strings.Count(s, `[red]evil\x1b[2J`) >= 2 })
	for _, line := range hs.text() {
		if strings.ContainsRune(line, 0x1b) {
			t.Fatalf("an escape character reached the screen: %q", line)
		}
	}
}

func TestProfilingKeySavesAndShowsTrace(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'p')
	hs.waitText("tracing com.example.mail")
	hs.waitFor("start", func(string) bool { return hs.ctrl.called("profile start local:8000") })
	hs.key(tcell.KeyRune, 'p')
	hs.waitFor("stop", func(string) bool { return hs.ctrl.called("profile stop local:8000") })
	// The profile view replaces the dashboard; its method table shows.
	hs.waitText("Incl CPU ms")
	files, _ := filepath.Glob(filepath.Join(hs.dash.cfg.TraceDir, "com.example.mail-*.trace"))
	if len(files) != 1 {
		t.Fatalf("saved traces: %v", files)
	}
	hs.key(tcell.KeyRune, 'q') // leaves the profile view, not the program
	hs.waitText("Binder:1234_1")
	// The saved file's path shows in the status line and stays in the
	// message history.
	hs.waitText("trace saved to /")
	hs.key(tcell.KeyRune, 'M')
	hs.waitText("Messages")
	hs.waitText("tracing com.example.mail")
	hs.waitText("trace saved to " + files[0])
	hs.key(tcell.KeyEscape, 0)
	hs.waitGone("Messages")
}

// Saved names carry no ':' (process names such as com.example:remote) nor
// path separators.
func TestFileSafeNames(t *testing.T) {
	for in, want := range map[string]string{
		"com.example:remote": "com.example_remote", "a/b\\c": "a_b_c", "..": "vm", "": "vm", "ok.app": "ok.app",
		// issue 37 #15: C1 controls and bidirectional overrides too
		"evil\u009b2J": "evil_2J", "gpj.\u202eexe": "gpj._exe", "a\u2066b\u2069": "a_b_", "\xffx": "_x", "été": "été",
	} {
		if got := fileSafe(in); got != want {
			t.Errorf("fileSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExitAsksFirst(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'X')
	hs.waitText("make com.example.mail (pid 1234) exit?")
	hs.key(tcell.KeyRune, 'n')
	hs.waitText("cancelled")
	hs.key(tcell.KeyRune, 'X')
	hs.key(tcell.KeyRune, 'y')
	hs.waitFor("EXIT", func(string) bool { return hs.ctrl.called("exit local:8000 1") })
	if hs.ctrl.called("exit local:8001 1") {
		t.Fatal("EXIT went to the wrong VM")
	}
}

func TestThreadDumpKeyShowsAnalysis(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'd')
	hs.waitFor("dump requested", func(string) bool { return hs.ctrl.called("dump local:8000") })
	hs.waitText("Store.save")
	hs.waitFor("deadlock banner", func(s string) bool { return strings.Contains(strings.ToLower(s), "deadlock") })
	hs.key(tcell.KeyRune, 'q')
	hs.waitText("Binder:1234_1")
}

func TestHeapHistoryNativeAndHistogram(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		twoVMs(s)
		now := time.Now()
		var hist []monitor.HeapSample
		for i := 1; i <= 3; i++ {
			hist = append(hist, monitor.HeapSample{Time: now, AllocatedBytes: uint64(i) << 20, SizeBytes: 12 << 20, GCCount: i})
		}
		s.SetHeaps("local:8000", []monitor.Heap{{ID: 1, MaxBytes: 256 << 20, SizeBytes: 12 << 20, AllocatedBytes: 3 << 20, Objects: 91234, GCCount: 3, History: hist}})
	})
	hs.waitText("allocated over 3 GCs: 1.0M → 3.0M")
	hs.waitText("▃▅█ allocated over 3 GCs")
	// Native heap: a Dalvik-style map with two pieces.
	w := ddm.NewSegmentWriter(ddm.TypeNHSG, 1, 8)
	w.Start(0x40008000)
	w.Append(ddm.NewState(ddm.KindNative, ddm.SolidityHard), 100)
	w.Append(ddm.StateFree, 28)
	w.Start(0x41a00000)
	w.Append(ddm.NewState(ddm.KindNative, ddm.SolidityHard), 400)
	hs.store.SetNativeSegments("local:8000", heap.NewSnapshot(1, ddm.TypeNHSG, w.Segments()))
	hs.key(tcell.KeyRune, 'n')
	hs.waitText("native heap  used 3.9K  free 224B  in 2 pieces")
	hs.waitText("█ native")
	hs.waitGone("1-byte[]")
	hs.waitFor("native requested", func(string) bool {
		return hs.ctrl.called("segopts local:8000 {Managed:true Objects:false Native:true}")
	})
	hs.key(tcell.KeyRune, 'n')
	hs.waitGone("native heap  used")
	// The object-size histogram asks for HPSO and draws the buckets.
	hs.key(tcell.KeyRune, 'i')
	hs.waitFor("objects requested", func(string) bool {
		return hs.ctrl.called("segopts local:8000 {Managed:true Objects:true Native:false}")
	})
	seg, err := ddm.DecodeHeapSegment(ddm.TypeHPSO, []byte{0, 0, 0, 1, 8, 0x12, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x3C,
		0x01, 0x01, 0x19, 0x03, 0x00, 0x09, 0x91, 0xFF, 0x11, 0x2B})
	if err != nil {
		t.Fatal(err)
	}
	hs.store.SetSegments("local:8000", heap.NewSnapshot(1, ddm.TypeHPSO, []ddm.HeapSegment{*seg}))
	hs.waitText("objects by size  3 objects, 2.4K")
	hs.waitText("2K-4K")
	hs.key(tcell.KeyRune, 'i')
	hs.waitText("316 units of 8B")
}

func TestAllocationPane(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'a')
	hs.waitFor("REAL", func(string) bool { return hs.ctrl.called("real local:8000") })
	hs.waitText("java.lang.String")
	hs.waitText("byte[]")
	hs.key(tcell.KeyRune, 't')
	hs.waitFor("tracking on", func(string) bool { return hs.ctrl.called("reae local:8000 true") })
	hs.key(tcell.KeyRune, 'q')
	hs.waitText("Binder:1234_1")
}

// H keeps the dump as the VM sent it (Android's HPROF, which the viewer
// analyses best; spec/hprof-analysis.md D5, D15), byte for byte.
func TestHeapDumpKeySavesAndroidHPROF(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'H')
	hs.waitFor("dump", func(string) bool { return hs.ctrl.called("hpds local:8000") })
	hs.waitText(".hprof — 1.0.3 · ") // saved, then the heap dump viewer opens on it
	files, _ := filepath.Glob(filepath.Join(hs.dash.cfg.TraceDir, "com.example.mail-*.hprof"))
	if len(files) != 1 {
		t.Fatalf("saved dumps: %v", files)
	}
	got, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	want, err := hprof.Synth{Seed: 1}.Bytes()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("saved %d bytes, the VM sent %d (%v)", len(got), len(want), err)
	}
}
