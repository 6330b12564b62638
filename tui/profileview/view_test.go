package profileview

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/testkit/screentext"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
)

const hostile = "[red]x\x1b[2J"

// testProfile: main runs Main.run → Worker.compute → Util.hash (called many
// times), plus a method with a hostile name; a worker thread calls only
// Util.hash.
func testProfile(t testing.TB, clocks trace.Clocks) *trace.Profile {
	t.Helper()
	return testProfileWith(t, clocks, trace.BuildOptions{})
}

func testProfileWith(t testing.TB, clocks trace.Clocks, opt trace.BuildOptions) *trace.Profile {
	t.Helper()
	version := 3
	if clocks != trace.Dual {
		version = 2
	}
	tr := &trace.Trace{Header: trace.Header{Version: version, Clocks: clocks,
		Threads: []trace.Thread{{ID: 1, Name: "main"}, {ID: 2, Name: "worker"}},
		Methods: []trace.Method{
			{ID: 4, Class: "app.Main", Name: "run", Signature: "()V", File: "Main.java"},
			{ID: 8, Class: "app.Worker", Name: "compute", Signature: "(I)I"},
			{ID: 12, Class: "app.Util", Name: "hash", Signature: "(Ljava/lang/Object;)I"},
			{ID: 16, Class: "evil", Name: hostile, Signature: "()V"},
		}}}
	now := uint32(0)
	ev := func(th uint16, a trace.Action, id uint32, dt uint32) {
		now += dt
		tr.Events = append(tr.Events, trace.Event{Thread: th, Action: a, MethodID: id, Time: [2]uint32{now, now + now/2}})
	}
	ev(1, trace.Enter, 4, 1)
	ev(1, trace.Enter, 8, 10)
	for range 5 {
		ev(1, trace.Enter, 12, 20)
		ev(1, trace.Exit, 12, 2)
	}
	ev(1, trace.Exit, 8, 50)
	ev(1, trace.Enter, 16, 1)
	ev(1, trace.Exit, 16, 3)
	ev(1, trace.Exit, 4, 5)
	ev(2, trace.Enter, 12, 1)
	ev(2, trace.Exit, 12, 7)
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p, err := trace.ReadProfile(bytes.NewReader(b), opt)
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

func newHarness(t *testing.T, p *trace.Profile) *harness {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Fini)
	hs := &harness{t: t, screen: s, w: 140, h: 30}
	s.SetSize(hs.w, hs.h)
	hs.v = New(Options{Title: "test.trace", Palette: style.Palette{NoColor: true}, Quit: func() { hs.quit++ }})
	hs.v.SetProfile(p)
	hs.v.Focus(func(tview.Primitive) {})
	return hs
}

// lines draws the view and returns the screen as text.
func (hs *harness) lines() []string {
	hs.v.SetRect(0, 0, hs.w, hs.h)
	hs.screen.Clear()
	hs.v.Draw(hs.screen)
	hs.screen.Show()
	return screenLines(hs.screen)
}

func screenLines(s tcell.SimulationScreen) []string {
	return screentext.Trimmed(s)
}

func (hs *harness) text() string { return strings.Join(hs.lines(), "\n") }

func (hs *harness) key(k tcell.Key) { hs.send(tcell.NewEventKey(k, 0, tcell.ModNone)) }

