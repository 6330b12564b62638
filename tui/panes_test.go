package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// Panes built alone, each with a fake env instead of a Dashboard: a model
// the test fills, a status sink that records, a navigator and viewers that
// record what they were asked, and owned jobs whose hand-offs to the UI
// goroutine the test runs itself (it is the UI goroutine here).

type recordingStatus struct{ flashed, shown []string }

func (r *recordingStatus) flash(msg string) { r.flashed = append(r.flashed, msg) }
func (r *recordingStatus) show(msg string)  { r.shown = append(r.shown, msg) }

func (r *recordingStatus) last() string {
	if len(r.flashed) == 0 {
		return ""
	}
	return r.flashed[len(r.flashed)-1]
}

type fakeNav struct {
	calls []string
	show  [paneCount]bool
	focus int
	tid   uint64 // the thread under the thread table's cursor (0: none)
	yes   func() // a confirmation asked for
	// choices: a question asked with choose
	choices map[rune]func()
}

func (n *fakeNav) note(format string, a ...any) { n.calls = append(n.calls, fmt.Sprintf(format, a...)) }
func (n *fakeNav) selectVM(key string)          { n.note("select %s", key) }
func (n *fakeNav) shown(p int) bool             { return n.show[p] }
func (n *fakeNav) focused(p int) bool           { return n.focus == p }
func (n *fakeNav) setFocus(p int)               { n.note("focus %d", p); n.focus = p }
func (n *fakeNav) toggle(p int)                 { n.note("toggle %d", p) }
func (n *fakeNav) fitVMPane()                   { n.note("fit") }
func (n *fakeNav) showStack()                   { n.note("stack") }
func (n *fakeNav) threadMoved()                 { n.note("thread moved") }
func (n *fakeNav) selectedThread() (uint64, bool) {
	return n.tid, n.tid != 0
}
func (n *fakeNav) threadCopy(key string, tid uint64) (string, string) {
	n.note("copy %s %d", key, tid)
	return "thread", fmt.Sprintf("%s/%d", key, tid)
}
func (n *fakeNav) confirm(yes func()) { n.note("confirm"); n.yes = yes }
func (n *fakeNav) choose(c map[rune]func()) {
	n.note("choose")
	n.choices = c
}

func (n *fakeNav) asked(call string) bool {
	for _, c := range n.calls {
		if c == call {
			return true
		}
	}
	return false
}

type fakeViews struct{ calls []string }

func (v *fakeViews) openAllocs() { v.calls = append(v.calls, "allocs") }
func (v *fakeViews) openViews()  { v.calls = append(v.calls, "views") }
func (v *fakeViews) openSpy()    { v.calls = append(v.calls, "spy") }
func (v *fakeViews) showProfile(p *trace.Profile, path string) {
	v.calls = append(v.calls, fmt.Sprintf("profile %d threads %s", len(p.Threads), path))
}
func (v *fakeViews) showDump(d *threaddump.Dump) { v.calls = append(v.calls, "dump") }
func (v *fakeViews) heapSaved(app, path string)  { v.calls = append(v.calls, "heap "+app) }

// paneRig is a fake env and what it recorded.
type paneRig struct {
	t      *testing.T
	env    paneEnv
	m      *model
	cfg    *Config
	ctrl   *fakeController
	status *recordingStatus
	nav    *fakeNav
	views  *fakeViews
	now    time.Time
}

func newPaneRig(t *testing.T, vms ...monitor.VM) *paneRig {
	r := &paneRig{t: t, m: newModel(), ctrl: &fakeController{}, status: &recordingStatus{}, nav: &fakeNav{},
		views: &fakeViews{}, now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	r.cfg = &Config{Controller: r.ctrl, Discovery: "scan fake", TraceDir: t.TempDir()}
	r.m.vms = vms
	if len(vms) > 0 {
		r.m.sel = vms[0].Key
	}
	r.nav.show = [paneCount]bool{true, true, true, true, false}
	keys := keymap.New()
	r.env = paneEnv{m: r.m, pal: style.Palette{}, cfg: r.cfg, keys: func() *keymap.Map { return keys },
		now: func() time.Time { return r.now }, status: r.status, work: newJobs(), nav: r.nav, views: r.views}
	t.Cleanup(r.env.work.wg.Wait)
	return r
}

// settle runs the hand-offs of the jobs started, as the UI goroutine
// would, until every job ended and nothing more is posted.
func (r *paneRig) settle() {
	r.t.Helper()
	done := make(chan struct{})
	go func() { r.env.work.wg.Wait(); close(done) }()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case f := <-r.env.work.uiq:
			f()
		case <-done:
			for {
				select {
				case f := <-r.env.work.uiq:
					f()
				default:
					return
				}
			}
		case <-deadline:
			r.t.Fatal("jobs did not end")
		}
	}
}

