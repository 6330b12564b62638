package allocview

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/screentext"
	"github.com/ddmtui/ddmtui/tui/style"
)

var (
	fooBar  = ddm.AllocFrame{Class: "Lcom/example/Foo;", Method: "bar", File: "Foo.java", Line: 42}
	mainRun = ddm.AllocFrame{Class: "Lcom/example/Main;", Method: "run", File: "Main.java", Line: 7}
	otherGo = ddm.AllocFrame{Class: "Lcom/example/Other;", Method: "go", File: "Other.java", Line: 3}
	bufGrow = ddm.AllocFrame{Class: "Lcom/example/Buf;", Method: "grow", File: "Buf.java", Line: 10}
)

// sample is six allocations, newest first as ART sends them:
// java.lang.String 3 × (24, 40, 24) = 88 B, byte[] 2 × (100, 300) = 400 B,
// int[] 1 × 16 B; 504 B in all.
func sample() *allocs.Table {
	return allocs.New(&ddm.Allocations{Entries: []ddm.Allocation{
		{Size: 24, ThreadID: 1, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{fooBar, mainRun}},
		{Size: 100, ThreadID: 2, Class: "[B", Frames: []ddm.AllocFrame{bufGrow}},
		{Size: 40, ThreadID: 1, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{fooBar, otherGo}},
		{Size: 16, ThreadID: 2, Class: "[I"},
		{Size: 24, ThreadID: 2, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{fooBar, mainRun}},
		{Size: 300, ThreadID: 1, Class: "[B", Frames: []ddm.AllocFrame{bufGrow}},
	}}, allocs.NewestFirst)
}

// harness draws a View on a simulated screen and feeds it keys.
type harness struct {
	t      *testing.T
	v      *View
	screen tcell.SimulationScreen
	quits  int
}

func newHarness(t *testing.T, opt Options, tab *allocs.Table) *harness {
	t.Helper()
	hs := &harness{t: t, screen: tcell.NewSimulationScreen("UTF-8")}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.screen.Fini)
	hs.screen.SetSize(140, 24)
	if opt.Quit == nil {
		opt.Quit = func() { hs.quits++ }
	}
	hs.v = New(opt)
	hs.v.SetTable(tab)
	hs.v.SetRect(0, 0, 140, 24)
	hs.draw()
	return hs
}

func (hs *harness) draw() {
	hs.screen.Clear()
	hs.v.Draw(hs.screen)
	hs.screen.Show()
}

func (hs *harness) key(k tcell.Key, r rune) {
	hs.v.InputHandler()(tcell.NewEventKey(k, r, 0), func(tview.Primitive) {})
	hs.draw()
}

func (hs *harness) keys(s string) {
	for _, r := range s {
		hs.key(tcell.KeyRune, r)
	}
}

func screenLines(s tcell.SimulationScreen) []string {
	return screentext.Cells(s)
}

func (hs *harness) text() string { return strings.Join(screenLines(hs.screen), "\n") }

func (hs *harness) has(want ...string) {
	hs.t.Helper()
	text := hs.text()
	for _, w := range want {
		if !strings.Contains(text, w) {
			hs.t.Fatalf("screen lacks %q:\n%s", w, text)
		}
	}
}

func (hs *harness) lacks(s string) {
	hs.t.Helper()
	if text := hs.text(); strings.Contains(text, s) {
		hs.t.Fatalf("screen shows %q:\n%s", s, text)
	}
}

// row returns the n-th table row below the column titles (0 is the first),
// its blanks squeezed.
func (hs *harness) row(n int) string {
	hs.t.Helper()
	lines := screenLines(hs.screen)
	for y, l := range lines {
		if strings.Contains(l, "COUNT") || strings.Contains(l, "# ") && strings.Contains(l, "SIZE") {
			if y+1+n >= len(lines) {
				break
			}
			return strings.Join(strings.Fields(strings.Trim(lines[y+1+n], "│ ")), " ")
		}
	}
	hs.t.Fatalf("no table on screen:\n%s", hs.text())
	return ""
}

func (hs *harness) rowIs(n int, want string) {
	hs.t.Helper()
	if got := hs.row(n); got != want {
		hs.t.Fatalf("row %d is %q, want %q\n%s", n, got, want, hs.text())
	}
}

const (
	rowString = "3 88 B 29.3 B 17.5 java.lang.String com.example.Foo.bar(Foo.java:42)"
	rowBytes  = "2 400 B 200.0 B 79.4 byte[] com.example.Buf.grow(Buf.java:10)"
	rowInts   = "1 16 B 16.0 B 3.2 int[] (no stack)"
)

