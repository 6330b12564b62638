// Package sim simulates Android VMs that speak the real protocols — JDWP with
// DDM chunks as ART and Dalvik do, or plain JDWP like a desktop JVM — so that
// ddmtui can be demonstrated, tested and benchmarked without a device. A VM
// evolves in steps (threads start, change state, burn CPU and die; the heap
// fills and is collected) and is deterministic from its seed. Device groups
// VMs, serves each on a loopback port, and is what the simulated adbd exposes.
//
// Main types: VMSpec (what to simulate), VM (one simulated VM and its
// protocol handler), Device (a set of VMs with local listeners).
package sim

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
)

// Family is the kind of VM simulated.
type Family int

// VM families.
const (
	ART    Family = iota // "Dalvik v2.1.0", JDWP thread status 0..4
	Dalvik               // "Dalvik v1.6.0", raw Dalvik status 0..9
	JVM                  // a desktop JVM: JDWP only, rejects DDM with NOT_IMPLEMENTED
)

func (f Family) String() string {
	switch f {
	case ART:
		return "art"
	case Dalvik:
		return "dalvik"
	case JVM:
		return "jvm"
	}
	return "unknown"
}

// VMSpec describes one simulated VM.
type VMSpec struct {
	PID     int
	App     string // process name sent in HELO (after Rename, APNM)
	Package string
	Family  Family
	// Modern mimics ART 9+ with the adbconnection plugin: requests whose
	// handler returns nothing get no reply at all (spec/jdwp.md §3).
	Modern bool
	// API is the Android API level the VM runs on (0: not set). From
	// ModernDDMAPI on, the VM answers only what recent frameworks register
	// (api.go); from 28 on it behaves as Modern.
	API int
	// WaitingForDebugger makes the VM send WAIT(0) after its HELO reply.
	WaitingForDebugger bool
	// Release makes the VM a release build marked <profileable
	// android:shell="true"/>: no JDWP (not in track-jdwp, jdwp:PID
	// refused), listed by track-app as profileable only; its threads,
	// memory and log are still there for the device shell.
	Release bool
	// UserID is the Android user the app runs as (10 for a work profile);
	// AppID its app id (0: 10000 + pid mod 9000). track-app reports both
	// from Android 15 (sim/apps.go).
	UserID, AppID int
	// PreInitialized starts the VM as "<pre-initialized>" and sends APNM with
	// App after the first step, as a freshly forked app does.
	PreInitialized bool
	Threads        int    // initial application threads besides the system ones
	HeapMax        uint64 // -Xmx in bytes
	HeapBytes      uint64 // initial heap footprint in bytes
	Fragmented     bool   // many small free gaps between live objects
	// ThreadNames adds threads with exactly these names (tests use hostile
	// names to check that views escape VM-supplied text).
	ThreadNames []string
	// HeapDumpFails, when set, is the reason the VM gives (FAIL) for
	// refusing a streamed heap dump.
	HeapDumpFails string
	// HeapDumpSilent leaves HPDU and HPDS unanswered, as on recent
	// frameworks that register no heap-dump DDM handler; `am dumpheap`
	// on the device still works.
	HeapDumpSilent bool
	// FileTracesOnly leaves method-trace-profiling-streaming out of FEAT,
	// as Dalvik before Android 2.2: traces go to a device file (MPRS/MPRE).
	FileTracesOnly bool
	// NoSDCard makes the VM's app unable to create files in /sdcard, as an
	// app without storage access under scoped storage: MPRS answers FAIL.
	NoSDCard bool
	// Deadlock makes the VM's thread dump (SIGQUIT) show two application
	// threads blocked on each other's monitors.
	Deadlock bool
	// CrashAfter makes the app crash after this many steps (an uncaught
	// exception: FATAL EXCEPTION and its stack trace in the log); the
	// device starts it again under a new pid four steps later. 0: never.
	CrashAfter int
	// NoWindows leaves the app without any window (a service-only
	// process): VULW lists none.
	NoWindows bool
	// ViewDumpFails, when set, is the reason the VM gives (FAIL) for
	// refusing every view hierarchy dump (tests use hostile text).
	ViewDumpFails string
	Seed          uint64
}

