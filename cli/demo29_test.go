package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/threaddump"
)

// Issue 29 #6: on a modern demo (--api 34) every VM is a device VM with
// /proc and dumpsys meminfo, as a real phone's; none is blanked as "not on
// an adb device".
func TestModernDemoVMsAreDeviceVMs(t *testing.T) {
	leakcheck.Check(t)
	specs := sim.Scenario(1, 7)
	dev := sim.NewDevice("emulator-sim")
	dev.SetAPI(34)
	defer dev.Close()
	for _, s := range specs {
		if s.Family != sim.JVM {
			s.API = 34
		}
		dev.Add(sim.NewVM(s))
	}
	modern := sim.ModernDemoDevice(1)
	defer modern.Close()
	d, what := demoDiscovery(dev, modern, nil, 100*time.Millisecond)
	if d.Local != nil || len(d.ADB) != 2 || !strings.Contains(what, "API 34 device (emulator-sim)") {
		t.Fatalf("discovery %+v, %q", d, what)
	}
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{ThreadInterval: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); engine.Run(ctx, d) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var bad []string
		n := 0
		for _, vm := range store.VMs() {
			if !strings.HasPrefix(vm.Source, "sim:emulator-sim") || !vm.DDM {
				continue
			}
			n++
			if vm.Capabilities.Source(monitor.FeatThreads) != monitor.SourceProc ||
				vm.Capabilities.Source(monitor.FeatMemory) != monitor.SourceDumpsys {
				bad = append(bad, vm.App+": "+vm.Capabilities[monitor.FeatThreads].Reason+vm.Capabilities[monitor.FeatMemory].Reason)
			}
		}
		if n >= 6 && len(bad) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d DDM VMs of the API 34 device; without /proc threads or dumpsys memory: %q", n, bad)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Issue 29 #11: the demo's Dalvik VM on a local port has no device shell;
// its simulator's dump shows the deadlock the README promises.
func TestSimDumpOfDalvikVMHasDeadlock(t *testing.T) {
	dev := sim.NewDevice("emulator-sim")
	defer dev.Close()
	var pid int
	for _, s := range sim.Scenario(1, 7) {
		dev.Add(sim.NewVM(s))
		if s.Deadlock {
			pid = s.PID
		}
	}
	if pid == 0 {
		t.Fatal("the scenario has no deadlocked VM")
	}
	dump := simDump(dev)
	if _, ok, _ := dump(context.Background(), monitor.VM{Source: "adb:x", PID: pid}); ok {
		t.Fatal("a device VM's dump came from the simulator")
	}
	raw, ok, err := dump(context.Background(), monitor.VM{Source: "local:8004", PID: pid})
	if !ok || err != nil {
		t.Fatalf("simDump: %v %v", ok, err)
	}
	d, err := threaddump.Parse(bytes.NewReader(raw))
	if err != nil || len(d.Processes) != 1 {
		t.Fatalf("parse: %v", err)
	}
	if a := threaddump.Analyze(d.Processes[0]); len(a.Deadlocks) != 1 {
		t.Fatalf("%d deadlocks in\n%s", len(a.Deadlocks), raw)
	}
}
