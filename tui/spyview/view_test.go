package spyview

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/screentext"
	"github.com/ddmtui/ddmtui/tui/style"
)

// TestMain starts the runtime's network poller before any leak baseline:
// its descriptors are created once per process, on first use.
func TestMain(m *testing.M) {
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	os.Exit(m.Run())
}

type harness struct {
	t      *testing.T
	v      *View
	screen tcell.SimulationScreen
	w, h   int
	quits  int
}

func newHarness(t *testing.T, pal style.Palette, w, h int) *harness {
	t.Helper()
	hs := &harness{t: t, screen: tcell.NewSimulationScreen("UTF-8"), w: w, h: h}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.screen.Fini)
	hs.screen.SetSize(w, h)
	hs.v = New(Options{Palette: pal, Quit: func() { hs.quits++ }})
	return hs
}

func (hs *harness) draw() {
	hs.v.SetRect(0, 0, hs.w, hs.h)
	hs.screen.Clear()
	hs.v.Draw(hs.screen)
	hs.screen.Show()
}

func (hs *harness) key(k tcell.Key, r rune) {
	hs.v.InputHandler()(tcell.NewEventKey(k, r, 0), func(tview.Primitive) {})
	hs.draw()
}

func (hs *harness) typeText(s string) {
	for _, r := range s {
		hs.key(tcell.KeyRune, r)
	}
}

func (hs *harness) style(x, y int) tcell.Style {
	cells, w, _ := hs.screen.GetContents()
	return cells[y*w+x].Style
}

// selectedRow is the screen row drawn reversed (the table's selection),
// or -1.
func (hs *harness) selectedRow() int {
	for y := range hs.h {
		if _, _, attr := hs.style(2, y).Decompose(); attr&tcell.AttrReverse != 0 {
			return y
		}
	}
	return -1
}

func (hs *harness) lines() []string {
	return screentext.Cells(hs.screen)
}

func (hs *harness) text() string { return strings.Join(hs.lines(), "\n") }

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

func (hs *harness) fg(x, y int) tcell.Color {
	cells, w, _ := hs.screen.GetContents()
	fg, _, _ := cells[y*w+x].Style.Decompose()
	return fg
}

var t0 = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// traffic is n Version round trips, then a breakpoint request, an error
// reply and a session note whose VM string carries tview tags and ESC.
func traffic(n int) []jdwpspy.Record {
	var recs []jdwpspy.Record
	for i := 1; i <= n; i++ {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		recs = append(recs,
			jdwpspy.Record{Time: at, VM: "local:8000", Port: 8600, Dir: jdwpspy.ToVM, Type: jdwpspy.TypeCommand, ID: uint32(i), Name: "VirtualMachine.Version", CommandSet: 1, Command: 1, Length: 11},
			jdwpspy.Record{Time: at, VM: "local:8000", Port: 8600, Dir: jdwpspy.FromVM, Type: jdwpspy.TypeReply, ID: uint32(i), Name: "VirtualMachine.Version", LatencyMS: 0.25, Summary: fmt.Sprintf("JVM 17 #%d", i)})
	}
	er := &jdwpspy.EventRequest{EventKind: 2, EventKindName: "BREAKPOINT", SuspendPolicy: 2, SuspendPolicyName: "ALL", ModifierCount: 1,
		Modifiers: []jdwpspy.Modifier{{Kind: 7, Name: "LocationOnly", Location: &jdwpspy.Location{TypeTag: 1, ClassID: 0x1a2b, MethodID: 0x70c0ffee, Index: 16, ClassName: "Target", MethodName: "work"}}}}
	recs = append(recs,
		jdwpspy.Record{Time: t0, VM: "local:8000", Port: 8600, Dir: jdwpspy.ToVM, Type: jdwpspy.TypeCommand, ID: 900, Name: "EventRequest.Set", CommandSet: 15, Command: 1, EventRequest: er, Summary: er.String()},
		jdwpspy.Record{Time: t0, VM: "local:8000", Port: 8600, Dir: jdwpspy.FromVM, Type: jdwpspy.TypeReply, ID: 901, Name: "ThreadReference.Frames", Error: "THREAD_NOT_SUSPENDED", ErrorCode: 13},
		jdwpspy.Record{Time: t0, VM: "local:8000", Port: 8600, Dir: jdwpspy.Session, Type: jdwpspy.TypeSession, Summary: "thread [red]evil\x1b[2J attached"},
	)
	return recs
}