// draw draws p alone on a w×h simulation screen and returns its lines.
func draw(t *testing.T, p tview.Primitive, w, h int) []string {
	t.Helper()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(w, h)
	p.SetRect(0, 0, w, h)
	p.Draw(s)
	p.Draw(s) // panes that cut rows to their width re-render on the first draw
	s.Show()
	cells, cw, ch := s.GetContents()
	return cellText(cells, cw, ch)
}

func anyLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

func mailVM() monitor.VM {
	return monitor.VM{Key: "local:8000", Source: "local:8000", PID: 1234, App: "com.example.mail", DDM: true,
		VMIdent: "Dalvik v2.1.0"}
}

// The heap pane drawn alone from a fake model: the title names the VM and
// the source, the summary and the bitmap's footer show; its keys reach the
// navigator (h) and the controller (g), and its messages the status sink.
func TestHeapPaneWithFakeEnv(t *testing.T) {
	r := newPaneRig(t, mailVM())
	vm := r.m.vms[0]
	vm.Capabilities = monitor.Capabilities{monitor.FeatHeapSummary: {Source: monitor.SourceDDM}}
	r.m.vms[0] = vm
	r.m.heaps[vm.Key] = []monitor.Heap{{ID: 1, MaxBytes: 256 << 20, SizeBytes: 12 << 20, AllocatedBytes: 8 << 20, Objects: 91234, GCCount: 3}}
	r.m.snaps[vm.Key] = specSnapshot(t)
	p := newHeapPane(r.env)
	p.Update(ChangeAll)
	lines := draw(t, p.Widget(), 100, 24)
	for _, want := range []string{"Heap · com.example.mail · DDM", "objects 91,234", "merged runs (HPSG)"} {
		if !anyLine(lines, want) {
			t.Errorf("no %q in\n%s", want, strings.Join(lines, "\n"))
		}
	}
	r.settle()
	if !r.ctrl.called("segopts local:8000 {Managed:true Objects:false Native:false}") {
		t.Errorf("the shown pane asked for no heap map: %v", r.ctrl.calls)
	}
	bindings := map[string]func(){}
	for _, b := range p.Keys() {
		bindings[b.Name] = b.Action
	}
	bindings["toggle-heap"]()
	if !r.nav.asked(fmt.Sprintf("toggle %d", paneHeap)) {
		t.Errorf("h asked the navigator %v", r.nav.calls)
	}
	bindings["gc"]()
	r.settle()
	if !r.ctrl.called("gc local:8000") || r.status.flashed[0] != "GC requested in com.example.mail" {
		t.Errorf("g: controller %v, status %q", r.ctrl.calls, r.status.flashed)
	}
}

// The heap pane asks for heap maps only while the navigator says it is
// shown, and a VM decided unable to GC is told so, with no request.
func TestHeapPaneHiddenAndUnableWithFakeEnv(t *testing.T) {
	vm := mailVM()
	vm.Capabilities = monitor.Capabilities{monitor.FeatGC: {Source: monitor.SourceNone, Reason: "the VM refuses HPGC"}}
	r := newPaneRig(t, vm)
	r.nav.show[paneHeap] = false
	p := newHeapPane(r.env)
	p.Update(ChangeAll)
	p.gc()
	r.settle()
	if len(r.ctrl.calls) != 0 {
		t.Errorf("requests sent: %v", r.ctrl.calls)
	}
	if r.status.last() != "no GC: the VM refuses HPGC" {
		t.Errorf("status %q", r.status.flashed)
	}
}

