package dumpview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/testkit/screentext"
	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/tui/style"
)

var colour = style.Palette{}

func loadDump(t *testing.T, name string) *threaddump.Dump {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "threaddump", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := threaddump.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// harness draws a View on a simulated screen and feeds it keys.
type harness struct {
	t      *testing.T
	v      *View
	screen tcell.SimulationScreen
	quits  int
	focus  tview.Primitive
}

func newHarness(t *testing.T, d *threaddump.Dump, pal style.Palette, w, h int) *harness {
	t.Helper()
	hs := &harness{t: t, screen: tcell.NewSimulationScreen("UTF-8")}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.screen.Fini)
	hs.screen.SetSize(w, h)
	hs.v = New(Options{Title: "traces.txt", Palette: pal, Quit: func() { hs.quits++ }})
	hs.v.SetDump(d)
	hs.v.SetRect(0, 0, w, h)
	hs.focus = hs.v
	hs.draw()
	return hs
}

func (hs *harness) draw() {
	hs.screen.Clear()
	hs.v.Draw(hs.screen)
	hs.screen.Show()
}

func (hs *harness) key(k tcell.Key, r rune) {
	hs.v.InputHandler()(tcell.NewEventKey(k, r, 0), func(p tview.Primitive) { hs.focus = p })
	hs.draw()
}

func (hs *harness) keys(s string) {
	for _, r := range s {
		hs.key(tcell.KeyRune, r)
	}
}

// lines returns the screen as text, one rune per cell (so a rune's index
// in its line is its x).
func (hs *harness) lines() []string {
	return screentext.Cells(hs.screen)
}

func (hs *harness) text() string { return strings.Join(hs.lines(), "\n") }

// find returns the cell position of the first occurrence of s, or -1, -1.
func (hs *harness) find(s string) (int, int) {
	for y, l := range hs.lines() {
		if i := strings.Index(l, s); i >= 0 {
			return len([]rune(l[:i])), y
		}
	}
	return -1, -1
}

func (hs *harness) mustFind(s string) (int, int) {
	hs.t.Helper()
	x, y := hs.find(s)
	if x < 0 {
		hs.t.Fatalf("screen lacks %q:\n%s", s, hs.text())
	}
	return x, y
}

// region returns the text inside p's rectangle, its lines joined with
// spaces and runs of blanks squeezed, so wrapped text reads as one line.
func (hs *harness) region(p tview.Primitive) string {
	x, y, w, h := p.GetRect()
	var rows []string
	for _, l := range hs.lines()[y : y+h] {
		r := []rune(l)
		rows = append(rows, string(r[x:min(x+w, len(r))]))
	}
	return strings.Join(strings.Fields(strings.Join(rows, " ")), " ")
}

func (hs *harness) style(x, y int) (fg, bg tcell.Color, attr tcell.AttrMask) {
	cells, w, _ := hs.screen.GetContents()
	return cells[y*w+x].Style.Decompose()
}

// tableNames returns the names of the threads in the table, top down,
// after checking that each is on screen.
func (hs *harness) tableNames() []string {
	hs.t.Helper()
	var names []string
	for _, i := range hs.v.rows {
		name := hs.v.process().Threads[i].Name
		hs.mustFind(name)
		names = append(names, name)
	}
	return names
}

func TestThreadTableColouredByState(t *testing.T) {
	hs := newHarness(t, loadDump(t, "spec_example_art10.txt"), colour, 160, 40)
	for _, tc := range []struct{ name, state, class string }{
		{"Transfer-Thread", "Blocked", "monitor"},
		{"Signal Catcher", "Runnable", "running"},
		{"HeapTaskDaemon", "WaitingForTaskProcessor", "vmwait"},
		{"RenderThread", "(not attached)", "native"},
	} {
		_, y := hs.mustFind(tc.name + " ")
		line := hs.lines()[y]
		x := strings.Index(line, tc.state)
		if x < 0 {
			t.Fatalf("row of %s lacks state %q: %q", tc.name, tc.state, line)
		}
		fg, _, _ := hs.style(len([]rune(line[:x])), y)
		if want := colour.ThreadState(tc.class); fg != want {
			t.Errorf("%s state colour %v, want %v (%s)", tc.name, fg, want, tc.class)
		}
	}
	if colour.ThreadState("monitor") == colour.ThreadState("running") {
		t.Fatal("palette gives blocked and running the same colour; the test proves nothing")
	}

	// NO_COLOR: the same table in the default colour.
	hs = newHarness(t, loadDump(t, "spec_example_art10.txt"), style.Palette{NoColor: true}, 160, 40)
	_, y := hs.mustFind("Transfer-Thread ")
	line := hs.lines()[y]
	fg, _, _ := hs.style(len([]rune(line[:strings.Index(line, "Blocked")])), y)
	if fg != tcell.ColorDefault {
		t.Errorf("NO_COLOR state colour %v", fg)
	}
}