func (hs *harness) runes(s string) {
	for _, r := range s {
		hs.send(tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
}

func (hs *harness) send(ev *tcell.EventKey) {
	hs.lines() // lay out first, as the application would have
	hs.v.InputHandler()(ev, func(tview.Primitive) {})
}

// firstRow is the method name on the first data row of the method table.
func (hs *harness) firstRow() string {
	ls := hs.lines()
	return strings.Fields(ls[2])[0]
}

func (hs *harness) contains(want ...string) {
	hs.t.Helper()
	got := hs.text()
	for _, w := range want {
		if !strings.Contains(got, w) {
			hs.t.Fatalf("screen lacks %q:\n%s", w, got)
		}
	}
}

func (hs *harness) lacks(unwanted ...string) {
	hs.t.Helper()
	got := hs.text()
	for _, w := range unwanted {
		if strings.Contains(got, w) {
			hs.t.Fatalf("screen shows %q:\n%s", w, got)
		}
	}
}

func TestMethodTableShowsMethodsAndClocks(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	hs.contains("app.Main.run", "app.Worker.compute", "app.Util.hash", "Incl CPU ms ▼", "Excl CPU ms", "Incl Wall ms", "Excl Wall ms", "Calls", "test.trace")
	// Main.run: 1 call, its inclusive time 10+5*22+50+1+3+5 = 179 µs of 187.
	p := hs.v.Profile()
	s := p.All.Stats(2)
	if !strings.Contains(hs.text(), millis(s.Inclusive[trace.ClockCPU])) {
		t.Fatalf("inclusive time %s of Main.run not shown", millis(s.Inclusive[trace.ClockCPU]))
	}
	single := newHarness(t, testProfile(t, trace.WallOnly))
	single.contains("Incl Wall ms")
	single.lacks("CPU")
}

func TestSortingChangesFirstRow(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	if got := hs.firstRow(); got != "app.Main.run" {
		t.Fatalf("by inclusive time the first row is %s", got)
	}
	hs.runes("c")
	if got := hs.firstRow(); got != "app.Util.hash" {
		t.Fatalf("by calls the first row is %s", got)
	}
	hs.contains("Calls ▼")
	hs.runes("c") // again: reversed
	if got := hs.firstRow(); got == "app.Util.hash" {
		t.Fatalf("reversed calls order still starts with %s", got)
	}
	hs.runes("e")
	if got := hs.firstRow(); got != "app.Worker.compute" {
		t.Fatalf("by exclusive time the first row is %s", got)
	}
	hs.runes("n")
	if got := hs.firstRow(); got != "app.Main.run" {
		t.Fatalf("by name the first row is %s", got)
	}
	hs.runes("r")
	if got := hs.firstRow(); got != hostileShown {
		t.Fatalf("by name reversed the first row is %s", got)
	}
}

// hostileShown is the hostile method as it must appear: brackets literal,
// the escape character written out.
const hostileShown = `evil.[red]x\x1b[2J`

func TestDrillDownToCalleeAndBack(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	hs.runes("j") // second row by inclusive time: Worker.compute
	hs.key(tcell.KeyEnter)
	hs.contains("Callers (1)", "Callees (1)", "▶", "app.Worker.compute (I)I", "app.Main.run", "app.Util.hash", "(self: exclusive time)")
	// The callee is selected: Enter goes into it.
	hs.key(tcell.KeyEnter)
	// Util.hash is called 5 times by compute and once from the worker's top level.
	hs.contains("app.Util.hash (Ljava/lang/Object;)I", "Callers (2)", "Callees (0)", "(toplevel)")
	lines := strings.Join(hs.lines(), "\n")
	if !strings.Contains(lines, "5/6") || !strings.Contains(lines, "1/6") {
		t.Fatalf("caller rows should read 5/6 and 1/6 calls:\n%s", lines)
	}
	hs.key(tcell.KeyBackspace2)
	hs.contains("app.Worker.compute (I)I", "Callees (1)")
	hs.key(tcell.KeyEscape)
	hs.contains("Incl CPU ms ▼")
	hs.lacks("Callers (")
}

func TestFilterHidesRows(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	hs.runes("/hash")
	hs.contains("/hash", "app.Util.hash")
	hs.lacks("app.Main.run", "app.Worker.compute")
	hs.key(tcell.KeyEnter)
	hs.contains(`filter "hash" (1)`, "app.Util.hash")
	hs.lacks("app.Main.run")
	hs.key(tcell.KeyEscape) // clears the filter
	hs.contains("app.Main.run", "app.Util.hash")
	// A leading ! keeps the methods that do not match (issue 38 #21).
	hs.runes("/!hash")
	hs.key(tcell.KeyEnter)
	hs.contains("app.Main.run", "app.Worker.compute")
	hs.lacks("app.Util.hash")
	hs.key(tcell.KeyEscape)
	// Escape in the prompt restores the earlier filter.
	hs.runes("/zzz")
	hs.lacks("app.Main.run")
	hs.key(tcell.KeyEscape)
	hs.contains("app.Main.run")
}

func TestHostileNameShowsLiterally(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	hs.contains(hostileShown)
	cells, _, _ := hs.screen.GetContents()
	for _, c := range cells {
		for _, r := range c.Runes {
			if r < 0x20 {
				t.Fatalf("control character %#x reached the screen", r)
			}
		}
	}
	// In the drill-down and the status line too.
	hs.runes("/evil")
	hs.key(tcell.KeyEnter)
	hs.key(tcell.KeyEnter)
	hs.contains("evil.[red]x\\x1b[2J ()V")
}

func TestThreadSummaryAndFilter(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	hs.runes("t")
	hs.contains("All threads", "main (1)", "worker (2)", "Records")
	hs.runes("jj") // all → main → worker
	hs.key(tcell.KeyEnter)
	hs.contains("thread worker (2)", "app.Util.hash")
	hs.lacks("app.Main.run")
	hs.runes("a")
	hs.contains("all threads", "app.Main.run")
}

func TestHelpIsGeneratedFromKeyTable(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	hs.h = 60
	hs.screen.SetSize(hs.w, hs.h)
	hs.runes("?")
	rows := hs.v.Keys().Help()
	if len(rows) < 15 {
		t.Fatalf("only %d help rows", len(rows))
	}
	for _, r := range rows {
		hs.contains(r.Help)
	}
	hs.contains("Enter", "Backspace/Esc", "sort by exclusive time")
	hs.runes("?")
	hs.lacks("sort by exclusive time")
	hs.runes("q")
	if hs.quit != 1 {
		t.Fatalf("q called quit %d times", hs.quit)
	}
}

// TestRunOnSimulationScreen drives the whole application: keys injected
// into the screen reach the view, and q ends Run. The screen is read inside
// the application's event loop, where tview draws.
func TestRunOnSimulationScreen(t *testing.T) {
	s := tcell.NewSimulationScreen("UTF-8")
	sh, _ := NewShell(testProfile(t, trace.Dual), RunOptions{Title: "sim.trace", Screen: s})
	app := sh.App()
	s.SetSize(120, 25)
	done := make(chan error, 1)
	go func() { done <- sh.Run() }()
	read := func() string {
		got := make(chan string, 1)
		app.QueueUpdate(func() { got <- strings.Join(screenLines(s), "\n") })
		select {
		case text := <-got:
			return text
		case <-time.After(5 * time.Second):
			t.Fatal("application does not respond")
			return ""
		}
	}
	waitFor := func(want string) {
		t.Helper()
		var text string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if text = read(); strings.Contains(text, want) {
				return
			}
		}
		t.Fatalf("screen never showed %q:\n%s", want, text)
	}
	waitFor("app.Main.run")
	waitFor("sim.trace")
	s.InjectKey(tcell.KeyRune, 'c', tcell.ModNone)
	waitFor("Calls ▼")
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("q did not end Run")
	}
}

