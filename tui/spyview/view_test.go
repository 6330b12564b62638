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

	"github.com/ddmtui/ddmtui/internal/leakcheck"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
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
}

func newHarness(t *testing.T, pal style.Palette, w, h int) *harness {
	t.Helper()
	hs := &harness{t: t, screen: tcell.NewSimulationScreen("UTF-8")}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.screen.Fini)
	hs.screen.SetSize(w, h)
	hs.v = New(Options{Palette: pal})
	hs.v.SetBorder(true)
	hs.v.SetRect(0, 0, w, h)
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

func (hs *harness) lines() []string {
	cells, w, h := hs.screen.GetContents()
	out := make([]string, h)
	for y := range h {
		var b strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 || c.Runes[0] == 0 {
				b.WriteRune(' ')
			} else {
				b.WriteRune(c.Runes[0])
			}
		}
		out[y] = b.String()
	}
	return out
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
	_, ySession := hs.mustFind("▶ 07:08:09.000 local:8000 :8600 == thread [red]evil\\x1b[2J attached")
	_, yErr := hs.mustFind("#901 reply ThreadReference.Frames ERROR THREAD_NOT_SUSPENDED (13)")
	_, ySet := hs.mustFind("-> #900 EventRequest.Set BREAKPOINT suspend=ALL [LocationOnly Target.work@16]")
	if !(ySet < yErr && yErr < ySession) {
		t.Errorf("order: set %d, error %d, session %d", ySet, yErr, ySession)
	}
	// Its detail is below the list, after a separator.
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
	if !hs.v.Following() {
		t.Error("not following")
	}
}

func TestColourByDirection(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 110, 30)
	hs.v.Add(traffic(2)...)
	hs.draw()
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
	}
	// NO_COLOR: no colours, the selection still marked.
	hs = newHarness(t, style.Palette{NoColor: true}, 110, 30)
	hs.v.Add(traffic(2)...)
	hs.draw()
	x, y := hs.mustFind("-> #900 EventRequest.Set")
	if got := hs.fg(x, y); got != tcell.ColorDefault {
		t.Errorf("NO_COLOR: %v", got)
	}
	hs.mustFind("▶ ")
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
	hs.mustFind("paused: G follows")
	hs.mustFind("▶ 07:08:09.000 local:8000 :8600 -> #900 EventRequest.Set")
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
	if rec, _ := hs.v.Selected(); rec.ID != 1 {
		t.Errorf("Home selected %+v", rec)
	}
	hs.mustFind("JVM 17 #1")
	hs.key(tcell.KeyRune, 'c')
	if hs.v.Len() != 0 {
		t.Error("c did not clear")
	}
	hs.mustFind("no debugger traffic yet")
	if help := hs.v.Keys().HelpText(); !strings.Contains(help, "G/End") || !strings.Contains(help, "clear the list") {
		t.Errorf("help:\n%s", help)
	}
}

func TestBoundedAndTiny(t *testing.T) {
	hs := newHarness(t, style.Palette{}, 40, 5)
	v := New(Options{MaxRecords: 10})
	hs.v = v
	v.SetRect(0, 0, 40, 5)
	v.Add(traffic(20)...)
	if v.Len() != 10 {
		t.Fatalf("kept %d records", v.Len())
	}
	hs.draw() // too small for detail: no panic, list only
	hs.mustFind("▶")
	hs.screen.SetSize(3, 1)
	v.SetRect(0, 0, 3, 1)
	hs.draw()
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
