package monitor

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// A device on a recent Android: its VMs answer HELO but no thread or heap
// chunk. Threads come from /proc, memory from dumpsys, and both equal the
// simulated VM's own truth.
func TestModernDeviceThreadsAndMemoryFromShell(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("emulator-5554")
	dev.SetAPI(34)
	dev.SetModel("sdk_gphone64_x86_64")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 4100, App: "com.example.modern", Family: sim.ART, API: 34, Threads: 3, Seed: 5}))
	defer dev.Close()
	store := NewStore(NewBus())
	e := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond, MeminfoInterval: 200 * time.Millisecond,
		ProbeTimeout: 200 * time.Millisecond, RequestTimeout: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx, Discovery{ADB: []Runner{&sim.Endpoints{Device: dev}}}) }()
	defer func() {
		cancel()
		<-done
	}()

	vmTruth := dev.VM(4100)
	var got VM
	waitFor(t, "proc threads with CPU%, memory and API", 10*time.Second, func() bool {
		vms := store.VMs()
		if len(vms) != 1 {
			return false
		}
		got = vms[0]
		return got.API == 34 && got.Memory != nil && len(got.Threads) > 0 && got.Threads[0].CPUKnown
	})
	if got.Model != "sdk_gphone64_x86_64" {
		t.Errorf("model %q, want the device's ro.product.model", got.Model)
	}
	truth := vmTruth.ProcThreads()
	if len(got.Threads) != len(truth) {
		t.Fatalf("%d threads, truth %d", len(got.Threads), len(truth))
	}
	hostile := false
	for i, th := range got.Threads {
		tr := truth[i]
		if th.Source != SourceProc || th.ID != uint64(tr.TID) || th.SysTID != tr.TID || th.Name != tr.Comm ||
			th.UTime != int(tr.UTime) || th.STime != int(tr.STime) || th.ProcState != string(tr.State) || th.Status != -1 {
			t.Errorf("thread %d: %+v, truth %+v", i, th, tr)
		}
		if strings.Contains(th.Name, ") ") {
			hostile = true
		}
		if !th.CPUKnown || th.CPUPercent != 0 { // the VM does not step: no CPU used
			t.Errorf("thread %s: cpu %v known %v", th.Name, th.CPUPercent, th.CPUKnown)
		}
	}
	if !hostile {
		t.Error("the thread whose comm holds ') ' is missing")
	}
	if want := vmTruth.MemInfo(); !reflect.DeepEqual(got.Memory.Info, want) {
		t.Errorf("memory\n got %+v\nwant %+v", got.Memory.Info, want)
	}
	for f, want := range map[Feature]Source{FeatThreads: SourceProc, FeatMemory: SourceDumpsys, FeatHeapSummary: SourceDumpsys,
		FeatStack: SourceNone, FeatHeapMap: SourceNone, FeatAllocations: SourceNone, FeatHPROF: SourceAm, FeatMethodTrace: SourceDDM} {
		if c := got.Capabilities[f]; c.Source != want || (want == SourceNone) != (c.Reason != "") {
			t.Errorf("%s: %+v, want source %s", f, c, want)
		}
	}
	if st := vmTruth.Stats(); st.NonDDMPackets.Load() != 0 {
		t.Errorf("%d non-DDM packets sent to a DDM VM", st.NonDDMPackets.Load())
	}
	// Requests with no source fail at once with the reason, without a
	// request the VM would leave unanswered.
	sess := e.Session(got.Key)
	before := vmTruth.Stats().DDMRequests.Load()
	var ns *NotServedError
	if _, err := sess.Stack(ctx, 1); !errors.As(err, &ns) || ns.Feature != FeatStack || ns.Reason == "" {
		t.Errorf("Stack: %v", err)
	}
	if err := sess.GC(ctx); !errors.As(err, &ns) || ns.Feature != FeatGC {
		t.Errorf("GC: %v", err)
	}
	if _, err := sess.Allocations(ctx); !errors.As(err, &ns) || ns.Feature != FeatAllocations {
		t.Errorf("Allocations: %v", err)
	}
	if n := vmTruth.Stats().DDMRequests.Load() - before; n > 1 { // a THST poll may happen meanwhile
		t.Errorf("%d DDM requests sent for features with no source", n)
	}
}

// An old device's VM answers THST: threads stay DDM's (with CPU% from
// THST's ticks), no /proc poll starts, and memory still comes from dumpsys.
func TestOldDeviceKeepsDDMThreads(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("old")
	dev.SetAPI(23)
	dev.Add(sim.NewVM(sim.VMSpec{PID: 4200, App: "com.example.old", Family: sim.ART, API: 23, Threads: 2, Seed: 6}))
	defer dev.Close()
	store := NewStore(NewBus())
	e := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond, MeminfoInterval: 200 * time.Millisecond, ProbeTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx, Discovery{ADB: []Runner{&sim.Endpoints{Device: dev}}}) }()
	defer func() {
		cancel()
		<-done
	}()
	var got VM
	waitFor(t, "DDM threads with CPU% and memory", 10*time.Second, func() bool {
		vms := store.VMs()
		if len(vms) != 1 {
			return false
		}
		got = vms[0]
		return got.API == 23 && got.Memory != nil && len(got.Threads) > 0 && got.Threads[0].CPUKnown &&
			got.Capabilities[FeatHeapSummary].Source == SourceDDM
	})
	for _, th := range got.Threads {
		if th.Source != SourceDDM || th.ProcState != "" {
			t.Errorf("thread %+v", th)
		}
	}
	if c := got.Capabilities; c[FeatThreads].Source != SourceDDM || c[FeatStack].Source != SourceDDM || c[FeatThreadDump].Source != SourceShell {
		t.Errorf("capabilities %+v", c)
	}
}

