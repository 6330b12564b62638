package monitor

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/sim/adbd"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testadb"
)

// trackAppDevice is a simulated device of the given API level behind its
// own simulated adbd, with a debuggable app (pid base) and a profileable
// release app (pid base+1).
func trackAppDevice(t *testing.T, api, base int) (*sim.Device, string) {
	t.Helper()
	dev := sim.NewDevice(fmt.Sprintf("api%d", api))
	dev.SetAPI(api)
	dev.Add(sim.NewVM(sim.VMSpec{PID: base, App: "com.example.debug", Package: "com.example.debug", Family: sim.ART,
		API: api, Threads: 2, Seed: uint64(base)}))
	dev.Add(sim.NewVM(sim.VMSpec{PID: base + 1, App: "com.example.release", Package: "com.example.release", Family: sim.ART,
		API: api, Threads: 3, Release: true, UserID: 10, Seed: uint64(base + 1)}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := adbd.New(dev, adbd.Options{})
	go d.Serve(ln)
	t.Cleanup(func() { d.Close(); dev.Close() })
	return dev, ln.Addr().String()
}

// Through the real adb server (Debian's adb 29 forwards track-app): an
// Android 15 device lists its debuggable VM and its profileable release
// app with names and flags; an Android 13 device names the release app
// from the shell; an Android 11 device (no track-app) falls back to
// track-jdwp and shows only its debuggable VM. A spawn and an exit show
// within a second.
func TestTrackAppThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	srv := testadb.New(t)
	dev35, addr35 := trackAppDevice(t, 35, 4000)
	_, addr33 := trackAppDevice(t, 33, 5000)
	_, addr30 := trackAppDevice(t, 30, 6000)
	srv.Start()
	for _, a := range []string{addr35, addr33, addr30} {
		srv.Connect(a)
	}

	store := NewStore(NewBus())
	engine := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond, MeminfoInterval: 200 * time.Millisecond})
	a := &scan.ADB{Client: srv.Client(), Retry: 200 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, Discovery{ADB: []Runner{a}}) }()
	defer func() {
		cancel()
		<-done
		srv.Kill()
	}()

	vmOf := func(addr string, pid int) (VM, bool) {
		for _, vm := range store.VMs() {
			if vm.Source == "adb:"+addr && vm.PID == pid {
				return vm, true
			}
		}
		return VM{}, false
	}
	ready := func(addr string, pid int, check func(VM) bool) func() bool {
		return func() bool {
			vm, ok := vmOf(addr, pid)
			return ok && check(vm)
		}
	}
	waitFor(t, "the Android 15 release app with its threads, memory and name", 20*time.Second, ready(addr35, 4001, func(vm VM) bool {
		return vm.App == "com.example.release" && len(vm.Threads) > 0 && vm.Memory != nil
	}))
	waitFor(t, "the Android 15 debuggable VM", 10*time.Second, ready(addr35, 4000, func(vm VM) bool { return vm.DDM && vm.Tracked }))
	waitFor(t, "the Android 13 release app named from its cmdline", 10*time.Second, ready(addr33, 5001, func(vm VM) bool {
		return vm.App == "com.example.release" && len(vm.Threads) > 0
	}))
	waitFor(t, "the Android 11 debuggable VM", 10*time.Second, ready(addr30, 6000, func(vm VM) bool { return vm.DDM }))

	rel, _ := vmOf(addr35, 4001)
	if rel.Debuggable || !rel.Profileable || rel.DDM || !rel.Tracked || rel.Architecture != sim.Architecture ||
		!rel.UIDKnown || rel.UID != 10*100000+10000+4001 || !rel.UserIDKnown || rel.UserID != 10 || rel.Package != "com.example.release" {
		t.Errorf("Android 15 release app: %+v", rel)
	}
	if rel.DebugPort != 0 {
		t.Errorf("a process without JDWP has debugger port %d", rel.DebugPort)
	}
	for _, f := range []Feature{FeatStack, FeatHeapMap, FeatGC, FeatMethodTrace} {
		if c := rel.Capabilities[f]; c.Source != SourceNone || c.Reason != NoJDWPReason {
			t.Errorf("release app %s: %+v", f, c)
		}
	}
	// Its Java heap comes through perfetto (Android 11+), not "none".
	if rel.Capabilities.Source(FeatThreads) != SourceProc || rel.Capabilities.Source(FeatMemory) != SourceDumpsys ||
		rel.Capabilities.Source(FeatHPROF) != SourcePerfetto {
		t.Errorf("release app sources: %v", rel.Capabilities)
	}
	if s := engine.Session(rel.Key); s == nil || s.HasJDWP() {
		t.Errorf("release app session %v", s)
	} else if err := s.GC(context.Background()); err != ErrNoJDWP {
		t.Errorf("GC on a process without JDWP: %v", err)
	}
	dbg, _ := vmOf(addr35, 4000)
	if !dbg.Debuggable || !dbg.Profileable || dbg.App != "com.example.debug" || dbg.Architecture != sim.Architecture || !dbg.UIDKnown {
		t.Errorf("Android 15 debuggable VM: %+v", dbg)
	}
	rel33, _ := vmOf(addr33, 5001)
	if rel33.Debuggable || !rel33.Profileable || !rel33.Tracked || rel33.Architecture != sim.Architecture || rel33.UIDKnown {
		t.Errorf("Android 13 release app: %+v", rel33)
	}
	old, _ := vmOf(addr30, 6000)
	if !old.Debuggable || old.Profileable || old.Tracked || old.Architecture != "" {
		t.Errorf("Android 11 VM: %+v", old)
	}
	if _, ok := vmOf(addr30, 6001); ok {
		t.Error("an Android 11 release app is listed: track-jdwp cannot know it")
	}

	// A spawn and an exit, each seen within a second.
	within := func(what string, cond func() bool) {
		t.Helper()
		start := time.Now()
		waitFor(t, what, 5*time.Second, cond)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s took %v", what, d)
		}
	}
	dev35.Add(sim.NewVM(sim.VMSpec{PID: 4002, App: "com.example.spawned", Family: sim.ART, API: 35, Release: true, Seed: 7}))
	within("a spawned release app", ready(addr35, 4002, func(vm VM) bool { return vm.App == "com.example.spawned" }))
	dev35.Add(sim.NewVM(sim.VMSpec{PID: 4003, App: "com.example.spawned2", Family: sim.ART, API: 35, Seed: 8}))
	within("a spawned debuggable VM", ready(addr35, 4003, func(vm VM) bool { return vm.DDM }))
	dev35.Remove(4002)
	within("an exited release app", func() bool { _, ok := vmOf(addr35, 4002); return !ok })
	dev35.Remove(4001)
	within("another exited release app", func() bool { _, ok := vmOf(addr35, 4001); return !ok })
	if _, ok := vmOf(addr35, 4000); !ok {
		t.Error("the other entries of the device went with the exits")
	}
	for _, vm := range store.VMs() {
		if strings.Contains(vm.Err, "track") {
			t.Errorf("%s: %s", vm.Key, vm.Err)
		}
	}
}