func TestFollowsNewestWithDetail(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 130, 24)
	hs.v.Add(traffic(20)...)
	hs.draw()
	// The newest record is at the bottom of the list and selected.
	_, ySession := hs.mustFind("07:08:09.000 local:8000 :8600 == thread [red]evil\\x1b[2J attached")
	_, yErr := hs.mustFind("#901 reply ThreadReference.Frames ERROR THREAD_NOT_SUSPENDED (13)")
	_, ySet := hs.mustFind("-> #900 EventRequest.Set BREAKPOINT suspend=ALL [LocationOnly Target.work@16]")
	if !(ySet < yErr && yErr < ySession) {
		t.Errorf("order: set %d, error %d, session %d", ySet, yErr, ySession)
	}
	if got := hs.selectedRow(); got != ySession {
		t.Errorf("selected row %d, the newest is at %d", got, ySession)
	}
	// Its detail is below the list, after the list's border.
	_, yDetail := hs.mustFind("session event on port 8600 (local:8000)")
	if yDetail <= ySession+1 {
		t.Errorf("detail at %d, list ends at %d", yDetail, ySession)
	}
	if strings.ContainsRune(hs.text(), 0x1b) {
		t.Error("an ESC from a VM string reached the screen")
	}
	// Older records scrolled out of the top.
	if x, _ := hs.find("JVM 17 #1 "); x >= 0 {
		t.Errorf("oldest record still visible:\n%s", hs.text())
	}
	hs.mustFind("JVM 17 #20")
	hs.mustFind(" debugger traffic: 43 ")
	if !hs.v.Following() {
		t.Error("not following")
	}
}

func TestColourByDirection(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 110, 30)
	hs.v.Add(traffic(2)...)
	hs.key(tcell.KeyRune, 'g') // the oldest selected: the rows below keep their own colours
	for _, tc := range []struct {
		text string
		want tcell.Color
	}{
		{"-> #900 EventRequest.Set", tcell.ColorGreen},
		{"<- #2 reply VirtualMachine.Version", tcell.ColorAqua},
		{"ERROR THREAD_NOT_SUSPENDED", tcell.ColorRed},
		{"== thread [red]evil", tcell.ColorYellow},
	} {
		x, y := hs.mustFind(tc.text)
		if got := hs.fg(x, y); got != tc.want {
			t.Errorf("%q in %v, want %v", tc.text, got, tc.want)
		}
		if fg, _, _ := hs.style(1, y).Decompose(); fg != tc.want { // the time column too
			t.Errorf("%q: time column in %v", tc.text, fg)
		}
	}
	// The selected row is reversed and keeps its colour (the oldest: a
	// command, green).
	_, y := hs.mustFind("-> #1 VirtualMachine.Version")
	if hs.selectedRow() != y {
		t.Errorf("selected row %d, want %d", hs.selectedRow(), y)
	}
	if fg, _, attr := hs.style(14, y).Decompose(); fg != tcell.ColorGreen || attr&tcell.AttrReverse == 0 {
		t.Errorf("selected row: fg %v, attr %v", fg, attr)
	}
	// NO_COLOR: no colours, the selection still marked.
	hs = newHarness(t, style.Palette{NoColor: true}, 110, 30)
	hs.v.Add(traffic(2)...)
	hs.draw()
	x, y := hs.mustFind("-> #900 EventRequest.Set")
	if got := hs.fg(x, y); got != tcell.ColorDefault {
		t.Errorf("NO_COLOR: %v", got)
	}
	_, ySession := hs.mustFind("== thread")
	if hs.selectedRow() != ySession {
		t.Errorf("NO_COLOR: selected row %d, want %d:\n%s", hs.selectedRow(), ySession, hs.text())
	}
}

