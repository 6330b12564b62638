package monitor

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/sim/adbd"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testadb"
)

// The adb server is killed mid-run: the VMs it carried disappear, and when a
// server is back (and the device reconnected) the monitor lists them again
// with live threads. Nothing leaks across the restart.
func TestADBServerRestartRecovers(t *testing.T) {
	leakcheck.Check(t)
	srv := testadb.New(t)
	dev := sim.NewDevice("sim")
	for _, s := range sim.Scenario(2, 3) {
		dev.Add(sim.NewVM(s))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := adbd.New(dev, adbd.Options{})
	go d.Serve(ln)
	defer func() { d.Close(); dev.Close() }()
	srv.Start()
	srv.Connect(ln.Addr().String())

	store := NewStore(NewBus())
	engine := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond})
	a := &scan.ADB{Client: srv.Client(), Retry: 200 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, Discovery{ADB: []Runner{a}}) }()
	defer func() {
		cancel()
		<-done
		srv.Kill()
	}()

	allThere := func() bool {
		vms := store.VMs()
		if len(vms) != 3 {
			return false
		}
		for _, vm := range vms {
			if !vm.DDM || len(vm.Threads) == 0 {
				return false
			}
		}
		return true
	}
	waitFor(t, "VMs through adb", 15*time.Second, allThere)
	if st := a.Status(); st != "adb "+srv.Addr()+": 1 device" {
		t.Errorf("status %q", st)
	}

	srv.Kill()
	waitFor(t, "VMs gone with the server", 10*time.Second, func() bool { return len(store.VMs()) == 0 })
	waitFor(t, "status says so", 5*time.Second, func() bool {
		st := a.Status()
		return st != "adb "+srv.Addr()+": 1 device"
	})

	srv.Start()
	srv.Connect(ln.Addr().String())
	waitFor(t, "VMs back after the restart", 20*time.Second, allThere)
	for _, vm := range store.VMs() {
		if dev.VM(vm.PID) == nil {
			t.Errorf("listed pid %d is not on the device", vm.PID)
		}
	}
}