type thread struct {
	id      uint32
	name    string
	status  int8
	systid  uint32
	utime   uint32
	stime   uint32
	daemon  bool
	busy    float64 // probability of running at each step
	frames  []ddm.StackFrame
	started time.Time
	// suspends counts ThreadReference.Suspend requests not yet resumed (a
	// debugger's); ThreadReference.Status reports it.
	suspends int
}

// VM is one simulated VM. It is safe for concurrent use: its protocol handler
// runs on connection goroutines while Step advances it.
type VM struct {
	spec VMSpec

	mu          sync.Mutex
	rng         *rand.Rand
	app         string
	threads     map[uint32]*thread
	nextTID     uint32
	nextSys     uint32
	heap        *heapModel
	native      []nativePiece // Dalvik's native heap; ART reports none
	gcCount     int
	steps       int
	started     time.Time
	exited      bool
	exitCode    int32
	conn        *vmConn // the monitor currently connected, if any
	onExit      func()
	stats       *Stats
	prof        profiling
	lastProfile ProfileStart      // how the last trace was started, for tests
	files       map[string][]byte // files the VM wrote on the simulated device
	allocs      allocTracker      // allocation tracker (REAE/REAQ/REAL), sim/allocs.go
	ui          *uiModel          // windows and views (sim/views.go), built when first asked for
}

// NewVM builds a VM from spec.
func NewVM(spec VMSpec) *VM {
	if spec.HeapMax == 0 {
		spec.HeapMax = 256 << 20
	}
	if spec.HeapBytes == 0 {
		spec.HeapBytes = 16 << 20
	}
	if spec.API >= 28 {
		spec.Modern = true
	}
	vm := &VM{
		spec:    spec,
		rng:     rand.New(rand.NewPCG(spec.Seed, uint64(spec.PID))),
		app:     spec.App,
		threads: map[uint32]*thread{},
		nextTID: 1,
		nextSys: uint32(spec.PID),
		started: time.Now(),
	}
	if spec.PreInitialized {
		vm.app = "<pre-initialized>"
	}
	vm.heap = newHeapModel(vm.rng, spec.HeapBytes, spec.HeapMax, spec.Fragmented)
	if spec.Family == Dalvik {
		vm.native = newNativeHeap(vm.rng)
	}
	vm.addThread("main", false, 0.3, ddm.StackFrame{Class: "android.os.MessageQueue", Method: "nativePollOnce", Line: ddm.LineNative})
	for _, n := range []string{"Signal Catcher", "HeapTaskDaemon", "ReferenceQueueDaemon", "FinalizerDaemon", "FinalizerWatchdogDaemon"} {
		vm.addThread(n, true, 0.02, ddm.StackFrame{Class: "java.lang.Object", Method: "wait", Line: ddm.LineNative})
	}
	for i := 1; i <= 2; i++ {
		vm.addThread(fmt.Sprintf("Binder:%d_%d", spec.PID, i), false, 0.05, ddm.StackFrame{Class: "android.os.Binder", Method: "execTransact", File: "Binder.java", Line: 1021})
	}
	for _, n := range spec.ThreadNames {
		vm.addThread(n, false, 0.5, vm.workerFrames()...)
	}
	if spec.API > 0 {
		// A name whose 15-byte comm holds ") " and ends in a space: what
		// /proc parsers must survive.
		vm.addThread(hostileCommThread, false, 0.2, vm.workerFrames()...)
	}
	for i := 0; i < spec.Threads; i++ {
		vm.addThread(vm.workerName(i), vm.rng.IntN(3) == 0, 0.1+0.6*vm.rng.Float64(), vm.workerFrames()...)
	}
	return vm
}

var workerNames = []string{"RenderThread", "OkHttp Dispatcher", "AsyncTask #%d", "pool-2-thread-%d", "glide-source-thread-%d",
	"Chrome_ChildIOThread", "arch_disk_io_%d", "WM.task-%d", "DefaultDispatcher-worker-%d", "queued-work-looper"}

func (vm *VM) workerName(i int) string {
	f := workerNames[vm.rng.IntN(len(workerNames))]
	if containsVerb(f) {
		return fmt.Sprintf(f, i+1)
	}
	return f
}