func TestSelectionPausesAndShowsDetail(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 100, 30)
	hs.v.Add(traffic(3)...)
	hs.draw()
	hs.key(tcell.KeyUp, 0)
	hs.key(tcell.KeyRune, 'k')
	if hs.v.Following() {
		t.Fatal("still following after moving up")
	}
	rec, _ := hs.v.Selected()
	if rec.Name != "EventRequest.Set" {
		t.Fatalf("selected %+v", rec)
	}
	hs.mustFind("(paused: G follows)")
	_, y := hs.mustFind("07:08:09.000 local:8000 :8600 -> #900 EventRequest.Set")
	if hs.selectedRow() != y {
		t.Errorf("selected row %d, want %d", hs.selectedRow(), y)
	}
	hs.mustFind("event kind BREAKPOINT (2), suspend ALL (2), 1 modifier(s)")
	hs.mustFind("1. LocationOnly Target.work@16")
	// New traffic does not move the selection.
	hs.v.Add(traffic(1)[:1]...)
	hs.draw()
	if rec, _ := hs.v.Selected(); rec.Name != "EventRequest.Set" {
		t.Errorf("selection moved to %s", rec.Name)
	}
	// G follows again.
	hs.key(tcell.KeyRune, 'G')
	if rec, _ := hs.v.Selected(); !hs.v.Following() || rec.Name != "VirtualMachine.Version" {
		t.Errorf("after G: following %v, selected %s", hs.v.Following(), rec.Name)
	}
	hs.key(tcell.KeyHome, 0)
	if rec, _ := hs.v.Selected(); rec.ID != 1 || hs.v.Following() {
		t.Errorf("Home selected %+v, following %v", rec, hs.v.Following())
	}
	hs.mustFind("JVM 17 #1")
	hs.key(tcell.KeyRune, 'c')
	if hs.v.Len() != 0 || !hs.v.Following() {
		t.Errorf("c: %d records, following %v", hs.v.Len(), hs.v.Following())
	}
	hs.mustFind("no debugger traffic yet")
}

func TestBoundedAndTiny(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 60, 8)
	v := New(Options{MaxRecords: 10})
	hs.v = v
	v.Add(traffic(20)...)
	if v.Len() != 10 {
		t.Fatalf("kept %d records", v.Len())
	}
	// The ten kept are the newest: the oldest kept is reply #17.
	hs.key(tcell.KeyHome, 0)
	if rec, _ := v.Selected(); rec.ID != 17 || rec.Type != jdwpspy.TypeReply {
		t.Errorf("oldest kept %+v", rec)
	}
	v.Add(traffic(30)...) // more at once than the view keeps
	if rec, _ := v.Selected(); v.Len() != 10 || rec.ID != 27 || rec.Type != jdwpspy.TypeReply {
		t.Errorf("%d kept, selected %+v: the oldest kept, once the one selected is gone", v.Len(), rec)
	}
	hs.screen.SetSize(3, 1)
	hs.w, hs.h = 3, 1
	hs.draw() // too small for anything: no panic
}

// Paused in a full view, the oldest records go as new ones come, and the
// selected record stays on its screen row, the rows around it too.
func TestPausedRowsStayPut(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 120, 30)
	hs.v = New(Options{MaxRecords: 60})
	all := traffic(60) // 123 records
	hs.v.Add(all[:60]...)
	hs.draw()
	for range 5 {
		hs.key(tcell.KeyRune, 'k')
	}
	held, _ := hs.v.Selected()
	row := hs.selectedRow()
	_, above := hs.mustFind(fmt.Sprintf("JVM 17 #%d ", held.ID-1))
	for i := 60; i < 100; i += 10 { // 40 go: records are left above the rows on screen
		hs.v.Add(all[i : i+10]...)
		hs.draw()
		if rec, _ := hs.v.Selected(); rec != held || hs.selectedRow() != row {
			t.Fatalf("after %d more: selected %+v on row %d, was %+v on %d", i-50, rec, hs.selectedRow(), held, row)
		}
		if _, y := hs.mustFind(fmt.Sprintf("JVM 17 #%d ", held.ID-1)); y != above {
			t.Fatalf("after %d more: the row above moved from %d to %d", i-50, above, y)
		}
	}
}