func TestContentByClass(t *testing.T) {
	hs := newHarness(t, Options{Title: "com.example.app (pid 42)", Palette: style.Palette{NoColor: true}}, sample())
	hs.has("ddmtui allocs", "com.example.app (pid 42)", "tracking ?", "6 allocations, 504 B", "by class: 3",
		"sort count", "VM sent newest first", "Allocations by class: 3", "CLASS", "TOP SITE")
	hs.rowIs(0, rowString)
	hs.rowIs(1, rowBytes)
	hs.rowIs(2, rowInts)
	if hs.row(3) != "" {
		t.Fatalf("a fourth row: %q", hs.row(3))
	}
	hs.v.SetTracking(true)
	hs.draw()
	hs.has("tracking on")
	hs.v.SetTracking(false)
	hs.draw()
	hs.has("tracking off")
	hs.lacks("tracking on")
}

func TestSortKeysChangeTheFirstRow(t *testing.T) {
	hs := newHarness(t, Options{}, sample())
	for _, c := range []struct {
		keys, header string
		first        string
	}{
		{"b", "sort bytes", rowBytes},
		{"m", "sort mean", rowBytes},
		{"n", "sort name", rowBytes}, // byte[] < int[] < java.lang.String
		{"r", "sort name, reversed", rowString},
		{"r", "sort name", rowBytes},
		{"s", "sort site", rowInts}, // "(no stack)" first
		{"o", "sort order", rowString},
		{"c", "sort count", rowString},
	} {
		hs.keys(c.keys)
		hs.has(c.header)
		hs.rowIs(0, c.first)
	}
}

func TestGroupingCycles(t *testing.T) {
	hs := newHarness(t, Options{}, sample())
	hs.keys("g")
	hs.has("by site: 3", "SITE", "TOP CLASS")
	hs.rowIs(0, "3 88 B 29.3 B 17.5 com.example.Foo.bar(Foo.java:42) java.lang.String")
	hs.keys("g")
	hs.has("by stack: 4", "STACK")
	hs.rowIs(0, "2 400 B 200.0 B 79.4 com.example.Buf.grow(Buf.java:10) byte[]")
	hs.rowIs(1, "2 48 B 24.0 B 9.5 com.example.Foo.bar(Foo.java:42) (+1 frame) java.lang.String")
	hs.keys("g")
	hs.has("by thread: 2", "THREAD")
	hs.rowIs(0, "3 364 B 121.3 B 72.2 tid 1 java.lang.String")
	hs.keys("g")
	hs.has("not grouped", "Allocations: 6", "SIZE", "TID")
	hs.rowIs(0, "6 24 B 1 java.lang.String com.example.Foo.bar(Foo.java:42)") // newest first
	hs.keys("b")
	hs.rowIs(0, "1 300 B 1 byte[] com.example.Buf.grow(Buf.java:10)")
	hs.keys("g")
	hs.has("by class: 3")
	if hs.v.Grouping() != allocs.ByClass {
		t.Fatalf("grouping %v after a full cycle", hs.v.Grouping())
	}
}

func TestFilterPrompt(t *testing.T) {
	hs := newHarness(t, Options{}, sample())
	hs.keys("/Main.java")
	hs.key(tcell.KeyEnter, 0)
	hs.has(`filter "Main.java": 2 of 6 allocations, 48 B`, "by class: 1")
	hs.rowIs(0, "2 48 B 24.0 B 100.0 java.lang.String com.example.Foo.bar(Foo.java:42)")
	// "!" inverts; Esc in the prompt restores the filter from before.
	hs.keys("/")
	hs.key(tcell.KeyCtrlU, 0)
	hs.keys("!foo")
	hs.has(`filter "!foo": 3 of 6 allocations, 416 B`)
	hs.rowIs(0, "2 400 B 200.0 B 96.2 byte[] com.example.Buf.grow(Buf.java:10)")
	hs.key(tcell.KeyEscape, 0)
	hs.has(`filter "Main.java"`)
	// Esc outside the prompt clears it.
	hs.key(tcell.KeyEscape, 0)
	hs.has("6 allocations, 504 B")
	hs.lacks(`filter "`)
	hs.v.SetFilter("nothing-matches")
	hs.draw()
	hs.has(`0 of 6 allocations`, "by class: 0")
	if hs.v.Filter() != "nothing-matches" {
		t.Fatalf("filter %q", hs.v.Filter())
	}
	hs.key(tcell.KeyEnter, 0) // no row: nothing to show
	hs.has("COUNT")
}