func containsVerb(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '%' && s[i+1] == 'd' {
			return true
		}
	}
	return false
}

func (vm *VM) workerFrames() []ddm.StackFrame {
	app := vm.spec.Package
	if app == "" {
		app = "com.example.app"
	}
	return []ddm.StackFrame{
		vm.spec.minifyFrame(ddm.StackFrame{Class: app + ".data.Repository", Method: "load", File: "Repository.kt", Line: int32(40 + vm.rng.IntN(200))}),
		vm.spec.minifyFrame(ddm.StackFrame{Class: app + ".work.Worker", Method: "run", File: "Worker.kt", Line: int32(10 + vm.rng.IntN(90))}),
		{Class: "java.util.concurrent.ThreadPoolExecutor", Method: "runWorker", File: "ThreadPoolExecutor.java", Line: 1167},
		{Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 923},
	}
}

// addThread must be called with vm.mu held (or before the VM is shared).
func (vm *VM) addThread(name string, daemon bool, busy float64, frames ...ddm.StackFrame) *thread {
	t := &thread{
		id: vm.nextTID, name: name, daemon: daemon, busy: busy, systid: vm.nextSys,
		status: vm.statusFor("wait"), frames: frames, started: time.Now(),
	}
	vm.nextTID++
	vm.nextSys++
	vm.threads[t.id] = t
	return t
}

// statusFor maps a neutral state to the family's THST number
// (spec/ddm-chunks.md §6.5).
func (vm *VM) statusFor(state string) int8 {
	dalvik := vm.spec.Family == Dalvik
	switch state {
	case "running":
		return 1
	case "sleeping":
		return 2
	case "monitor":
		return 3
	case "wait":
		return 4
	case "native":
		if dalvik {
			return 7
		}
		return 1
	case "vmwait":
		if dalvik {
			return 8
		}
		return 4
	}
	return 1
}

// Spec returns the VM's description.
func (vm *VM) Spec() VMSpec { return vm.spec }

// PID returns the VM's process id.
func (vm *VM) PID() int { return vm.spec.PID }

// App returns the current app name.
func (vm *VM) App() string {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.app
}

// ThreadInfo is the simulator's own truth about a thread, for tests that
// compare what the monitor shows with what the VM is.
type ThreadInfo struct {
	ID     uint32
	Name   string
	Status int8
	SysTID uint32
	Daemon bool
}