func TestCPUTracker(t *testing.T) {
	var c cpuTracker
	t0 := time.Unix(100, 0)
	a := map[uint64]*Thread{1: {UTime: 10, STime: 5}, 2: {UTime: 0}}
	c.sample(t0, a)
	if a[1].CPUKnown || a[2].CPUKnown {
		t.Fatal("CPU% known on the first sample")
	}
	b := map[uint64]*Thread{1: {UTime: 60, STime: 15}, 3: {UTime: 7}}
	c.sample(t0.Add(2*time.Second), b)
	// 60 ticks in 2 s at 100 ticks/s = 30% of a core.
	if !b[1].CPUKnown || b[1].CPUPercent != 30 {
		t.Errorf("thread 1: %v %v, want 30", b[1].CPUPercent, b[1].CPUKnown)
	}
	if b[3].CPUKnown {
		t.Error("a new thread has a CPU% on its first sample")
	}
	// A tid reused by a new thread (times went down) starts over.
	d := map[uint64]*Thread{1: {UTime: 1}}
	c.sample(t0.Add(3*time.Second), d)
	if d[1].CPUKnown {
		t.Error("CPU% from times that went backwards")
	}
}

func TestDecideCapabilities(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   capInput
		want map[Feature]Source
	}{
		{"local old DDM VM", capInput{kind: "ddm", thst: answered, hpif: answered, features: []string{"method-trace-profiling-streaming", "hprof-heap-dump-streaming"}},
			map[Feature]Source{FeatThreads: SourceDDM, FeatStack: SourceDDM, FeatHeapMap: SourceDDM, FeatHPROF: SourceDDM,
				FeatMethodTrace: SourceDDM, FeatThreadDump: SourceNone, FeatMemory: SourceNone, FeatLogcat: SourceNone}},
		{"modern device VM", capInput{kind: "ddm", device: true, api: 34, thst: unanswered, hpif: unanswered, memory: answered, features: []string{"method-trace-profiling-streaming"}},
			map[Feature]Source{FeatThreads: SourceProc, FeatStack: SourceNone, FeatHeapSummary: SourceDumpsys, FeatHeapMap: SourceNone,
				FeatGC: SourceNone, FeatAllocations: SourceNone, FeatHPROF: SourceAm, FeatThreadDump: SourceShell, FeatMemory: SourceDumpsys, FeatLogcat: SourceShell}},
		{"modern local VM", capInput{kind: "ddm", thst: unanswered, hpif: unanswered},
			map[Feature]Source{FeatThreads: SourceNone, FeatHeapSummary: SourceNone, FeatHPROF: SourceNone, FeatMethodTrace: SourceNone}},
		{"plain JVM", capInput{kind: "jdwp"}, map[Feature]Source{FeatThreads: SourceJDWP, FeatStack: SourceNone, FeatHeapSummary: SourceNone}},
		{"silent VM on a device", capInput{kind: "silent", device: true}, map[Feature]Source{FeatThreads: SourceProc, FeatStack: SourceNone, FeatMemory: SourceDumpsys}},
		{"/proc unreadable", capInput{kind: "ddm", device: true, thst: unanswered, hpif: unanswered, procWhy: "/proc: cat: Permission denied"},
			map[Feature]Source{FeatThreads: SourceNone, FeatMemory: SourceDumpsys}},
		{"meminfo off", capInput{kind: "ddm", device: true, thst: unanswered, hpif: unanswered, memOff: true},
			map[Feature]Source{FeatMemory: SourceNone, FeatHeapSummary: SourceNone}},
		{"meminfo fails", capInput{kind: "ddm", device: true, thst: unanswered, hpif: unanswered, memory: unanswered, memWhy: "dumpsys meminfo: Permission Denial"},
			map[Feature]Source{FeatMemory: SourceNone, FeatHeapSummary: SourceNone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := decideCapabilities(tc.in)
			for _, f := range AllFeatures {
				cp, ok := c[f]
				if !ok {
					t.Errorf("%s: no decision", f)
				}
				if (cp.Source == SourceNone) != (cp.Reason != "") || strings.Contains(cp.Reason, "\n") {
					t.Errorf("%s: %+v: a none needs exactly one line of reason", f, cp)
				}
			}
			for f, want := range tc.want {
				if c[f].Source != want {
					t.Errorf("%s: %+v, want %s", f, c[f], want)
				}
			}
		})
	}
	if r := decideCapabilities(capInput{kind: "ddm", device: true, api: 34, thst: unanswered, hpif: unanswered}); r[FeatStack].Reason != "stacks need the DDM thread handler, which Android 11 and later no longer register" {
		t.Errorf("stack reason on API 34: %q", r[FeatStack].Reason)
	}
	if r := decideCapabilities(capInput{kind: "ddm", device: true, thst: unanswered, hpif: unanswered, memory: unanswered, memWhy: "dumpsys meminfo: Permission Denial"}); r[FeatMemory].Reason != "dumpsys meminfo: Permission Denial" {
		t.Errorf("reason %q", r[FeatMemory].Reason)
	}
}