// The VM list alone: j selects the next VM through the navigator, Enter
// on it moves the focus to the threads when they are shown.
func TestVMPaneWithFakeEnv(t *testing.T) {
	maps := mailVM()
	maps.Key, maps.Source, maps.PID, maps.App = "local:8001", "local:8001", 5678, "com.example.maps"
	r := newPaneRig(t, mailVM(), maps)
	p := newVMPane(r.env)
	p.Update(ChangeAll)
	lines := draw(t, p.Widget(), 90, 10)
	if !anyLine(lines, "VMs (2)") || !anyLine(lines, "▶") || !anyLine(lines, "com.example.maps") {
		t.Fatalf("VM list:\n%s", strings.Join(lines, "\n"))
	}
	p.Move(1)
	if !r.nav.asked("select local:8001") {
		t.Errorf("j asked %v", r.nav.calls)
	}
	p.Activate()
	if r.nav.focus != paneThreads {
		t.Errorf("Enter left the focus on %d (%v)", r.nav.focus, r.nav.calls)
	}
	r.nav.calls, r.nav.show[paneThreads] = nil, false
	p.Activate()
	if r.nav.asked(fmt.Sprintf("focus %d", paneThreads)) {
		t.Errorf("Enter focused hidden threads: %v", r.nav.calls)
	}
	// An empty list says where it looks: the VM actions' discovery mode.
	r.m.vms = nil
	p.Update(ChangeVMs)
	if lines := draw(t, p.Widget(), 90, 10); !anyLine(lines, "looking (scan fake)") {
		t.Errorf("empty list:\n%s", strings.Join(lines, "\n"))
	}
}

// The VM actions with a fake env: p starts a trace (the status line reads
// it from the VM list through statusInputs), p again saves it and opens the
// profile viewer; X asks the navigator to confirm, and y sends EXIT.
func TestVMActionsWithFakeEnv(t *testing.T) {
	r := newPaneRig(t, mailVM())
	p := newVMPane(r.env)
	sl := newStatusLine(paneEnv{m: r.m, cfg: r.cfg, keys: r.env.keys, now: r.env.now},
		statusInputs{width: func() int { return 200 }, discovery: func() string { return p.discovery },
			tracing: func() profiling { return p.tracing }})
	p.toggleProfiling()
	r.settle()
	if p.tracing != (profiling{"local:8000", "com.example.mail"}) || !r.ctrl.called("profile start local:8000") {
		t.Fatalf("tracing %+v, calls %v", p.tracing, r.ctrl.calls)
	}
	sl.render()
	if txt := sl.view.GetText(true); !strings.Contains(txt, "● tracing com.example.mail") || !strings.Contains(txt, "scan fake") {
		t.Errorf("status line %q", txt)
	}
	p.toggleProfiling()
	r.settle()
	if p.tracing.key != "" || len(r.views.calls) != 1 || !strings.HasPrefix(r.views.calls[0], "profile ") ||
		!strings.Contains(r.views.calls[0], r.cfg.TraceDir) {
		t.Fatalf("after the stop: tracing %+v, viewers %v, status %q", p.tracing, r.views.calls, r.status.flashed)
	}
	if !strings.HasPrefix(r.status.last(), "trace saved to "+r.cfg.TraceDir) {
		t.Errorf("status %q", r.status.flashed)
	}
	sl.render()
	if strings.Contains(sl.view.GetText(true), "tracing") {
		t.Errorf("status line still shows the trace: %q", sl.view.GetText(true))
	}

	p.askExit()
	if r.nav.yes == nil || r.ctrl.called("exit local:8000 1") {
		t.Fatalf("X: nav %v, calls %v", r.nav.calls, r.ctrl.calls)
	}
	if r.status.last() != "make com.example.mail (pid 1234) exit? y: yes, any other key: no" {
		t.Errorf("question %q", r.status.last())
	}
	r.nav.yes()
	r.settle()
	if r.status.last() != "EXIT sent to com.example.mail" {
		t.Errorf("status %q (calls %v)", r.status.flashed, r.ctrl.calls)
	}
}

// The status line alone: flash keeps a message in the history, show
// replaces itself and is kept out of it; the parts come from the model,
// the configuration and statusInputs.
func TestStatusLineWithFakeEnv(t *testing.T) {
	r := newPaneRig(t, mailVM())
	r.cfg.PortError = func(string) string { return "port 8600 is busy" }
	sl := newStatusLine(paneEnv{m: r.m, cfg: r.cfg, keys: r.env.keys, now: r.env.now},
		statusInputs{width: func() int { return 200 }, discovery: func() string { return "adb 127.0.0.1:5037" },
			tracing: func() profiling { return profiling{} }})
	sl.flash("GC requested in com.example.mail")
	sl.show("heap dump: 1 KiB received…")
	txt := sl.view.GetText(true)
	for _, want := range []string{"GC requested in com.example.mail", "1 VM", "selected: com.example.mail (1234)",
		"port 8600 is busy (retrying)", "adb 127.0.0.1:5037"} {
		if !strings.Contains(txt, want) {
			t.Errorf("no %q in %q", want, txt)
		}
	}
	r.now = r.now.Add(flashHold)
	sl.show("heap dump: 2 KiB received…")
	if txt := sl.view.GetText(true); !strings.Contains(txt, "2 KiB received") {
		t.Errorf("after the hold: %q", txt)
	}
	if h := sl.historyText(); !strings.Contains(h, "GC requested") || strings.Contains(h, "received") {
		t.Errorf("history %q", h)
	}
}

