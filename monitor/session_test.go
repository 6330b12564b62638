package monitor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testjvm"
)

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// freeRange finds n consecutive free loopback ports.
func freeRange(t *testing.T, n int) scan.PortRange {
	t.Helper()
	for base := 30000 + (time.Now().Nanosecond()/1000)%20000; base < 64000; base += n + 11 {
		ok := true
		for p := base; p < base+n && ok; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				ok = false
				continue
			}
			ln.Close()
		}
		if ok {
			return scan.PortRange{First: base, Last: base + n - 1}
		}
	}
	t.Fatal("no free port range")
	return scan.PortRange{}
}

type rig struct {
	dev    *sim.Device
	engine *Engine
	store  *Store
	ports  scan.PortRange
	cancel context.CancelFunc
	done   chan struct{}
}

// startRig serves specs on a free port range and runs the engine with a
// local scan over it.
func startRig(t *testing.T, specs []sim.VMSpec, extra int, opts SessionOptions) *rig {
	t.Helper()
	r := &rig{dev: sim.NewDevice("test"), ports: freeRange(t, len(specs)+extra), done: make(chan struct{})}
	for _, s := range specs {
		r.dev.Add(sim.NewVM(s))
	}
	if _, err := r.dev.ServeLocal("127.0.0.1", r.ports.First); err != nil {
		t.Fatal(err)
	}
	r.store = NewStore(NewBus())
	if opts.ThreadInterval == 0 {
		opts.ThreadInterval = 50 * time.Millisecond
	}
	if opts.JDWPThreadInterval == 0 {
		opts.JDWPThreadInterval = 50 * time.Millisecond
	}
	r.engine = NewEngine(r.store, opts)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		defer close(r.done)
		r.engine.Run(ctx, Discovery{Local: &scan.Local{Ports: r.ports, Interval: 30 * time.Millisecond}})
	}()
	t.Cleanup(r.stop)
	return r
}

func (r *rig) stop() {
	r.cancel()
	<-r.done
	r.dev.Close()
}

func (r *rig) key(i int) string { return fmt.Sprintf("local:%d", r.ports.First+i) }

func TestSnapshotEqualsSimulatorTruth(t *testing.T) {
	leakcheck.Check(t)
	specs := []sim.VMSpec{
		{PID: 101, App: "com.example.art", Family: sim.ART, Threads: 4, Seed: 1},
		{PID: 102, App: "com.example.dalvik", Family: sim.Dalvik, Threads: 3, Seed: 2},
		{PID: 103, App: "com.example.modern", Package: "com.example.modern", Family: sim.ART, Modern: true, Threads: 2, Seed: 3},
		{PID: 104, App: "jvm", Family: sim.JVM, Threads: 2, Seed: 4},
	}
	r := startRig(t, specs, 0, SessionOptions{})
	vms := r.dev.VMs()
	for i, vm := range vms {
		key := r.key(i)
		truth := vm.Threads()
		waitFor(t, key+" threads", 5*time.Second, func() bool {
			got, ok := r.store.VM(key)
			if !ok || len(got.Threads) != len(truth) {
				return false
			}
			for j, th := range got.Threads {
				if th.Name != truth[j].Name || th.Status != int(truth[j].Status) {
					return false
				}
			}
			return true
		})
		got, _ := r.store.VM(key)
		spec := vm.Spec()
		if got.PID != spec.PID && spec.Family != sim.JVM {
			t.Errorf("%s pid %d, want %d", key, got.PID, spec.PID)
		}
		wantDDM := spec.Family != sim.JVM
		if got.DDM != wantDDM {
			t.Errorf("%s ddm=%v, want %v", key, got.DDM, wantDDM)
		}
		if wantDDM && got.App != spec.App {
			t.Errorf("%s app %q, want %q", key, got.App, spec.App)
		}
		for j, th := range got.Threads {
			if wantDDM && (th.SysTID != int(truth[j].SysTID) || th.Daemon != truth[j].Daemon) {
				t.Errorf("%s thread %d: %+v, truth %+v", key, j, th, truth[j])
			}
			if th.State == "" || th.State == "unknown" {
				t.Errorf("%s thread %q has no state name", key, th.Name)
			}
		}
		switch spec.Family {
		case sim.Dalvik:
			if got.Family != "dalvik" || got.VMIdent != "Dalvik v1.6.0" {
				t.Errorf("dalvik VM: family %q ident %q", got.Family, got.VMIdent)
			}
		case sim.ART:
			if got.Family != "art" {
				t.Errorf("ART VM family %q", got.Family)
			}
		case sim.JVM:
			if got.Family != "jvm" || got.VMIdent != "OpenJDK 64-Bit Server VM 17.0.15" {
				t.Errorf("JVM: family %q ident %q", got.Family, got.VMIdent)
			}
		}
		if wantDDM {
			heapTruth := vm.Heap()
			waitFor(t, key+" heap info", 5*time.Second, func() bool {
				got, _ := r.store.VM(key)
				return len(got.Heaps) == 1 && got.Heaps[0].SizeBytes == heapTruth.SizeBytes
			})
			got, _ = r.store.VM(key)
			h := got.Heaps[0]
			if h.MaxBytes != heapTruth.MaxBytes || h.AllocatedBytes != heapTruth.AllocatedBytes || h.Objects != heapTruth.Objects {
				t.Errorf("%s heap %+v, truth %+v", key, h, heapTruth)
			}
		}
	}
	// Manners: a DDM VM never receives a non-DDM packet.
	for _, vm := range vms {
		n := vm.Stats().NonDDMPackets.Load()
		if vm.Spec().Family != sim.JVM && n != 0 {
			t.Errorf("%v received %d non-DDM packets: a real VM would think a debugger attached", vm, n)
		}
		if vm.Spec().Family == sim.JVM && n == 0 {
			t.Errorf("the JVM was never polled with JDWP")
		}
	}
}