func TestDeadlockBannerAndJump(t *testing.T) {
	hs := newHarness(t, loadDump(t, "art14_deadlock3.txt"), colour, 200, 50)
	x, y := hs.mustFind("DEADLOCK (3 threads, press d to jump)")
	if fg, bg, _ := hs.style(x, y); bg != colour.Warning() || fg != tcell.ColorDefault {
		t.Errorf("banner in %v on %v, want the terminal's own text colour on %v (bright white fails on a light terminal)", fg, bg, colour.Warning())
	}
	// The chain in wait order from the lowest tid, wherever the banner wraps.
	var banner []string
	for _, l := range hs.lines()[y : y+4] {
		banner = append(banner, strings.TrimSpace(l))
	}
	joined := strings.Join(banner, " ")
	want := `"SyncWorker" (tid 14) waits for <0x04f1b3a7> (a com.example.ledger.Ledger) held by "DbWriter" (tid 21), which waits for <0x0c92e5d0> (a com.example.ledger.AuditTrail) held by "AuditLog" (tid 17), which waits for <0x0a57f1e9> (a java.lang.Class<com.example.ledger.Cache>) held by "SyncWorker" (tid 14)`
	if !strings.Contains(joined, want) {
		t.Errorf("banner reads\n%s\nwant it to contain\n%s", joined, want)
	}

	for _, wantName := range []string{"SyncWorker", "DbWriter", "AuditLog", "SyncWorker"} {
		hs.key(tcell.KeyRune, 'd')
		if got := hs.v.process().Threads[hs.v.selectedThread()].Name; got != wantName {
			t.Fatalf("d selected %q, want %q", got, wantName)
		}
		hs.mustFind("Stack · " + wantName)
	}
	hs.mustFind("- waiting to lock <0x04f1b3a7> (a com.example.ledger.Ledger)")
	hs.mustFind("in deadlock 1 of 1")

	// No deadlock, no banner.
	hs = newHarness(t, loadDump(t, "art7_idle_main.txt"), colour, 200, 50)
	if x, _ := hs.find("DEADLOCK"); x >= 0 {
		t.Errorf("banner shown without a deadlock:\n%s", hs.text())
	}
	hs.key(tcell.KeyRune, 'd') // harmless
}

func TestStackAfterSelection(t *testing.T) {
	hs := newHarness(t, loadDump(t, "spec_example_art10.txt"), colour, 240, 50)
	hs.mustFind("Stack · main")
	hs.mustFind("at com.example.deadlock.Bank.transfer(Bank.java:31)")
	x, y := hs.mustFind("- waiting to lock <0x0b5e7a21> (a com.example.deadlock.Account) held by thread 12 (Transfer-Thread)")
	if fg, _, _ := hs.style(x, y); fg != colour.Warning() {
		t.Errorf("waiting line colour %v", fg)
	}
	x, y = hs.mustFind("- locked <0x03c1f8e6>")
	if fg, _, _ := hs.style(x, y); fg != colour.Accent() {
		t.Errorf("locked line colour %v", fg)
	}

	hs.key(tcell.KeyRune, 'j')
	hs.mustFind("Stack · Signal Catcher")
	hs.mustFind("native: #05 pc 000000000047e3dc  /apex/com.android.runtime/lib64/libart.so (art::SignalCatcher::HandleSigQuit+1636)")
	hs.mustFind("Runnable: running or ready to run Java code")
	if strings.Contains(hs.region(hs.v.stack), "Bank.transfer") {
		t.Error("previous thread's stack still shown")
	}
	hs.key(tcell.KeyDown, 0)
	hs.mustFind("Stack · HeapTaskDaemon")
	hs.key(tcell.KeyRune, 'G')
	hs.mustFind("Stack · RenderThread")
	hs.key(tcell.KeyRune, 'g')
	hs.mustFind("Stack · main")

	// Tab: the movement keys scroll the stack instead.
	hs = newHarness(t, loadDump(t, "spec_example_art10.txt"), colour, 240, 20)
	hs.key(tcell.KeyTab, 0)
	hs.key(tcell.KeyRune, 'j')
	hs.mustFind("Stack · main")
	if row, _ := hs.v.stack.GetScrollOffset(); row != 1 {
		t.Errorf("stack scrolled to %d, want 1", row)
	}
	if strings.Contains(hs.region(hs.v.stack), `"main" prio=5 tid=1 Blocked`) {
		t.Error("the stack's first line is still shown after scrolling")
	}
	hs.key(tcell.KeyTab, 0)
	hs.key(tcell.KeyRune, 'j')
	hs.mustFind("Stack · Signal Catcher")
}

