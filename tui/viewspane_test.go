package tui

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/viewtree"
)

// V opens the selected VM's views through the real engine and a simulated
// app: the tree, the wireframe and the properties; v makes the selected
// view INVISIBLE and the tree is dumped again; q comes back.
func TestViewsPaneThroughEngine(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	vm := sim.NewVM(sim.VMSpec{PID: 777, App: "com.example.notes", Package: "com.example.notes", Family: sim.ART, API: 34, Seed: 1})
	dev.Add(vm)
	defer dev.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if _, err := dev.ServeVM(vm, fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
		t.Fatal(err)
	}
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{ThreadInterval: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	engineDone := make(chan struct{})
	go func() {
		defer close(engineDone)
		engine.Run(ctx, monitor.Discovery{Local: &scan.Local{Ports: scan.PortRange{First: port, Last: port}, Interval: 50 * time.Millisecond}})
	}()
	defer func() { cancel(); <-engineDone }()
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	dash := New(Config{Store: store, Controller: EngineController{Engine: engine}, Palette: style.Palette{}, Discovery: "test",
		Screen: screen, FrameInterval: 5 * time.Millisecond, TraceDir: t.TempDir()})
	screen.SetSize(120, 40)
	done := make(chan error, 1)
	go func() { done <- dash.Run(ctx) }()
	defer func() { cancel(); <-done }()
	hs := &harness{t: t, screen: screen, dash: dash}
	hs.waitText("com.example.notes")
	hs.waitFor("features", func(string) bool {
		v, ok := store.VM(fmt.Sprintf("local:%d", port))
		return ok && len(v.Features) > 0
	})
	hs.runes("V")
	hs.waitText("60 views, v2 dump")
	hs.waitText("Wireframe")
	hs.waitText("com.android.internal.policy.DecorView@")
	for i := 0; i < 6; i++ { // down to the clock
		hs.runes("j")
	}
	hs.waitText("id id/clock  VISIBLE")
	hs.runes("v")
	hs.waitText(`TextView clock "12:`)
	hs.waitFor("the clock INVISIBLE after the new dump", func(s string) bool {
		return strings.Contains(s, "id id/clock  INVISIBLE")
	})
	hs.runes("q")
	hs.waitGone("Wireframe")
}

// In a replay the pane shows the dumps the model holds (recorded ones) and
// refuses to act: a recording cannot ask the app.
func TestViewsPaneInReplay(t *testing.T) {
	tr, err := viewtree.DecodeText([]byte("a.Root@1 mID=5,NO_ID layout:getWidth()=3,100 layout:getHeight()=3,200 \n b.Text@2 mID=6,id/clk text:mText=5,12:00 \nDONE.\n"))
	if err != nil {
		t.Fatal(err)
	}
	tl := &fakeTimeline{}
	hs := startCfg(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		s.UpdateVM("local:8000", func(vm *monitor.VM) {
			vm.Key, vm.Source, vm.PID, vm.App, vm.DDM = "local:8000", "local:8000", 42, "com.example.replayed", true
			vm.Views = []monitor.WindowDump{{Window: "com.example/Main/android.view.ViewRootImpl@9", Tree: tr}}
		})
	}, func(c *Config) { c.Timeline = tl })
	hs.waitText("com.example.replayed")
	hs.runes("V")
	hs.waitText("2 views, text dump")
	hs.waitText(`Text clk "12:00"`)
	hs.runes("j")
	hs.runes("i")
	hs.waitText("a replay shows the dumps taken while recording")
}

// The views pane names a minified app's custom views through the app's
// mapping (issue 34: views, custom view classes), says so in its title,
// and leaves the model's own tree as the app sent it.
func TestViewsPaneMapping(t *testing.T) {
	tr, err := viewtree.DecodeText([]byte("a.b@1 mID=5,NO_ID layout:getWidth()=3,100 layout:getHeight()=3,200 \n android.widget.TextView@2 mID=6,id/clk text:mText=5,12:00 \nDONE.\n"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapping.Parse([]byte("com.example.replayed.ui.ClockLayout -> a.b:\n"))
	if err != nil {
		t.Fatal(err)
	}
	hs := startCfg(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		s.UpdateVM("local:8000", func(vm *monitor.VM) {
			vm.Key, vm.Source, vm.PID, vm.App, vm.DDM = "local:8000", "local:8000", 42, "com.example.replayed", true
			vm.Views = []monitor.WindowDump{{Window: "com.example/Main/android.view.ViewRootImpl@9", Tree: tr}}
		})
	}, func(c *Config) {
		c.Timeline = &fakeTimeline{}
		c.Mappings = NewMappings(map[string]*mapping.Mapping{"com.example.replayed": m})
	})
	hs.waitText("com.example.replayed")
	hs.runes("V")
	hs.waitText("2 views, text dump")
	hs.waitText("ClockLayout")
	hs.waitText("· mapping")
	if strings.Contains(strings.Join(hs.text(), "\n"), "a.b@") {
		t.Errorf("the obfuscated class is still shown:\n%s", strings.Join(hs.text(), "\n"))
	}
	if tr.Nodes[0].Class != "a.b" {
		t.Errorf("the model's tree was renamed: %q", tr.Nodes[0].Class)
	}
}