// A session without JDWP is a profileable process from its first moment,
// before track-app's entry is applied: a request taken in between (the
// heap graph that `hprof --pid` picks) sees it as one.
func TestProcessOnlyBeforeTrackApp(t *testing.T) {
	store := NewStore(NewBus())
	s := NewSession(scan.Endpoint{Key: "p", Source: "adb:x", PID: 9, Process: scan.NewProcess(adb.AppProcess{PID: 9, Profileable: true})}, store, SessionOptions{})
	s.begin(time.Now())
	if vm, _ := store.VM("p"); !vm.ProcessOnly() || !HeapGraphPreferred(vm) {
		t.Fatalf("no JDWP: %+v", vm)
	}
	d := NewSession(scan.Endpoint{Key: "d", Source: "adb:x", PID: 10}, store, SessionOptions{})
	d.begin(time.Now())
	if vm, _ := store.VM("d"); vm.ProcessOnly() || vm.Profileable || !vm.Debuggable {
		t.Fatalf("JDWP: %+v", vm)
	}
}

// applyProcess: track-app's name holds until HELO names the VM, its
// waiting_for_debugger is DDM's WAIT (and its end), an attached debugger
// stays attached, and the Android 15 fields reach the model.
func TestApplyProcess(t *testing.T) {
	store := NewStore(NewBus())
	s := NewSession(scan.Endpoint{Key: "k", Source: "adb:x", PID: 7}, store, SessionOptions{})
	s.begin(time.Now())
	yes, no := true, false
	uid, user := int64(1010123), int64(10)
	s.entry.applyProcess(&processRecord{Debuggable: true, Profileable: true, Architecture: "arm", Name: "com.example.a",
		Packages: []string{"com.example.a", "com.example.shared"}, Waiting: &yes, UID: &uid, UserID: &user})
	vm, _ := store.VM("k")
	if vm.App != "com.example.a" || vm.Package != "com.example.a" || vm.Debugger != DebuggerWaiting || !vm.UIDKnown ||
		vm.UID != 1010123 || vm.UserID != 10 || vm.Architecture != "arm" || !vm.Tracked || vm.ProcessOnly() {
		t.Fatalf("%+v", vm)
	}
	s.entry.applyProcess(&processRecord{Debuggable: true, Profileable: true, Name: "com.example.a", Waiting: &no})
	if vm, _ = store.VM("k"); vm.Debugger != DebuggerNone {
		t.Fatalf("wait ended: %v", vm.Debugger)
	}
	store.updateExisting("k", func(vm *VM) { vm.DDM, vm.App, vm.Debugger = true, "com.example.a:remote", DebuggerAttached })
	s.entry.applyProcess(&processRecord{Debuggable: true, Name: "com.example.a", Waiting: &yes})
	if vm, _ = store.VM("k"); vm.App != "com.example.a:remote" || vm.Debugger != DebuggerAttached {
		t.Fatalf("after HELO and attach: %+v", vm)
	}
}