func TestFilter(t *testing.T) {
	hs := newHarness(t, loadDump(t, "spec_example_art10.txt"), colour, 160, 40)
	hs.key(tcell.KeyRune, '/')
	if hs.focus != hs.v.Footer().Field() {
		t.Fatal("/ did not focus the prompt")
	}
	hs.keys("TRANS")
	if got := hs.tableNames(); len(got) != 1 || got[0] != "Transfer-Thread" {
		t.Fatalf("filtered rows %q", got)
	}
	if strings.Contains(hs.region(hs.v.table), "Signal Catcher") {
		t.Error("a filtered-out thread is in the table")
	}
	hs.key(tcell.KeyEnter, 0)
	hs.mustFind(`filter "TRANS" (1 of 5)`)
	hs.mustFind("Stack · Transfer-Thread")
	hs.keys("q") // not typed into the closed prompt: quits
	if hs.quits != 1 {
		t.Errorf("q after the filter: %d quits", hs.quits)
	}

	// Esc in the prompt restores the previous filter; Esc outside clears it.
	hs.key(tcell.KeyRune, '/')
	hs.keys("x")
	hs.key(tcell.KeyEscape, 0)
	hs.mustFind(`filter "TRANS" (1 of 5)`)
	hs.key(tcell.KeyEscape, 0)
	if got := len(hs.tableNames()); got != 5 {
		t.Errorf("after Esc %d rows", got)
	}

	// An inverted filter, by state.
	hs.key(tcell.KeyRune, '/')
	hs.keys("!blocked")
	hs.key(tcell.KeyEnter, 0)
	eqStrings(t, "not blocked", hs.tableNames(), []string{"Signal Catcher", "HeapTaskDaemon", "RenderThread"})
	if strings.Contains(hs.region(hs.v.table), "Transfer-Thread") {
		t.Error("an excluded thread is in the table")
	}

	// Jumping to a filtered-out thread clears the filter.
	hs.key(tcell.KeyRune, 'm')
	hs.mustFind("Stack · main")
	if hs.v.Filter() != "" {
		t.Errorf("filter %q kept after jumping to a hidden thread", hs.v.Filter())
	}
}

func eqStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestSort(t *testing.T) {
	hs := newHarness(t, loadDump(t, "art14_deadlock3.txt"), colour, 200, 50)
	first := func() string {
		return hs.v.process().Threads[hs.v.rows[0]].Name
	}
	for _, tc := range []struct {
		keys, first, header string
	}{
		{"c", `pool "worker" #2 ✓`, "sort cpu ▼"},
		{"n", "AuditLog", "sort name ▼"},
		{"r", "Thread-9", "sort name ▲"},
		{"r", "AuditLog", "sort name ▼"},
		{"t", "main", "sort tid ▼"},
		{"s", "main", "sort state ▼"},
		{"o", "main", "sort dump order ▼"},
	} {
		hs.keys(tc.keys)
		if got := first(); got != tc.first {
			t.Errorf("after %q first row %q, want %q", tc.keys, got, tc.first)
		}
		hs.mustFind(tc.header)
	}
	// By state: the five monitor-class threads first, then running ones.
	hs.keys("s")
	var states []string
	for _, i := range hs.v.rows[:7] {
		states = append(states, hs.v.process().Threads[i].StateInfo().Class)
	}
	eqStrings(t, "state order", states, []string{"monitor", "monitor", "monitor", "monitor", "monitor", "running", "running"})
	// The tid sort puts unattached threads last.
	hs.keys("t")
	if last := hs.v.process().Threads[hs.v.rows[len(hs.v.rows)-1]]; !last.Unattached {
		t.Errorf("last by tid: %q", last.Name)
	}
}