func TestStacksOfTheSelectedRow(t *testing.T) {
	hs := newHarness(t, Options{}, sample())
	hs.key(tcell.KeyEnter, 0)
	hs.has("Stacks · java.lang.String", "java.lang.String: 3 allocations, 88 B, mean 29.3 B; 2 distinct stacks",
		"2 allocations, 48 bytes", "at com.example.Foo.bar(Foo.java:42)", "at com.example.Main.run(Main.java:7)",
		"1 allocation, 40 bytes", "at com.example.Other.go(Other.java:3)")
	hs.lacks("COUNT")
	hs.lacks(`\x0a`) // lines are lines, not escaped newlines
	// The most frequent stack comes first.
	text := hs.text()
	if strings.Index(text, "Main.run") > strings.Index(text, "Other.go") {
		t.Fatalf("stacks out of order:\n%s", text)
	}
	hs.key(tcell.KeyEscape, 0)
	hs.has("COUNT")
	// In the flat list, Enter shows one allocation.
	hs.keys("gggg")
	hs.key(tcell.KeyDown, 0)
	hs.key(tcell.KeyDown, 0)
	hs.key(tcell.KeyDown, 0) // #3: the int[] without frames
	hs.key(tcell.KeyEnter, 0)
	hs.has("Allocation #3", "#3 int[], 16 bytes, thread 2", allocs.NoSite)
	hs.key(tcell.KeyEnter, 0)
	hs.has("SIZE")
	// Thread rows show every stack of the thread.
	hs.keys("gggg") // flat → class → site → stack → thread
	hs.has("by thread: 2")
	hs.key(tcell.KeyEnter, 0)
	hs.has("Stacks · tid 1", "tid 1: 3 allocations, 364 B, mean 121.3 B; 3 distinct stacks", "at com.example.Other.go(Other.java:3)")
}

func TestSelectionSurvivesRefreshAndSort(t *testing.T) {
	hs := newHarness(t, Options{}, sample())
	hs.key(tcell.KeyDown, 0) // byte[]
	hs.keys("n")             // byte[] moves to the top and stays selected
	if g, _ := hs.v.Selected(); g == nil || g.Key != "byte[]" {
		t.Fatalf("selected %+v", g)
	}
	hs.v.SetTable(sample())
	if g, _ := hs.v.Selected(); g == nil || g.Key != "byte[]" {
		t.Fatalf("after SetTable: selected %+v", g)
	}
	hs.key(tcell.KeyEnd, 0)
	if g, _ := hs.v.Selected(); g == nil || g.Key != "java.lang.String" {
		t.Fatalf("End selected %+v", g)
	}
}

// Class, method and file names come from the VM: tview tags and control
// characters in them print literally.
func TestHostileNamesShownLiterally(t *testing.T) {
	hostile := "[red]x\x1b[2J"
	tab := allocs.New(&ddm.Allocations{Entries: []ddm.Allocation{
		{Size: 8, ThreadID: 1, Class: hostile, Frames: []ddm.AllocFrame{{Class: "LEvil;", Method: "[blue]m\a", File: "[::b]E.java", Line: 1}}},
	}}, allocs.NewestFirst)
	hs := newHarness(t, Options{Title: "[yellow]app"}, tab)
	hs.has(`[red]x\x1b[2J`, `Evil.[blue]m\x07([::b]E.java:1)`, "[yellow]app")
	hs.key(tcell.KeyEnter, 0)
	hs.has(`Stacks · [red]x\x1b[2J`, `at Evil.[blue]m\x07([::b]E.java:1)`)
	hs.key(tcell.KeyEscape, 0)
	hs.keys("gggg")
	hs.has(`[red]x\x1b[2J`)
	hs.keys("/")
	hs.keys("[red]")
	hs.key(tcell.KeyEnter, 0)
	hs.has(`filter "[red]": 1 of 1`)
	for _, c := range hs.text() {
		if c == 0x1b || c == '\a' {
			t.Fatal("a control character reached the screen")
		}
	}
}

func TestHelpAndQuit(t *testing.T) {
	hs := newHarness(t, Options{}, sample())
	hs.keys("?")
	hs.has("Allocation tracker keys", "group by class → site → stack → thread → none")
	hs.keys("c") // ignored while help is shown
	// The help scrolls.
	for range 10 {
		hs.key(tcell.KeyDown, 0)
	}
	hs.has("filter by class, method or file", "this help")
	hs.lacks("Allocation tracker keys")
	hs.lacks("turn allocation tracking") // no Track callback, no key
	hs.keys("?")
	hs.has("sort count")
	hs.has("COUNT")
	hs.keys("q")
	if hs.quits != 1 {
		t.Fatalf("q called Quit %d times", hs.quits)
	}
	// With callbacks, t and R reach them.
	var tracked []bool
	refreshes := 0
	hs = newHarness(t, Options{Track: func(on bool) { tracked = append(tracked, on) }, Refresh: func() { refreshes++ }}, nil)
	hs.has("no allocations recorded", "t tracking", "R refresh")
	hs.v.SetTracking(false)
	hs.draw()
	hs.has("tracking is off: t turns it on")
	hs.keys("tR")
	hs.v.SetTracking(true)
	hs.keys("t")
	if len(tracked) != 2 || !tracked[0] || tracked[1] || refreshes != 1 {
		t.Fatalf("Track calls %v, refreshes %d", tracked, refreshes)
	}
	hs.keys("?")
	hs.key(tcell.KeyEnd, 0)
	hs.has("turn allocation tracking on / off", "fetch the recent allocations again")
}