// The footer's / filter narrows the rows to those whose line holds the
// text (!text excludes); while following, new matching records are
// appended and selected, the others kept out; Esc clears the filter.
func TestFilterNarrowsRows(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 120, 30)
	hs.v.Add(traffic(3)...)
	hs.draw()
	hs.key(tcell.KeyRune, '/')
	hs.typeText("eventrequest")
	hs.key(tcell.KeyEnter, 0)
	if n := hs.v.Table().Len(); n != 1 {
		t.Fatalf("filter eventrequest: %d rows:\n%s", n, hs.text())
	}
	hs.mustFind(`debugger traffic: 1 of 9, filter "eventrequest"`)
	if x, _ := hs.find("VirtualMachine.Version"); x >= 0 {
		t.Errorf("a filtered-out record is listed:\n%s", hs.text())
	}
	if rec, _ := hs.v.Selected(); rec.ID != 900 || !hs.v.Following() {
		t.Errorf("selected %+v, following %v", rec, hs.v.Following())
	}
	// Following: a matching record is appended and selected; others not.
	more := traffic(1)
	more[0].ID, more[0].Name, more[0].Summary = 950, "EventRequest.Clear", "BREAKPOINT request 4"
	hs.v.Add(more[:2]...)
	hs.draw()
	if n := hs.v.Table().Len(); n != 2 {
		t.Fatalf("after two more records, %d rows shown", n)
	}
	if rec, _ := hs.v.Selected(); rec.ID != 950 {
		t.Errorf("following: selected %+v", rec)
	}
	_, y := hs.mustFind("-> #950 EventRequest.Clear BREAKPOINT request 4")
	if hs.selectedRow() != y {
		t.Errorf("selected row %d, want %d", hs.selectedRow(), y)
	}
	// !text excludes.
	hs.key(tcell.KeyRune, '/')
	for range len("eventrequest") {
		hs.key(tcell.KeyBackspace2, 0)
	}
	hs.typeText("!version")
	hs.key(tcell.KeyEnter, 0)
	if n := hs.v.Table().Len(); n != 4 {
		t.Errorf("!version: %d rows, want set, error, session, clear", n)
	}
	// Esc clears the filter and does not leave.
	hs.key(tcell.KeyEscape, 0)
	if n := hs.v.Table().Len(); n != 11 || hs.quits != 0 {
		t.Errorf("after Esc: %d rows, %d quits", n, hs.quits)
	}
	// A filter nothing passes says so.
	hs.key(tcell.KeyRune, '/')
	hs.typeText("nosuchpacket")
	hs.key(tcell.KeyEnter, 0)
	hs.mustFind("no record matches the filter")
}

// Following, new records are appended at the bottom and the cursor stays
// on the newest; once the user moved up it stays put until j reaches the
// newest again (or G / End).
func TestFollowModeAppends(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 120, 20)
	hs.v.Add(traffic(2)...)
	hs.draw()
	for i := 3; i <= 40; i++ {
		r := traffic(i)[2*i-2 : 2*i] // round trip #i
		hs.v.Add(r...)
		hs.draw()
		_, y := hs.mustFind(fmt.Sprintf("JVM 17 #%d ", i))
		if rec, _ := hs.v.Selected(); rec.ID != uint32(i) || hs.selectedRow() != y {
			t.Fatalf("round trip %d: selected %+v on row %d, the newest is on %d", i, rec, hs.selectedRow(), y)
		}
	}
	hs.key(tcell.KeyRune, 'k')
	held, _ := hs.v.Selected()
	hs.v.Add(traffic(41)[80:82]...)
	hs.draw()
	if rec, _ := hs.v.Selected(); rec != held || hs.v.Following() {
		t.Errorf("paused: selected %+v, following %v", rec, hs.v.Following())
	}
	hs.key(tcell.KeyRune, 'j')
	if hs.v.Following() {
		t.Error("j short of the newest resumed following")
	}
	hs.key(tcell.KeyRune, 'j')
	hs.key(tcell.KeyRune, 'j')
	if !hs.v.Following() {
		t.Error("j onto the newest did not resume following")
	}
	hs.key(tcell.KeyPgUp, 0)
	hs.key(tcell.KeyEnd, 0)
	if rec, _ := hs.v.Selected(); !hs.v.Following() || rec.ID != 41 || rec.Type != jdwpspy.TypeReply {
		t.Errorf("End: following %v, selected %+v", hs.v.Following(), rec)
	}
}

// ? shows the help generated from the key table: the base's keys and the
// view's; Esc closes it without leaving. q, J and Esc leave.
func TestHelpAndLeaving(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 120, 50)
	hs.v.Add(traffic(1)...)
	hs.key(tcell.KeyRune, '?')
	for _, s := range []string{"Debugger traffic keys", "newest record, follow new traffic", "clear the list",
		"filter the records by any text", "copy the selected record", "oldest record (stops following)",
		"PgDn", "Tab", "this help"} {
		hs.mustFind(s)
	}
	hs.key(tcell.KeyEscape, 0)
	if hs.v.HelpShown() || hs.quits != 0 {
		t.Fatalf("Esc in help: shown %v, %d quits", hs.v.HelpShown(), hs.quits)
	}
	for i, k := range []*tcell.EventKey{
		tcell.NewEventKey(tcell.KeyRune, 'q', 0), tcell.NewEventKey(tcell.KeyRune, 'J', 0), tcell.NewEventKey(tcell.KeyEscape, 0, 0),
	} {
		hs.v.InputHandler()(k, func(tview.Primitive) {})
		if hs.quits != i+1 {
			t.Errorf("%s: %d quits", k.Name(), hs.quits)
		}
	}
	if help := hs.v.Keys().HelpText(); !strings.Contains(help, "G") || !strings.Contains(help, "clear the list") {
		t.Errorf("help:\n%s", help)
	}
}

