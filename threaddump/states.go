package threaddump

// State classes: the lowercase state names the dashboard uses for colouring
// (style.Palette.ThreadState), one per row of the common model in spec §3.3.
const (
	ClassRunning   = "running"
	ClassNative    = "native"
	ClassMonitor   = "monitor"
	ClassWait      = "wait"
	ClassTimedWait = "timed-wait"
	ClassSleeping  = "sleeping"
	ClassVMWait    = "vmwait"
	ClassSuspended = "suspended"
	ClassStarting  = "starting"
	ClassZombie    = "zombie"
	ClassUnknown   = "unknown"
)

// ClassOrder lists the state classes in the order a reader wants them:
// the threads most likely to explain a hang first.
var ClassOrder = []string{
	ClassMonitor, ClassRunning, ClassNative, ClassWait, ClassTimedWait, ClassSleeping,
	ClassVMWait, ClassSuspended, ClassStarting, ClassZombie, ClassUnknown,
}

var classLabels = map[string]string{
	ClassRunning:   "running",
	ClassNative:    "native",
	ClassMonitor:   "blocked on a monitor",
	ClassWait:      "waiting",
	ClassTimedWait: "timed waiting",
	ClassSleeping:  "sleeping",
	ClassVMWait:    "waiting inside the VM",
	ClassSuspended: "suspended",
	ClassStarting:  "starting",
	ClassZombie:    "terminated",
	ClassUnknown:   "unknown state",
}

// ClassLabel returns a heading for a state class, e.g. "blocked on a monitor".
func ClassLabel(class string) string {
	if l, ok := classLabels[class]; ok {
		return l
	}
	return classLabels[ClassUnknown]
}

// StateInfo explains one printed thread state.
type StateInfo struct {
	Name        string // as printed: "Blocked", "MONITOR"
	VM          VM     // VMART or VMDalvik; VMUnknown for names in neither table
	Class       string // one of the Class constants
	Explanation string // a short plain-words explanation
}

// States lists every state name of spec §3.1 (ART) and §3.2 (Dalvik).
var States = []StateInfo{
	// ART (runtime/thread_state.h; printed as the enum name without 'k').
	{"Terminated", VMART, ClassZombie, "finished: run() returned, the native thread is still being torn down"},
	{"Runnable", VMART, ClassRunning, "running or ready to run Java code"},
	{"TimedWaiting", VMART, ClassTimedWait, "in Object.wait(timeout), waiting for a notify or the timeout"},
	{"Sleeping", VMART, ClassSleeping, "in Thread.sleep()"},
	{"Blocked", VMART, ClassMonitor, "waiting to enter a synchronized block or method whose monitor another thread holds"},
	{"Waiting", VMART, ClassWait, "in Object.wait() with no timeout, waiting for another thread's notify"},
	{"WaitingForLockInflation", VMART, ClassMonitor, "waiting while a thin lock it wants is inflated into a full monitor"},
	{"WaitingForTaskProcessor", VMART, ClassVMWait, "heap task daemon idle, waiting for garbage-collection work"},
	{"WaitingForGcToComplete", VMART, ClassVMWait, "waiting for a garbage collection to finish"},
	{"WaitingForCheckPointsToRun", VMART, ClassVMWait, "garbage collector waiting for the other threads to run a checkpoint"},
	{"WaitingPerformingGc", VMART, ClassVMWait, "doing a garbage collection"},
	{"WaitingForDebuggerSend", VMART, ClassVMWait, "waiting to send a packet to the debugger"},
	{"WaitingForDebuggerToAttach", VMART, ClassVMWait, "in Debug.waitForDebugger(), waiting for a debugger to attach"},
	{"WaitingInMainDebuggerLoop", VMART, ClassVMWait, "JDWP thread idle, waiting for debugger commands"},
	{"WaitingForDebuggerSuspension", VMART, ClassVMWait, "waiting for the debugger to suspend every thread"},
	{"WaitingForJniOnLoad", VMART, ClassVMWait, "waiting for another thread's JNI_OnLoad to finish loading a library"},
	{"WaitingForSignalCatcherOutput", VMART, ClassVMWait, "waiting for the signal catcher to finish writing"},
	{"WaitingInMainSignalCatcherLoop", VMART, ClassVMWait, "signal catcher idle, waiting for a signal"},
	{"WaitingForDeoptimization", VMART, ClassVMWait, "waiting for compiled code to be deoptimized"},
	{"WaitingForMethodTracingStart", VMART, ClassVMWait, "waiting for method tracing to start"},
	{"WaitingForVisitObjects", VMART, ClassVMWait, "waiting while the runtime walks the heap's objects"},
	{"WaitingForGetObjectsAllocated", VMART, ClassVMWait, "waiting while the runtime counts allocated objects"},
	{"WaitingWeakGcRootRead", VMART, ClassVMWait, "waiting to read a weak reference while the GC processes them"},
	{"WaitingForGcThreadFlip", VMART, ClassVMWait, "waiting for the garbage collector's thread flip to finish"},
	{"NativeForAbort", VMART, ClassVMWait, "checking the other threads while the runtime aborts"},
	{"Starting", VMART, ClassStarting, "native thread created, not yet running Java code"},
	{"Native", VMART, ClassNative, "in a native (JNI) method; may be running or blocked in native code"},
	{"Suspended", VMART, ClassSuspended, "suspended by the garbage collector or a debugger"},
	{"ObsoleteRunnable", VMART, ClassUnknown, "placeholder state that should never appear in a dump"},

	// Dalvik (vm/Thread.cpp dvmGetThreadStatusStr).
	{"ZOMBIE", VMDalvik, ClassZombie, "terminated, being torn down"},
	{"RUNNABLE", VMDalvik, ClassRunning, "running or ready to run Java code"},
	{"TIMED_WAIT", VMDalvik, ClassTimedWait, "in Object.wait(timeout) or Thread.sleep()"},
	{"MONITOR", VMDalvik, ClassMonitor, "waiting to enter a synchronized block or method whose monitor another thread holds"},
	{"WAIT", VMDalvik, ClassWait, "in Object.wait() with no timeout, waiting for another thread's notify"},
	{"INITIALIZING", VMDalvik, ClassStarting, "allocated, not yet running"},
	{"STARTING", VMDalvik, ClassStarting, "started, not yet on the VM's thread list"},
	{"NATIVE", VMDalvik, ClassNative, "in a native (JNI) method; may be running or blocked in native code"},
	{"VMWAIT", VMDalvik, ClassVMWait, "waiting for a VM-internal resource such as an internal lock"},
	{"SUSPENDED", VMDalvik, ClassSuspended, "suspended by the garbage collector or a debugger"},
	{"UNKNOWN", VMDalvik, ClassUnknown, "the VM did not know the thread's state"},
}

var statesByName = func() map[string]StateInfo {
	m := make(map[string]StateInfo, len(States))
	for _, s := range States {
		m[s.Name] = s
	}
	return m
}()

var unattachedState = StateInfo{
	Name: "(not attached)", VM: VMUnknown, Class: ClassNative,
	Explanation: "native thread not attached to the VM: no Java stack",
}

// LookupState explains a state as printed. Names are case-sensitive (ART's
// "Native" and Dalvik's "NATIVE" are different entries); an unknown name
// gets ClassUnknown, as spec §3.1 asks of a parser meeting a newer state.
func LookupState(name string) StateInfo {
	if s, ok := statesByName[name]; ok {
		return s
	}
	return StateInfo{Name: name, VM: VMUnknown, Class: ClassUnknown, Explanation: "a state ddmtui does not know"}
}
