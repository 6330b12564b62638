package tui

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/tui/style"
)

// A simulated VM whose app and thread names carry tview tags and terminal
// escape sequences: through the real engine they reach the screen as
// literal, harmless text.
func TestHostileNamesFromSimulatedVM(t *testing.T) {
	leakcheck.Check(t)
	evil := "[red]evil\x1b[2J"
	dev := sim.NewDevice("t")
	vm := sim.NewVM(sim.VMSpec{PID: 666, App: evil + "app", Family: sim.ART, ThreadNames: []string{evil, "bell\a[::b]bold"}, Seed: 1})
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
	dash := New(Config{Store: store, Controller: EngineController{Engine: engine}, Palette: style.Palette{}, Discovery: "test", Screen: screen, FrameInterval: 5 * time.Millisecond})
	screen.SetSize(120, 40)
	done := make(chan error, 1)
	go func() { done <- dash.Run(ctx) }()
	defer func() { cancel(); <-done }()
	hs := &harness{t: t, screen: screen, dash: dash}
	hs.waitFor("escaped names", func(s string) bool {
		return strings.Count(s, `[red]evil\x1b[2J`) >= 2 && strings.Contains(s, `bell\x07[::b]bold`)
	})
	cells, _, _ := hs.contents()
	for _, c := range cells {
		for _, r := range c.Runes {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("a control character %#x reached the screen", r)
			}
		}
	}
}