func TestHostileThreadName(t *testing.T) {
	in := "----- pid 7 at 2024-01-01 00:00:00 -----\nCmd line: [blue]app\x07\nDALVIK THREADS (1):\n" +
		"\"[red]evil\x1b[2J\" prio=5 tid=1 Blocked\n  at [red]x.Y.z(Y.java:1)\n  - waiting to lock <[green]0x1> (a [::b]T) held by thread 1\n\n----- end 7 -----\n"
	d, err := threaddump.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, d, colour, 160, 30)
	x, y := hs.mustFind(`[red]evil\x1b[2J`)
	if fg, _, _ := hs.style(x, y); fg == tcell.ColorRed {
		t.Error("thread name turned red")
	}
	hs.mustFind(`Stack · [red]evil\x1b[2J`)
	hs.mustFind(`at [red]x.Y.z(Y.java:1)`)
	hs.mustFind(`<[green]0x1> (a [::b]T)`)
	hs.mustFind(`pid 7 [blue]app\x07`)
	cells, _, _ := hs.screen.GetContents()
	for _, c := range cells {
		for _, r := range c.Runes {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("control character %#x reached the screen", r)
			}
		}
	}
}

func TestMainThreadLine(t *testing.T) {
	hs := newHarness(t, loadDump(t, "spec_example_art10.txt"), colour, 200, 40)
	want := `main thread: "main" (tid 1) is Blocked: waiting to enter a synchronized block or method whose monitor another thread holds; ` +
		`at com.example.deadlock.Bank.transfer(Bank.java:31), waiting to lock <0x0b5e7a21> (a com.example.deadlock.Account) ` +
		`held by "Transfer-Thread" (tid 12); it is part of a deadlock (m: jump)`
	if got := hs.region(hs.v.mainLine); got != want {
		t.Errorf("main line\n%s\nwant\n%s", got, want)
	}
	hs.keys("jj")
	hs.key(tcell.KeyRune, 'm')
	hs.mustFind("Stack · main")

	hs = newHarness(t, loadDump(t, "art7_idle_main.txt"), colour, 200, 40)
	hs.mustFind("main thread (idle):")
}

func TestProcessSelector(t *testing.T) {
	hs := newHarness(t, loadDump(t, "multi_process_art10.txt"), colour, 200, 40)
	hs.mustFind("process 1/3")
	hs.mustFind("pid 5120 com.example.player")
	hs.key(tcell.KeyRune, ']')
	hs.mustFind("process 2/3")
	hs.mustFind("pid 1432 system_server")
	hs.mustFind("android.display")
	if x, _ := hs.find("ExoPlayer:Loader"); x >= 0 {
		t.Error("first process's threads still listed")
	}
	hs.keys("]]")
	hs.mustFind("pid 5120 com.example.player")
	hs.key(tcell.KeyRune, '[')
	hs.mustFind("pid 612 /system/bin/surfaceflinger")
	hs.mustFind(`main thread: "surfaceflinger" is (not attached)`)

	// One process: no selector line.
	hs = newHarness(t, loadDump(t, "spec_example_art10.txt"), colour, 200, 40)
	if x, _ := hs.find("process 1/1"); x >= 0 {
		t.Error("selector shown for a single process")
	}
}

func TestHelpFromKeyTable(t *testing.T) {
	hs := newHarness(t, loadDump(t, "spec_example_art10.txt"), colour, 160, 50)
	hs.key(tcell.KeyRune, '?')
	hs.mustFind("Thread dump keys")
	for _, row := range hs.v.Keys().Help() {
		hs.mustFind(row.Help)
	}
	hs.key(tcell.KeyRune, 'j') // ignored while help is shown
	hs.key(tcell.KeyRune, '?')
	hs.mustFind("Stack · main")
	if x, _ := hs.find("Thread dump keys"); x >= 0 {
		t.Error("help still shown")
	}
}

func TestTruncatedAndNarrow(t *testing.T) {
	hs := newHarness(t, loadDump(t, "truncated_art10.txt"), colour, 90, 40)
	hs.mustFind("TRUNCATED")
	hs.key(tcell.KeyRune, 'G')
	hs.mustFind("the dump ends inside this thread")
	hs.mustFind("43:   at android.os.Looper.lo")
	// Narrow: the stack pane sits under the table.
	_, tableY := hs.mustFind("Threads 3")
	_, stackY := hs.mustFind("Stack · CameraHandler")
	if stackY <= tableY {
		t.Errorf("stack title at row %d, table title at %d: want the stack below", stackY, tableY)
	}
	hs = newHarness(t, loadDump(t, "truncated_art10.txt"), colour, 160, 40)
	_, tableY = hs.mustFind("Threads 3")
	_, stackY = hs.mustFind("Stack · main")
	if stackY != tableY {
		t.Errorf("wide layout: stack title row %d, table title row %d", stackY, tableY)
	}
}