// A profile with call trees shows them as tabs beside the method table:
// the tab bar lists them, and the second tab is the top-down tree, whose
// root is the thread's top-level call. One without trees has no tab bar.
func TestCallTreeTabsBesideTheMethodTable(t *testing.T) {
	hs := newHarness(t, testProfileWith(t, trace.Dual, trace.BuildOptions{CallTree: true, CallIndex: true}))
	hs.contains("Methods", "Top Down", "Bottom Up", "Flame Chart", "Call Chart")
	hs.runes("2")
	hs.contains("▸ app.Main.run")  // a node to open, not a table row
	hs.lacks("app.Worker.compute") // under it, closed
	// The header is the trees': their thread and clock, not the table's sort.
	hs.contains("call trees: all threads · thread CPU")
	hs.lacks("sort inclusive")
	hs.runes("t") // the trees' next thread
	hs.contains("call trees: main")
	hs.runes("1")
	hs.contains("app.Worker.compute", "sort inclusive")
	hs.lacks("▸ app.Main.run", "call trees:")

	plain := newHarness(t, testProfile(t, trace.Dual))
	plain.lacks("Top Down", "Flame Chart")
}

// TestRangeNarrowsMethodTable: a time range chosen in the call chart (`m`)
// narrows the Methods tab too, on the range's clock, and the header says
// so; R gives the whole trace back.
func TestRangeNarrowsMethodTable(t *testing.T) {
	hs := newHarness(t, testProfileWith(t, trace.Dual, trace.BuildOptions{CallTree: true, CallIndex: true}))
	hs.contains("app.Util.hash", "Incl CPU ms", "over 2 threads")
	// Wall times are 1.5 × the CPU ones: [0, 40) µs wall holds the entry
	// of run (1.5) and of compute (16.5) on main, nothing of hash (from
	// 46.5 on main, 115.5 on worker).
	hs.v.trees.M.SetRange(trace.ClockWall, 0, 40)
	hs.contains("app.Main.run", "app.Worker.compute", "range 0.000–0.040 ms Wall", "Incl Wall ms")
	hs.lacks("app.Util.hash", "Incl CPU ms")
	g, c, ok := hs.v.rangeGraph()
	compute := int32(-1)
	for i := range hs.v.p.Methods {
		if hs.v.p.Name(int32(i)) == "app.Worker.compute" {
			compute = int32(i)
		}
	}
	if s := g.Stats(compute); !ok || c != trace.ClockWall || s.Inclusive[c] == 0 || s.Inclusive[c] > 40 {
		t.Fatalf("range graph: %v, clock %v, compute %+v", ok, c, s)
	}
	hs.runes("2") // the trees say the clock they are on
	hs.contains("call trees: all threads · wall clock (the range's) · range")
	hs.runes("1")
	hs.v.trees.M.ClearRange()
	hs.contains("app.Util.hash", "Incl CPU ms")
	hs.lacks("range 0.000")
}
