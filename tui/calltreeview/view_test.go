package calltreeview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/testkit/screentext"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

const hostile = "[red]x\x1b[2J"

// testProfile: main runs Main.run [0,100] → Worker.compute [10,90] → five
// Util.hash calls of 4 µs, then evil [92,96]; worker calls Util.hash [0,
// 10]; and a worker exit with an empty stack (a record not placed). CPU
// and wall are equal.
func testProfile(t testing.TB) *trace.Profile {
	t.Helper()
	tr := &trace.Trace{Header: trace.Header{Version: 3, Clocks: trace.Dual,
		Threads: []trace.Thread{{ID: 1, Name: "main"}, {ID: 2, Name: "worker"}},
		Methods: []trace.Method{
			{ID: 4, Class: "app.Main", Name: "run", Signature: "()V"},
			{ID: 8, Class: "app.Worker", Name: "compute", Signature: "(I)I"},
			{ID: 12, Class: "app.Util", Name: "hash", Signature: "(Ljava/lang/Object;)I"},
			{ID: 16, Class: "evil", Name: hostile, Signature: "()V"},
		}}}
	ev := func(th uint16, a trace.Action, id uint32, at uint32) {
		tr.Events = append(tr.Events, trace.Event{Thread: th, Action: a, MethodID: id, Time: [2]uint32{at, at}})
	}
	ev(1, trace.Enter, 4, 0)
	ev(1, trace.Enter, 8, 10)
	for i := range uint32(5) {
		ev(1, trace.Enter, 12, 20+10*i)
		ev(1, trace.Exit, 12, 24+10*i)
	}
	ev(1, trace.Exit, 8, 90)
	ev(1, trace.Enter, 16, 92)
	ev(1, trace.Exit, 16, 96)
	ev(1, trace.Exit, 4, 100)
	ev(2, trace.Enter, 12, 0)
	ev(2, trace.Exit, 12, 10)
	ev(2, trace.Exit, 8, 12)
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p, err := trace.ReadProfile(bytes.NewReader(b), trace.BuildOptions{CallTree: true, CallIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type harness struct {
	t      *testing.T
	v      *View
	screen tcell.SimulationScreen
	w, h   int
	quit   int
}

func newHarness(t *testing.T, p *trace.Profile, w, h int) *harness {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Fini)
	hs := &harness{t: t, screen: s, w: w, h: h}
	s.SetSize(w, h)
	host := viewer.Host{Title: "test.trace", Palette: style.Palette{NoColor: true}, Quit: func() { hs.quit++ }}
	hs.v = New(host, p, trace.ClockCPU)
	hs.v.Focus(func(tview.Primitive) {})
	return hs
}

func (hs *harness) lines() []string {
	hs.v.SetRect(0, 0, hs.w, hs.h)
	hs.screen.Clear()
	hs.v.Draw(hs.screen)
	hs.screen.Show()
	return screentext.Trimmed(hs.screen)
}

func (hs *harness) text() string { return strings.Join(hs.lines(), "\n") }

func (hs *harness) key(k tcell.Key) { hs.send(tcell.NewEventKey(k, 0, tcell.ModNone)) }

func (hs *harness) runes(s string) {
	for _, r := range s {
		hs.send(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
}

func (hs *harness) send(ev *tcell.EventKey) {
	hs.lines()
	hs.v.InputHandler()(ev, func(tview.Primitive) {})
}

func (hs *harness) has(what string, want ...string) {
	hs.t.Helper()
	text := hs.text()
	for _, w := range want {
		if !strings.Contains(text, w) {
			hs.t.Fatalf("%s: no %q on screen:\n%s", what, w, text)
		}
	}
}

// row returns the screen line that contains s.
func (hs *harness) row(s string) string {
	for _, l := range hs.lines() {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

func TestTopDownAndBottomUp(t *testing.T) {
	hs := newHarness(t, testProfile(t), 140, 30)
	// Header: thread, clock, and the record not placed.
	hs.has("header", "all threads · thread CPU", "1 records not placed (1 exits from before the trace, 0 exits")
	// Top level: run (100 µs of 112: main's 100 and worker's 12), self
	// 10 + 2 + 4 µs.
	if r := strings.Fields(hs.row("app.Main.run")); len(r) < 7 || r[2] != "0.100" || r[3] != "89.3%" || r[4] != "0.016" || r[6] != "1" {
		t.Fatalf("run row: %q", r)
	}
	// * opens the hot path: run → compute → hash (5 calls, 20 µs).
	hs.runes("*")
	if r := strings.Fields(hs.row("app.Util.hash")); len(r) < 6 || r[1] != "0.020" || r[5] != "5" || !strings.HasPrefix(hs.row("app.Util.hash"), "      app") {
		t.Fatalf("hash under compute: %q\n%s", r, hs.text())
	}
	// The hostile name is drawn as text, not as tags or escapes.
	hs.has("hostile", "evil.[red]x")
	if strings.Contains(hs.text(), "\x1b") {
		t.Fatal("an escape reached the screen")
	}
	// The filter keeps the paths through hash: run, compute, hash, and hash on worker.
	hs.runes("/hash")
	hs.key(tcell.KeyEnter)
	ls := hs.lines()
	text := strings.Join(ls[:len(ls)-1], "\n") // the footer names the selection
	if strings.Contains(text, "evil") || strings.Count(text, "app.Util.hash") != 2 || !strings.Contains(text, "app.Worker.compute") {
		t.Fatalf("filtered:\n%s", text)
	}
	hs.key(tcell.KeyEscape)
	// A leading ! leaves out the paths through hash: compute stays, hash
	// goes (issue 38 #21: one filter rule everywhere).
	hs.runes("/!hash")
	hs.key(tcell.KeyEnter)
	ls = hs.lines()
	text = strings.Join(ls[:len(ls)-1], "\n")
	if strings.Contains(text, "app.Util.hash") || !strings.Contains(text, "app.Worker.compute") || !strings.Contains(text, "app.Main.run") {
		t.Fatalf("filtered with !hash:\n%s", text)
	}
	hs.key(tcell.KeyEscape)
	// Bottom up: hash has 6 calls, 30 µs, exclusive 30.
	hs.runes("2")
	if r := strings.Fields(hs.row("app.Util.hash")); len(r) < 7 || r[0] != "▸" || r[2] != "0.030" || r[4] != "0.030" || r[6] != "6" {
		t.Fatalf("bottom-up hash: %q\n%s", r, hs.text())
	}
	// t: one thread at a time; worker has hash and compute (from the start).
	hs.runes("tt")
	hs.has("worker", "worker (2) · thread CPU")
	if r := strings.Fields(hs.row("app.Util.hash")); r[len(r)-1] != "1" {
		t.Fatalf("worker's hash: %q", r)
	}
	// c: the wall clock.
	hs.runes("c")
	hs.has("clock", "worker (2) · wall clock", "Incl wall ms")
}

func TestFlameChart(t *testing.T) {
	hs := newHarness(t, testProfile(t), 122, 20)
	hs.runes("3")
	ls := hs.lines()
	// The bottom row of the chart (above the footer) is the top level,
	// and run stands on it, 100 of its 122 columns wide.
	bottom, above := ls[len(ls)-2], ls[len(ls)-3]
	if !strings.Contains(bottom, "all threads") {
		t.Fatalf("bottom row %q\n%s", bottom, strings.Join(ls, "\n"))
	}
	if i := strings.Index(above, "app.Main.run"); i != 1 {
		t.Fatalf("run at column %d: %q", i, above)
	}
	// ↑ selects run (the widest callee), Enter zooms into it: run is the
	// bottom row across the whole width, compute stands on it.
	hs.key(tcell.KeyUp)
	hs.has("selected", "app.Main.run  incl 100 µs (89.3%)  self 16 µs")
	hs.key(tcell.KeyEnter)
	ls = hs.lines()
	if !strings.Contains(ls[len(ls)-2], "app.Main.run") || !strings.Contains(ls[len(ls)-3], "app.Worker.compute") {
		t.Fatalf("zoomed:\n%s", strings.Join(ls, "\n"))
	}
	// → goes along the row (evil beside compute), Backspace zooms out.
	hs.key(tcell.KeyUp)
	hs.key(tcell.KeyRight)
	hs.has("evil selected", `evil.[red]x\x1b[2J  incl 4 µs (3.6%)`)
	hs.key(tcell.KeyBackspace2)
	ls = hs.lines()
	if !strings.Contains(ls[len(ls)-2], "all threads") {
		t.Fatalf("zoomed out:\n%s", strings.Join(ls, "\n"))
	}
	hs.key(tcell.KeyBackspace2) // at the top: nothing to leave, no quit
	if hs.quit != 0 {
		t.Fatal("quit")
	}
}

func TestCallChart(t *testing.T) {
	hs := newHarness(t, testProfile(t), 101, 20)
	hs.runes("4")
	hs.has("axis", "main (1) · wall clock", "+101 µs")
	// Depth 0 is run across the width; depth 2 has five hash bars.
	ls := hs.lines()
	if !strings.Contains(ls[3], "app.Main.run") || strings.Count(ls[5], "a…") != 5 {
		t.Fatalf("chart:\n%s", strings.Join(ls, "\n"))
	}
	// ↓ selects run, ↓ again its callee compute; → goes to evil (same depth).
	hs.key(tcell.KeyDown)
	hs.has("run", "app.Main.run  start 0 µs  duration 100 µs  self 16 µs  depth 0")
	hs.key(tcell.KeyDown)
	hs.has("compute", "app.Worker.compute  start 10 µs  duration 80 µs  self 60 µs  depth 1")
	hs.key(tcell.KeyRight)
	hs.has("evil", "start 92 µs  duration 4 µs")
	// + zooms around the selection; Enter shows the call across the width.
	hs.key(tcell.KeyLeft)
	hs.runes("+")
	hs.has("zoomed", "+50 µs")
	hs.key(tcell.KeyEnter)
	hs.has("call", "+80 µs")
	// m narrows every tab to [10, 90): run has 80 µs, compute 80.
	hs.runes("m")
	hs.has("range", "range 10 µs–90 µs wall clock")
	hs.runes("1")
	if r := strings.Fields(hs.row("app.Main.run")); len(r) < 7 || r[2] != "0.080" || r[4] != "0.000" {
		t.Fatalf("run in the range: %q\n%s", r, hs.text())
	}
	hs.runes("R")
	if r := strings.Fields(hs.row("app.Main.run")); r[2] != "0.100" {
		t.Fatalf("whole trace again: %q", r)
	}
	// Another profile in the same tabs (a reused host): all threads, no
	// range, the call chart on its busiest thread.
	hs.runes("tm")
	other := testProfile(t)
	hs.v.Tabs.SetProfile(other, trace.ClockWall)
	hs.has("new profile", "all threads · wall clock")
	hs.runes("4")
	hs.has("chart of the new profile", "main (1) · wall clock", "+101 µs")
}

// TestDeepRecursionHotPath: * on a 100,000-deep recursion opens the path
// (the base stops at 65,536 levels) and draws, every row's key O(1).
func TestDeepRecursionHotPath(t *testing.T) {
	const depth = 100_000
	tr := &trace.Trace{Header: trace.Header{Version: 3, Clocks: trace.Dual, Threads: []trace.Thread{{ID: 1, Name: "main"}},
		Methods: []trace.Method{{ID: 4, Class: "a", Name: "f", Signature: "()V"}}}}
	for i := range uint32(depth) {
		tr.Events = append(tr.Events, trace.Event{Thread: 1, Action: trace.Enter, MethodID: 4, Time: [2]uint32{i, i}})
	}
	for i := range uint32(depth) {
		tr.Events = append(tr.Events, trace.Event{Thread: 1, Action: trace.Exit, MethodID: 4, Time: [2]uint32{depth + i, depth + i}})
	}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p, err := trace.ReadProfile(bytes.NewReader(b), trace.BuildOptions{CallTree: true, CallIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, p, 100, 20)
	hs.runes("*")
	if got := hs.v.Tabs.topDown.Len(); got < 1<<16 {
		t.Fatalf("%d rows after *", got)
	}
	hs.runes("3")
	hs.key(tcell.KeyEnter)
	hs.runes("4")
	hs.key(tcell.KeyDown)
	hs.has("call chart", "a.f  start 0 µs  duration 199.999 ms  self 2 µs  depth 0")
}

// TestCallChartOpensOnMain: with all threads merged the call chart opens on
// the app's main thread, though another thread has more records; without
// a "main" it is the thread whose id is the pid, else the busiest.
func TestCallChartOpensOnMain(t *testing.T) {
	build := func(names [2]string, pid string) *trace.Profile {
		tr := &trace.Trace{Header: trace.Header{Version: 3, Clocks: trace.Dual,
			Threads: []trace.Thread{{ID: 7, Name: names[0]}, {ID: 9, Name: names[1]}},
			Methods: []trace.Method{{ID: 4, Class: "app.Main", Name: "run", Signature: "()V"}}}}
		if pid != "" {
			tr.Options = []trace.Option{{Key: "pid", Value: pid}}
		}
		ev := func(th uint16, a trace.Action, at uint32) {
			tr.Events = append(tr.Events, trace.Event{Thread: th, Action: a, MethodID: 4, Time: [2]uint32{at, at}})
		}
		ev(7, trace.Enter, 0)
		ev(7, trace.Exit, 5)
		for i := range uint32(20) {
			ev(9, trace.Enter, 10*i)
			ev(9, trace.Exit, 10*i+5)
		}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		p, err := trace.ReadProfile(bytes.NewReader(b), trace.BuildOptions{CallTree: true, CallIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	hs := newHarness(t, build([2]string{"main", "worker"}, ""), 100, 20)
	hs.runes("4")
	hs.has("the main thread, not the busiest", "main (7) · wall clock")
	for _, c := range []struct {
		names [2]string
		pid   string
		want  int
	}{
		{[2]string{"main", "worker"}, "", 0},
		{[2]string{"a", "b"}, "7", 0},
		{[2]string{"a", "b"}, "", 1},
		{[2]string{"a", "b"}, "8", 1},
	} {
		if got := mainThread(build(c.names, c.pid)); got != c.want {
			t.Errorf("threads %v, pid %q: chart on thread %d, want %d", c.names, c.pid, got, c.want)
		}
	}
}

// TestTopDownFooterShowsUnplaced: a call that began before the trace
// (worker's compute, exited with an empty stack) has its callee under the
// root: its footer says how much of its inclusive time that is, so incl =
// self + children + unplaced can be read off the screen.
func TestTopDownFooterShowsUnplaced(t *testing.T) {
	hs := newHarness(t, testProfile(t), 160, 20)
	hs.runes("1")
	hs.runes("j") // run, then compute (12 µs, from the trace's start)
	hs.has("compute selected", "app.Worker.compute  incl 12 µs", "self 2 µs", "unplaced 10 µs")
	hs.runes("k")
	if strings.Contains(hs.text(), "unplaced") {
		t.Fatalf("run has all of its time placed, yet:\n%s", hs.text())
	}
}
