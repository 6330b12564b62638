package tui

import (
	"context"
	"fmt"
	"net"
	"strings"
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

// A thread a debugger suspended in a plain JDWP VM shows as suspended
// (JDWP's suspend status), not as running; resumed, it shows its state
// again.
func TestDebuggerSuspendedThreadShown(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("suspend")
	vm := sim.NewVM(sim.VMSpec{PID: 7, App: "jvm", Family: sim.JVM, Seed: 3, ThreadNames: []string{"worker"}})
	dev.Add(vm)
	defer dev.Close()
	vmPort := freeTCPPort(t)
	if _, err := dev.ServeVM(vm, fmt.Sprintf("127.0.0.1:%d", vmPort)); err != nil {
		t.Fatal(err)
	}
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{ThreadInterval: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		engine.Run(ctx, monitor.Discovery{Local: &scan.Local{Ports: scan.PortRange{First: vmPort, Last: vmPort}, Interval: 50 * time.Millisecond}})
	}()
	px := proxy.New(engine, proxy.Options{BasePort: freeTCPPort(t), SelectedPort: -1})
	wg.Add(1)
	go func() {
		defer wg.Done()
		px.Run(ctx)
	}()
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	dash := New(Config{Store: store, Palette: style.Palette{}, Discovery: "test", Screen: screen, FrameInterval: 5 * time.Millisecond})
	screen.SetSize(120, 40)
	done := make(chan error, 1)
	go func() { done <- dash.Run(ctx) }()
	defer func() { cancel(); <-done }()
	hs := &harness{t: t, screen: screen, dash: dash}
	hs.waitText("worker")

	key := fmt.Sprintf("local:%d", vmPort)
	var port int
	hs.waitFor("a debugger port", func(string) bool {
		p, ok := px.Port(key)
		port = p
		return ok
	})
	nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := jdwp.ClientHandshake(nc, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	dbg := jdwp.NewConn(nc, jdwp.Options{IDBase: 1})
	defer dbg.Close()
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	defer rcancel()
	sz, err := dbg.IDSizes(rctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := dbg.AllThreads(rctx, sz)
	if err != nil || len(ids) == 0 {
		t.Fatalf("AllThreads: %v %v", ids, err)
	}
	for _, id := range ids {
		if _, err := dbg.Request(rctx, jdwp.CmdSetThreadReference, jdwp.CmdThreadSuspend, jdwp.AppendID(nil, sz.ObjectID, id)); err != nil {
			t.Fatal(err)
		}
	}
	hs.waitFor("every thread suspended", func(s string) bool {
		return strings.Count(s, "suspended") >= len(ids) && !strings.Contains(s, "running ")
	})
	for _, id := range ids {
		if _, err := dbg.Request(rctx, jdwp.CmdSetThreadReference, jdwp.CmdThreadResume, jdwp.AppendID(nil, sz.ObjectID, id)); err != nil {
			t.Fatal(err)
		}
	}
	hs.waitGone("suspended")
}