func TestEmptyView(t *testing.T) {
	hs := newHarness(t, nil, colour, 80, 20)
	hs.mustFind("no process in this dump")
	hs.keys("jkdm[]/x")
	hs.key(tcell.KeyEnter, 0)
	hs.keys("csq")
	if hs.quits != 1 {
		t.Errorf("quits %d", hs.quits)
	}
}

func TestRunQuitsOnQ(t *testing.T) {
	screen := tcell.NewSimulationScreen("UTF-8")
	done := make(chan error, 1)
	sh, v := NewShell(loadDump(t, "spec_example_art10.txt"), RunOptions{Title: "t", Screen: screen, Palette: &colour})
	app := sh.App()
	// The screen is read on the UI goroutine, after each draw (tview calls
	// this before its own Show, hence the Show here).
	drawn := make(chan string, 16)
	app.SetAfterDrawFunc(func(s tcell.Screen) {
		s.Show()
		cells, _, _ := screen.GetContents()
		select {
		case drawn <- cellsText(cells):
		default:
		}
	})
	go func() { done <- sh.Run() }()
	deadline := time.After(10 * time.Second)
	for first := ""; !strings.Contains(first, "Transfer-Thread"); {
		select {
		case first = <-drawn:
		case <-deadline:
			t.Fatal("first frame never drawn")
		}
	}
	screen.InjectKey(tcell.KeyRune, 'j', 0)
	screen.InjectKey(tcell.KeyRune, 'q', 0)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-deadline:
		t.Fatal("q did not stop the application")
	}
	if v.selectedThread() != 1 {
		t.Errorf("j before q selected thread %d", v.selectedThread())
	}
}

func cellsText(cells []tcell.SimCell) string {
	var b strings.Builder
	for _, c := range cells {
		b.WriteString(string(c.Runes))
	}
	return b.String()
}

// The stack wraps between words on a narrow screen: every word shown is a
// word of the stack's text (issue 29 #16: `sta│te=S` was cut mid-word).
func TestStackWrapsBetweenWords(t *testing.T) {
	hs := newHarness(t, loadDump(t, "spec_example_art10.txt"), colour, 80, 24)
	hs.mustFind("Stack · main")
	words := map[string]bool{}
	for _, w := range strings.Fields(hs.v.stack.GetText(true)) {
		words[w] = true
	}
	x, y, w, h := hs.v.stack.GetInnerRect()
	var shown []string
	for _, l := range hs.lines()[y : y+h] {
		r := []rune(l)
		shown = append(shown, strings.Fields(string(r[x:min(x+w, len(r))]))...)
	}
	if len(shown) < 10 {
		t.Fatalf("the stack shows %d words: %q", len(shown), shown)
	}
	for _, w := range shown {
		if !words[w] && len(w) < 60 { // a word longer than the pane is cut where it must be
			t.Errorf("%q is not a word of the stack: wrapped mid-word", w)
		}
	}
}

// The thread names show in a 120-column terminal, where the table has
// half the width: the name comes right after the tid in the width budget
// (issue 38 #3: `TID SYSTID STATE CPU PRIO` and blank columns, the
// deadlocked threads indistinguishable).
func TestNamesShowInAHalfWidthTable(t *testing.T) {
	for _, tc := range []struct {
		w, h int
		want []string
	}{
		{120, 40, []string{"NAME", "⚠ DbWriter", "⚠ AuditLog", "⚠ SyncWorker", "STATE", "main Blocked"}},
		{80, 24, []string{"NAME", "STATE", "main Blocked"}}, // four rows fit under the banner
	} {
		size := [2]int{tc.w, tc.h}
		hs := newHarness(t, loadDump(t, "art14_deadlock3.txt"), colour, size[0], size[1])
		table := hs.region(hs.v.tbl)
		for _, want := range tc.want {
			if !strings.Contains(table, want) {
				t.Errorf("%dx%d: the thread table lacks %q:\n%s", size[0], size[1], want, hs.text())
			}
		}
	}
}