// readScreen returns a function that reads the screen inside app's event
// loop, where tview draws.
func readScreen(t *testing.T, app *tview.Application, s tcell.SimulationScreen) func() string {
	return func() string {
		got := make(chan string, 1)
		go app.QueueUpdate(func() { got <- strings.Join(screenLines(s), "\n") })
		select {
		case text := <-got:
			return text
		case <-time.After(5 * time.Second):
			t.Fatal("application does not respond")
			return ""
		}
	}
}

func waitFor(t *testing.T, read func() string, want string) {
	t.Helper()
	var text string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if text = read(); strings.Contains(text, want) {
			return
		}
	}
	t.Fatalf("screen never showed %q:\n%s", want, text)
}

func waitDone(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal(what)
	}
}

// Run drives the whole application: t and R go through Track and Fetch off
// the UI goroutine, q ends Run and nothing is left running.
func TestRunWithFetchAndTrack(t *testing.T) {
	leakcheck.Check(t)
	s := tcell.NewSimulationScreen("UTF-8")
	s.SetSize(140, 24)
	off := false
	var fetches atomic.Int32
	app, _, run := newRun(nil, RunOptions{
		Title: "sim", Screen: s, Palette: &style.Palette{}, Tracking: &off,
		Track: func(ctx context.Context, on bool) (bool, error) { return on, nil },
		Fetch: func(ctx context.Context) (*allocs.Table, error) {
			if fetches.Add(1) == 2 {
				return nil, errors.New("VM gone")
			}
			return sample(), nil
		},
	})
	done := make(chan error, 1)
	go func() { done <- run() }()
	read := readScreen(t, app, s)
	waitFor(t, read, "tracking off")
	waitFor(t, read, "tracking is off: t turns it on")
	s.InjectKey(tcell.KeyRune, 't', tcell.ModNone)
	waitFor(t, read, "tracking on")
	s.InjectKey(tcell.KeyRune, 'R', tcell.ModNone)
	waitFor(t, read, "java.lang.String")
	waitFor(t, read, "6 allocations, 504 B")
	s.InjectKey(tcell.KeyRune, 'R', tcell.ModNone)
	waitFor(t, read, "fetch: VM gone")
	waitFor(t, read, "6 allocations") // the table stays
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	waitDone(t, done, "q did not end Run")

	// A fetch still running when the context ends is abandoned, and Run
	// returns; so does Ctrl-C.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s2 := tcell.NewSimulationScreen("UTF-8")
	s2.SetSize(100, 20)
	began := make(chan struct{})
	app, _, run = newRun(sample(), RunOptions{Screen: s2, Context: ctx, Fetch: func(ctx context.Context) (*allocs.Table, error) {
		close(began)
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	go func() { done <- run() }()
	waitFor(t, readScreen(t, app, s2), "java.lang.String")
	s2.InjectKey(tcell.KeyRune, 'R', tcell.ModNone)
	select {
	case <-began:
	case <-time.After(5 * time.Second):
		t.Fatal("R did not fetch")
	}
	cancel()
	waitDone(t, done, "Run did not end with its context")

	s3 := tcell.NewSimulationScreen("UTF-8")
	s3.SetSize(100, 20)
	app, _, run = newRun(sample(), RunOptions{Screen: s3})
	go func() { done <- run() }()
	waitFor(t, readScreen(t, app, s3), "java.lang.String")
	s3.InjectKey(tcell.KeyCtrlC, 0, tcell.ModCtrl)
	waitDone(t, done, "Ctrl-C did not end Run")
}

// With long class names the by-class table keeps its TOP SITE column at
// the width the dashboard gives it (issue 38 #22: it went once data
// arrived), and sizes read in human units (7.5 KiB, not 7680).
func TestTopSiteStaysWithLongClassNames(t *testing.T) {
	long := "Lcom/example/feature/gallery/internal/ThumbnailDecoderWorkerFactoryImpl$Request;"
	tab := allocs.New(&ddm.Allocations{Entries: []ddm.Allocation{
		{Size: 7680, ThreadID: 1, Class: long, Frames: []ddm.AllocFrame{bufGrow}},
		{Size: 24, ThreadID: 1, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{fooBar}},
	}}, allocs.NewestFirst)
	hs := newHarness(t, Options{}, tab)
	hs.screen.SetSize(118, 24) // the dashboard's overlay at 120 columns
	hs.v.SetRect(0, 0, 118, 24)
	hs.draw()
	hs.has("TOP SITE", "7.5 KiB", "com.example.Buf.gr")
}
