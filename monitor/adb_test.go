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

// scan.ADB's PID follows that process only: the other VMs of the device
// are never connected to, so their one JDWP connection stays free for
// another monitor or debugger (issue 38 #16: views --pid connected to
// every VM).
func TestADBFollowsOnePID(t *testing.T) {
	leakcheck.Check(t)
	srv := testadb.New(t)
	dev := sim.NewDevice("sim")
	specs := sim.Scenario(2, 3)
	for _, s := range specs {
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
	defer srv.Kill()

	want := specs[1].PID
	store := NewStore(NewBus())
	engine := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond})
	a := &scan.ADB{Client: srv.Client(), Retry: 200 * time.Millisecond, PID: want}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, Discovery{ADB: []Runner{a}}) }()
	defer func() {
		cancel()
		<-done
	}()
	waitFor(t, "the one VM through adb", 15*time.Second, func() bool {
		vms := store.VMs()
		return len(vms) == 1 && vms[0].PID == want && vms[0].DDM
	})
	time.Sleep(300 * time.Millisecond) // a second track-jdwp list would have opened the others by now
	for _, s := range specs {
		n := dev.VM(s.PID).Stats().Connections.Load()
		if s.PID == want && n == 0 || s.PID != want && n != 0 {
			t.Errorf("pid %d: %d connections", s.PID, n)
		}
	}
	if vms := store.VMs(); len(vms) != 1 {
		t.Errorf("%d VMs listed", len(vms))
	}
}

// The same VMs on local ports and through adbd (sim --local … --adbd …):
// each VM holds one JDWP connection, so one transport's endpoints are busy;
// they are that VM reached another way, not failed rows (issue 38 #16).
func TestSameVMOnTwoTransportsIsOne(t *testing.T) {
	leakcheck.Check(t)
	srv := testadb.New(t)
	dev := sim.NewDevice("sim")
	specs := sim.Scenario(2, 3)
	for _, s := range specs {
		dev.Add(sim.NewVM(s))
	}
	ports := freeRange(t, len(specs))
	if _, err := dev.ServeLocal("127.0.0.1", ports.First); err != nil {
		t.Fatal(err)
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
	defer srv.Kill()

	store := NewStore(NewBus())
	engine := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond})
	a := &scan.ADB{Client: srv.Client(), Retry: 200 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- engine.Run(ctx, Discovery{Local: &scan.Local{Ports: ports, Interval: 100 * time.Millisecond}, ADB: []Runner{a}})
	}()
	defer func() {
		cancel()
		<-done
	}()
	var view []Found
	waitFor(t, "each VM once, with no failed row", 15*time.Second, func() bool {
		view = engine.View()
		pids := map[int]int{}
		for _, f := range view {
			if f.Failed != "" {
				return false
			}
			pids[f.VM.PID]++
		}
		if len(pids) != len(specs) {
			return false
		}
		for _, n := range pids {
			if n != 1 {
				return false
			}
		}
		return true
	})
	// And it stays so once the other transport's endpoints were tried.
	time.Sleep(time.Second)
	for _, f := range engine.View() {
		if f.Failed != "" {
			t.Errorf("%s pid %d: %s", f.VM.Key, f.VM.PID, f.Failed)
		}
	}
}