func TestSegmentsOnGCMatchTruth(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, []sim.VMSpec{{PID: 201, App: "heapy", Family: sim.ART, HeapBytes: 6 << 20, Fragmented: true, Seed: 9}}, 0, SessionOptions{Segments: true})
	key := r.key(0)
	waitFor(t, "session", 5*time.Second, func() bool { return r.engine.Session(key) != nil })
	waitFor(t, "DDM", 5*time.Second, func() bool { vm, _ := r.store.VM(key); return vm.DDM })
	sub := r.store.Bus().Subscribe()
	defer sub.Close()
	if err := r.engine.Session(key).GC(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "segments", 5*time.Second, func() bool { return r.store.Segments(key) != nil })
	snap := r.store.Segments(key)
	byKind, bySolid := r.dev.VMs()[0].SegmentTruth()
	if snap.Stats.UnitsBySolid != bySolid {
		t.Fatalf("by solidity %v, truth %v", snap.Stats.UnitsBySolid, bySolid)
	}
	if snap.Stats.UnitsByKind != byKind {
		t.Fatalf("by kind %v, truth %v", snap.Stats.UnitsByKind, byKind)
	}
	vm, _ := r.store.VM(key)
	if vm.Heaps[0].Segments == nil || vm.Heaps[0].Segments.TotalUnits != snap.Units() || vm.Heaps[0].GCCount < 1 {
		t.Fatalf("heap summary %+v", vm.Heaps[0])
	}
	seen := map[string]bool{}
	waitFor(t, "segment event", 2*time.Second, func() bool {
		for _, ev := range sub.Drain() {
			seen[fmt.Sprintf("%T", ev)] = true
		}
		return seen["monitor.SegmentsUpdated"] && seen["monitor.HeapUpdated"]
	})
	// A stack on request.
	frames, err := r.engine.Session(key).Stack(context.Background(), 1)
	if err != nil || len(frames) == 0 || frames[0].Method != "nativePollOnce" || frames[0].Line != ddm.LineNative {
		t.Fatalf("stack of main: %v %v", frames, err)
	}
	if _, err := r.engine.Session(key).Stack(context.Background(), 4040); err == nil {
		t.Fatal("stack of a missing thread succeeded")
	}
}

func TestLocalScanSeesVMsAppearAndDie(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, []sim.VMSpec{{PID: 301, App: "first", Family: sim.ART, Seed: 1}}, 1, SessionOptions{})
	waitFor(t, "first VM", 5*time.Second, func() bool { _, ok := r.store.VM(r.key(0)); return ok })
	late := sim.NewVM(sim.VMSpec{PID: 302, App: "late", Family: sim.ART, Seed: 2})
	r.dev.Add(late)
	if _, err := r.dev.ServeVM(late, fmt.Sprintf("127.0.0.1:%d", r.ports.First+1)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "late VM", 5*time.Second, func() bool { vm, ok := r.store.VM(r.key(1)); return ok && vm.App == "late" })
	r.dev.Remove(302)
	waitFor(t, "late VM gone", 5*time.Second, func() bool { _, ok := r.store.VM(r.key(1)); return !ok })
	if _, ok := r.store.VM(r.key(0)); !ok {
		t.Fatal("the other VM was lost")
	}
}

