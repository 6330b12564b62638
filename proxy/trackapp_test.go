package proxy

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// A profileable process without JDWP gets no debugger port, and a debugger
// on the selected-VM port while it is selected is refused at once.
func TestNoPortForProfileableProcess(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("emulator-5554")
	dev.SetAPI(35)
	dev.Add(sim.NewVM(sim.VMSpec{PID: 4000, App: "com.example.debug", Package: "com.example.debug", Family: sim.ART, API: 35, Seed: 1}))
	dev.Add(sim.NewVM(sim.VMSpec{PID: 4001, App: "com.example.release", Package: "com.example.release", Family: sim.ART, API: 35, Release: true, Seed: 2}))
	defer dev.Close()
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{ThreadInterval: 50 * time.Millisecond})
	ectx, ecancel := context.WithCancel(context.Background())
	edone := make(chan struct{})
	go func() {
		defer close(edone)
		engine.Run(ectx, monitor.Discovery{ADB: []monitor.Runner{&sim.Endpoints{Device: dev}}})
	}()
	opts := Options{BasePort: freeRange(t, 4), PortSpan: 4, SelectedPort: freeRange(t, 1), Grace: time.Second}
	px := New(engine, opts)
	pctx, pcancel := context.WithCancel(context.Background())
	pdone := make(chan struct{})
	go func() {
		defer close(pdone)
		px.Run(pctx)
	}()
	defer func() {
		pcancel()
		<-pdone
		ecancel()
		<-edone
	}()
	const dbgKey, relKey = "adb:sim/emulator-5554:4000", "adb:sim/emulator-5554:4001"
	waitFor(t, "both processes", 10*time.Second, func() bool {
		_, a := store.VM(relKey)
		vm, b := store.VM(dbgKey)
		return a && b && vm.DebugPort != 0
	})
	time.Sleep(200 * time.Millisecond) // a reconcile that would give it a port has run
	for _, ps := range px.Ports() {
		if ps.VM == relKey {
			t.Fatalf("the release app has a port: %+v", ps)
		}
	}
	if vm, _ := store.VM(relKey); vm.DebugPort != 0 {
		t.Fatalf("release app debug port %d", vm.DebugPort)
	}
	px.Select(relKey)
	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", opts.SelectedPort))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := nc.Write([]byte("JDWP-Handshake")); err != nil {
		t.Fatal(err)
	}
	if n, err := nc.Read(make([]byte, 14)); n != 0 || err == nil {
		t.Fatalf("a debugger on the selected port reached a process without JDWP: %d bytes, %v", n, err)
	}
}
