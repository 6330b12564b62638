package tui

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/tui/style"
)

func freeTCPPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// End to end, through the real engine and proxy: a debugger attaches to the
// selected (second) VM through the selected-VM port and leaves; the proxy
// re-opens that DDM VM's session. The dashboard keeps it selected and the
// selected-VM port keeps leading to it.
func TestSelectedPortSurvivesDebuggerDetach(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("reopen")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 100, App: "com.example.first", Family: sim.ART, Seed: 1}))
	dev.Add(sim.NewVM(sim.VMSpec{PID: 200, App: "com.example.second", Family: sim.ART, Seed: 2}))
	defer dev.Close()
	base := freeTCPPort(t)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Skipf("two consecutive ports from %d: %v", base, err)
	}
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{ThreadInterval: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		engine.Run(ctx, monitor.Discovery{Local: &scan.Local{Ports: scan.PortRange{First: base, Last: base + 1}, Interval: 50 * time.Millisecond}})
	}()
	selPort := freeTCPPort(t)
	px := proxy.New(engine, proxy.Options{BasePort: freeTCPPort(t), SelectedPort: selPort})
	wg.Add(1)
	go func() {
		defer wg.Done()
		px.Run(ctx)
	}()

	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	dash := New(Config{Store: store, Controller: EngineController{Engine: engine}, Palette: style.Palette{}, Discovery: "test",
		Screen: screen, FrameInterval: 5 * time.Millisecond, OnSelect: px.Select})
	screen.SetSize(120, 40)
	done := make(chan error, 1)
	go func() { done <- dash.Run(ctx) }()
	defer func() { cancel(); <-done }()
	hs := &harness{t: t, screen: screen, dash: dash}
	hs.waitText("com.example.second")
	hs.waitText("selected: com.example.first")
	hs.key(tcell.KeyRune, 'j')
	hs.waitText("selected: com.example.second")
	second := fmt.Sprintf("local:%d", base+1)
	hs.waitFor("8700 on the second VM", func(string) bool { return px.Selected() == second })

	// A debugger comes through the selected-VM port and goes.
	nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", selPort), 2*time.Second)
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
	// The session re-opens; through it all, the selection and 8700 stay.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if px.Selected() != second {
			t.Fatalf("the selected-VM port moved to %q", px.Selected())
		}
		time.Sleep(20 * time.Millisecond)
	}
	hs.waitText("selected: com.example.second")
	hs.waitGone("gone…")
	if px.Selected() != second {
		t.Fatalf("the selected-VM port leads to %q", px.Selected())
	}
}