func TestRealJVMIsListedWithoutDDM(t *testing.T) {
	leakcheck.Check(t)
	jvm := testjvm.Start(t)
	store := NewStore(NewBus())
	e := NewEngine(store, SessionOptions{JDWPThreadInterval: 100 * time.Millisecond})
	nc, err := net.Dial("tcp", jvm.Addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); e.Handle(ctx, scan.Endpoint{Key: "local:jvm", Source: "local:jvm", Conn: nc}) }()
	defer func() { cancel(); wg.Wait() }()
	waitFor(t, "JVM threads", 20*time.Second, func() bool {
		vm, ok := store.VM("local:jvm")
		if !ok || vm.DDM {
			return false
		}
		var names []string
		for _, th := range vm.Threads {
			names = append(names, th.Name)
		}
		return slices.Contains(names, testjvm.ThreadNames[0]) && slices.Contains(names, testjvm.ThreadNames[1])
	})
	vm, _ := store.VM("local:jvm")
	if vm.Family != "jvm" || vm.VMIdent == "" {
		t.Fatalf("JVM listed as %+v", vm)
	}
	for _, th := range vm.Threads {
		if th.Name == "ddmtui-sleeper" && th.State != "sleeping" {
			t.Errorf("sleeper state %q", th.State)
		}
	}
	// DDM requests are refused with the sentinel callers test for.
	s := e.Session("local:jvm")
	if s == nil {
		t.Fatal("no session for the JVM")
	}
	if err := s.GC(ctx); !errors.Is(err, ErrNotDDM) {
		t.Errorf("GC on a JVM: %v, want ErrNotDDM", err)
	}
	if _, err := s.HeapDump(ctx, nil); !errors.Is(err, ErrNotDDM) {
		t.Errorf("HeapDump on a JVM: %v, want ErrNotDDM", err)
	}
}

// 200 VMs appear and disappear; goroutines and descriptors return to their
// baseline (leakcheck), and the store ends empty.
func TestAppearDisappearCyclesLeakNothing(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, nil, 1, SessionOptions{})
	addr := fmt.Sprintf("127.0.0.1:%d", r.ports.First)
	for i := 0; i < 200; i++ {
		vm := sim.NewVM(sim.VMSpec{PID: 1000 + i, App: fmt.Sprintf("cycle%d", i), Family: sim.ART, Seed: uint64(i)})
		r.dev.Add(vm)
		if _, err := r.dev.ServeVM(vm, addr); err != nil {
			t.Fatal(err)
		}
		waitFor(t, fmt.Sprintf("VM %d", i), 5*time.Second, func() bool {
			got, ok := r.store.VM(r.key(0))
			return ok && got.PID == 1000+i && len(got.Threads) > 0
		})
		r.dev.Remove(1000 + i)
		waitFor(t, fmt.Sprintf("VM %d gone", i), 5*time.Second, func() bool { _, ok := r.store.VM(r.key(0)); return !ok })
	}
	if n := len(r.store.VMs()); n != 0 {
		t.Fatalf("%d VMs left in the store", n)
	}
}

// HPSO gives object boundaries: the object-size histogram counts exactly the
// VM's live objects. A Dalvik VM's native heap map (NHSG) matches its truth.
func TestObjectsAndNativeSegments(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, []sim.VMSpec{{PID: 501, App: "old", Family: sim.Dalvik, HeapBytes: 2 << 20, Seed: 12}}, 0, SessionOptions{})
	key := r.key(0)
	waitFor(t, "DDM", 5*time.Second, func() bool { vm, _ := r.store.VM(key); return vm.DDM })
	s := r.engine.Session(key)
	if err := s.SetSegmentOptions(context.Background(), SegmentOptions{Managed: true, Objects: true, Native: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.GC(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "object map", 5*time.Second, func() bool {
		snap := r.store.Segments(key)
		return snap != nil && snap.Type == ddm.TypeHPSO
	})
	waitFor(t, "native map", 5*time.Second, func() bool { return r.store.NativeSegments(key) != nil })
	vm := r.dev.VMs()[0]
	objects := uint64(len(vm.ObjectTruth()))
	var count uint64
	for _, b := range r.store.Segments(key).SizeHistogram() {
		count += b.Count
	}
	if count != objects {
		t.Fatalf("histogram counts %d objects, the VM has %d", count, objects)
	}
	used, free := vm.NativeTruth()
	ns := r.store.NativeSegments(key)
	if ns.Stats.UsedUnits() != used || ns.Stats.FreeUnits() != free || ns.Stats.Segments < 3 {
		t.Fatalf("native map used %d free %d in %d segments; truth %d / %d", ns.Stats.UsedUnits(), ns.Stats.FreeUnits(), ns.Stats.Segments, used, free)
	}
	// HPIF history grows with GCs.
	s.GC(context.Background())
	waitFor(t, "history", 5*time.Second, func() bool {
		vm, _ := r.store.VM(key)
		return len(vm.Heaps) == 1 && len(vm.Heaps[0].History) >= 2
	})
}