// A name from the VM that is a tview tag (an OSC 8 hyperlink here) is text
// in the list, the detail and the title's filter, never a tag.
func TestHostileNameIsText(t *testing.T) {
	const evil = "[:::http://evil]x[:::-]"
	hs := newHarness(t, style.Palette{}, 140, 30)
	hs.v.Add(jdwpspy.Record{Time: t0, VM: "local:" + evil, Port: 8600, Dir: jdwpspy.FromVM, Type: jdwpspy.TypeReply, ID: 5,
		Name: "ReferenceType.Signature", Summary: "class " + evil})
	hs.draw()
	hs.mustFind("local:" + evil)
	hs.mustFind("<- #5 reply ReferenceType.Signature class " + evil)
	hs.mustFind("reply ReferenceType.Signature id 5 on port 8600 (local:" + evil + ")")
	hs.key(tcell.KeyRune, '/')
	hs.typeText(evil)
	hs.key(tcell.KeyEnter, 0)
	hs.mustFind(`filter "` + evil + `"`)
	if hs.v.Table().Len() != 1 {
		t.Errorf("the filter %q: %d rows", evil, hs.v.Table().Len())
	}
	// Copy gives the record's line and detail, made safe for the terminal.
	what, text := hs.v.copyText()
	if what != "the record" || !strings.Contains(text, "class "+evil) || !strings.Contains(text, "id 5 on port 8600") {
		t.Errorf("copy: %q %q", what, text)
	}
}

// syncApp runs queued updates at once, as tview would on its goroutine.
type syncApp struct {
	mu sync.Mutex
	n  int
}

func (a *syncApp) QueueUpdateDraw(f func(), _ ...tview.Primitive) *tview.Application {
	a.mu.Lock()
	defer a.mu.Unlock()
	f()
	a.n++
	return nil
}

// The pane fed by a real proxy: a debugger's round trip through the proxy
// to a simulated JVM shows up as a command and its reply.
func TestFollowRealProxyTraffic(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("spy")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 9, App: "jvm", Family: sim.JVM, Seed: 1}))
	defer dev.Close()
	vmPort := freePort(t)
	if _, err := dev.ServeLocal("127.0.0.1", vmPort); err != nil {
		t.Fatal(err)
	}
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		engine.Run(ctx, monitor.Discovery{Local: &scan.Local{Ports: scan.PortRange{First: vmPort, Last: vmPort}, Interval: 50 * time.Millisecond}})
	}()
	px := proxy.New(engine, proxy.Options{BasePort: freePort(t), SelectedPort: -1})
	wg.Add(1)
	go func() {
		defer wg.Done()
		px.Run(ctx)
	}()

	hs := newHarness(t, style.Palette{}, 120, 20)
	app := &syncApp{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		Follow(ctx, px.Inspector(), app, hs.v)
	}()

	key := fmt.Sprintf("local:%d", vmPort)
	var port int
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, ok := px.Port(key)
		if ok {
			port = p
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no debugger port")
		}
		time.Sleep(20 * time.Millisecond)
	}
	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	if err := jdwp.ClientHandshake(nc, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	dbg := jdwp.NewConn(nc, jdwp.Options{IDBase: 1})
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	_, err = dbg.Version(rctx)
	rcancel()
	dbg.Close()
	if err != nil {
		t.Fatal(err)
	}
	for {
		app.mu.Lock()
		hs.draw()
		_, y := hs.find("<- #1 reply VirtualMachine.Version")
		app.mu.Unlock()
		if y >= 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reply never reached the pane:\n%s", hs.text())
		}
		time.Sleep(20 * time.Millisecond)
	}
	app.mu.Lock()
	hs.mustFind("-> #1 VirtualMachine.Version")
	app.mu.Unlock()
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