// Threads lists the VM's threads by id.
func (vm *VM) Threads() []ThreadInfo {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	out := make([]ThreadInfo, 0, len(vm.threads))
	for _, t := range vm.threads {
		out = append(out, ThreadInfo{ID: t.id, Name: t.name, Status: t.status, SysTID: t.systid, Daemon: t.daemon})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// HeapTruth is the simulator's own heap figures (what HPIF reports).
type HeapTruth struct {
	MaxBytes, SizeBytes, AllocatedBytes, Objects uint64
	GCCount                                      int
}

// Heap returns the current heap figures.
func (vm *VM) Heap() HeapTruth {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return HeapTruth{vm.spec.HeapMax, vm.heap.footprint(), vm.heap.allocatedBytes(), vm.heap.objects(), vm.gcCount}
}

// Exited reports whether the VM was told to exit (EXIT chunk).
func (vm *VM) Exited() bool {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.exited
}

// Step advances the simulation by one tick: thread states change, CPU time
// accrues, threads start and die, the heap grows, and every few steps a GC
// runs (sending HPIF/HPSG to a monitor that asked for them).
func (vm *VM) Step() {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if vm.exited {
		return
	}
	vm.steps++
	vm.stepUILocked()
	c := vm.conn
	if vm.steps == 1 && vm.spec.PreInitialized {
		vm.app = vm.spec.App
		if c != nil && vm.spec.Family != JVM {
			c.sendLocked(&ddm.AppName{Name: vm.app, Extent: ddm.AppNameUserID})
		}
	}
	states := []string{"running", "sleeping", "wait", "monitor", "native", "vmwait"}
	ids := vm.sortedThreadIDs()
	for _, id := range ids {
		t := vm.threads[id]
		if vm.rng.Float64() < t.busy {
			t.status = vm.statusFor("running")
			t.utime += uint32(1 + vm.rng.IntN(5))
			if vm.rng.IntN(4) == 0 {
				t.stime += uint32(1 + vm.rng.IntN(2))
			}
		} else if vm.rng.IntN(3) == 0 {
			t.status = vm.statusFor(states[1+vm.rng.IntN(len(states)-1)])
		}
	}
	// Thread churn among application threads.
	if vm.rng.IntN(4) == 0 && len(vm.threads) < 8+2*vm.spec.Threads+4 {
		t := vm.addThread(vm.workerName(int(vm.nextTID)), false, 0.5*vm.rng.Float64(), vm.workerFrames()...)
		if c != nil && c.threadNotify {
			c.sendLocked(&ddm.ThreadCreated{ID: t.id, Name: t.name})
		}
	}
	if vm.rng.IntN(5) == 0 {
		var candidates []uint32
		for _, id := range ids {
			if id > 8 { // never the system threads
				candidates = append(candidates, id)
			}
		}
		if len(candidates) > vm.spec.Threads/2 {
			id := candidates[vm.rng.IntN(len(candidates))]
			delete(vm.threads, id)
			if c != nil && c.threadNotify {
				c.sendLocked(&ddm.ThreadDied{ID: id})
			}
		}
	}
	// Now and then an application thread renames itself (Thread.setName):
	// THNM while notifications are on.
	if vm.rng.IntN(10) == 0 {
		var apps []uint32
		for _, id := range vm.sortedThreadIDs() {
			if id > 8 {
				apps = append(apps, id)
			}
		}
		if len(apps) > 0 {
			t := vm.threads[apps[vm.rng.IntN(len(apps))]]
			t.name = fmt.Sprintf("worker-%d (renamed)", vm.steps)
			if c != nil && c.threadNotify {
				c.sendLocked(&ddm.ThreadRenamed{ID: t.id, Name: t.name})
			}
		}
	}
	vm.heap.allocate(vm.rng)
	vm.recordAllocationsLocked(allocsPerStep)
	if vm.steps%5 == 0 || vm.heap.footprint() > vm.spec.HeapMax {
		vm.gcLocked(ddm.HeapInfoEveryGC)
	}
}

func (vm *VM) sortedThreadIDs() []uint32 {
	ids := make([]uint32, 0, len(vm.threads))
	for id := range vm.threads {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// GC runs a collection now, as HPGC asks.
func (vm *VM) GC() {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	vm.gcLocked(ddm.HeapInfoEveryGC)
}

func (vm *VM) gcLocked(reason uint8) {
	vm.heap.collect(vm.rng)
	vm.gcCount++
	c := vm.conn
	if c == nil {
		return
	}
	if c.hpifWhen == ddm.HeapInfoEveryGC || c.hpifWhen == ddm.HeapInfoNextGC {
		c.sendLocked(vm.heapInfoLocked(c.hpifWhen))
		if c.hpifWhen == ddm.HeapInfoNextGC {
			c.hpifWhen = ddm.HeapInfoNever
		}
	}
	if c.hpsgWhen == ddm.SegmentWhenEveryGC || c.nhsgWhen == ddm.SegmentWhenEveryGC {
		vm.sendSegmentsLocked(c)
	}
}

func (vm *VM) heapInfoLocked(reason uint8) *ddm.HeapInfo {
	ts := uint64(time.Now().UnixMilli())
	if vm.spec.Family == ART {
		ts = uint64(time.Since(vm.started).Milliseconds()) + 1_000_000
	}
	return &ddm.HeapInfo{Heaps: []ddm.HeapStats{{
		HeapID:           1,
		Timestamp:        ts,
		Reason:           reason,
		MaxBytes:         uint32(min(vm.spec.HeapMax, 0xFFFFFFFF)),
		SizeBytes:        uint32(min(vm.heap.footprint(), 0xFFFFFFFF)),
		AllocatedBytes:   uint32(min(vm.heap.allocatedBytes(), 0xFFFFFFFF)),
		AllocatedObjects: uint32(min(vm.heap.objects(), 0xFFFFFFFF)),
	}}}
}

// Run steps the VM every interval until stop is closed.
func (vm *VM) Run(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			vm.Step()
		}
	}
}