// A table that the thread cap or the thread budget stopped says so in its
// title: the VM's error, which says why, may have been replaced by a
// later problem (a hostile VM that floods THCR leaves THST unanswered).
func TestThreadPaneSaysNewerThreadsNotShown(t *testing.T) {
	vm := mailVM()
	vm.TooManyThreads, vm.Err = true, "VM does not answer thread status (THST)"
	r := newPaneRig(t, vm)
	r.m.threads["local:8000"] = []monitor.Thread{{ID: 1, Name: "main", State: "running"}}
	tp := newThreadPane(r.env)
	tp.Update(ChangeAll)
	if lines := draw(t, tp.Widget(), 100, 8); !anyLine(lines, "Threads · com.example.mail (1234) · 1 · newer threads not shown") {
		t.Fatalf("threads:\n%s", strings.Join(lines, "\n"))
	}
}

// The thread and stack panes alone: Enter asks the navigator for the
// stack; the stack pane fetches the thread the navigator names and draws
// what the controller answered.
func TestThreadAndStackPanesWithFakeEnv(t *testing.T) {
	r := newPaneRig(t, mailVM())
	r.m.threads["local:8000"] = []monitor.Thread{{ID: 1, Name: "main", State: "running"}, {ID: 7, Name: "worker", State: "wait"}}
	tp := newThreadPane(r.env)
	tp.Update(ChangeAll)
	if lines := draw(t, tp.Widget(), 100, 8); !anyLine(lines, "Threads · com.example.mail (1234) · 2") || !anyLine(lines, "worker") {
		t.Fatalf("threads:\n%s", strings.Join(lines, "\n"))
	}
	tp.Move(1)
	if !r.nav.asked("thread moved") {
		t.Errorf("cursor move not told: %v", r.nav.calls)
	}
	tp.Activate()
	if !r.nav.asked("stack") {
		t.Errorf("Enter asked %v", r.nav.calls)
	}
	if what, text := tp.CopyText(); what != "thread" || text != "local:8000/7" {
		t.Errorf("copy %q %q", what, text)
	}
	r.nav.tid = 7
	sp := newStackPane(r.env)
	sp.fetch()
	r.settle()
	lines := draw(t, sp.Widget(), 100, 8)
	if !anyLine(lines, "Stack · worker") || !anyLine(lines, "at com.example.Worker.run7(Worker.java:42)") {
		t.Errorf("stack:\n%s", strings.Join(lines, "\n"))
	}
}

// m switches the discovery mode: the VM actions own it, the status line
// shows the new one, and SetScanMode is told (off the UI goroutine) which;
// a third press comes back to the first.
func TestScanModeKey(t *testing.T) {
	set := make(chan int, 4)
	hs := startCfg(t, 120, 30, style.Palette{}, nil, func(c *Config) {
		c.Discovery = "scan 8000-8040 · adb 127.0.0.1:5037"
		c.ScanModes = []string{c.Discovery, "scan 8000-8040", "adb 127.0.0.1:5037"}
		c.SetScanMode = func(i int) { set <- i }
	})
	hs.waitText("0 VMs · scan 8000-8040 · adb 127.0.0.1:5037 · adb 127.0.0.1:5037: 2 devices")
	for _, m := range []string{"scan 8000-8040", "adb 127.0.0.1:5037", "scan 8000-8040 · adb 127.0.0.1:5037"} {
		hs.key(tcell.KeyRune, 'm')
		hs.waitText("discovery: " + m + " · 0 VMs · " + m)
	}
	for _, want := range []int{1, 2, 0} {
		select {
		case got := <-set:
			if got != want {
				t.Fatalf("SetScanMode(%d), want %d", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("SetScanMode(%d) not called", want)
		}
	}
}
