// Package monitor is ddmtui's engine: it turns VM endpoints found by scan/
// into live sessions (DDM over jdwp.Conn, or standard JDWP polling for VMs
// that refuse DDM), keeps the latest model of every VM in a Store, and
// publishes typed, coalescing events on a Bus that views and headless
// commands subscribe to. Nothing here touches a terminal.
//
// Main types: Engine (discovery → sessions), Session (one VM), Store (the
// model), Bus/Subscription (events), and the model values VM, Thread, Heap.
package monitor

import (
	"time"
)

// DebuggerState says whether a debugger is involved with a VM.
type DebuggerState string

// Debugger states, as shown in JSON.
const (
	DebuggerNone     DebuggerState = "none"
	DebuggerWaiting  DebuggerState = "waiting"  // the app called Debug.waitForDebugger (WAIT chunk)
	DebuggerAttached DebuggerState = "attached" // a debugger is connected through the proxy
)

// VM is what the monitor knows about one VM. Values are snapshots: the
// engine never mutates a VM after publishing it.
type VM struct {
	Key       string // unique: "local:8000" or "adb:SERIAL:PID"
	Source    string // "local:8000" or "adb:SERIAL"
	PID       int
	App       string
	VMIdent   string // HELO vm ident, e.g. "Dalvik v2.1.0", or the JDWP VM name for non-DDM VMs
	DDM       bool
	Family    string // "dalvik", "art", "jvm" or ""
	UserID    int
	ABI       string
	JVMFlags  string
	Package   string
	Features  []string
	Debugger  DebuggerState
	DebugPort int
	Connected time.Time
	Threads   []Thread
	Heaps     []Heap
	Err       string // last non-fatal problem, for the status line
	// API is the device's API level (getprop ro.build.version.sdk), 0 for
	// VMs on local ports or while it is not known.
	API int
	// Model is the device's model (getprop ro.product.model, read with
	// the API level), "" for VMs on local ports or while it is not known.
	// It comes from the device: escape it before showing it.
	Model string
	// Capabilities says, per feature, which source serves it (capability.go).
	Capabilities Capabilities
	// Memory is the process memory from dumpsys meminfo, nil until read.
	Memory *Memory

	// Debuggable: the VM has JDWP (found on a port, by track-jdwp, or
	// listed debuggable by track-app). Profileable: track-app lists it as
	// profileable by the shell. A profileable process that is not
	// debuggable has no JDWP: its entry is fed by the device shell only.
	Debuggable, Profileable bool
	// Tracked: the device's track-app lists the process (Android 12+), so
	// Profileable and Architecture are the device's word.
	Tracked bool
	// Architecture is track-app's ("arm64", "arm", "x86_64", "x86"), ""
	// when not known.
	Architecture string
	// UserIDKnown says UserID was reported (HELO, or track-app on Android
	// 15+); UID (the app's Linux uid, Android 15+) is valid when UIDKnown.
	UserIDKnown bool
	UID         int
	UIDKnown    bool

	// TooManyThreads reports that the thread table reached its cap
	// (SessionOptions.MaxThreads): threads created since are not shown.
	TooManyThreads bool

	// Views are the latest view hierarchy dumps taken of the VM's windows
	// (by a command or the views pane; never polled), one per window.
	Views []WindowDump
}

// ProcessOnly reports a profileable process without JDWP (track-app):
// its entry has no DDM, no stacks, no heap map and no debugger port.
func (vm VM) ProcessOnly() bool { return vm.Profileable && !vm.Debuggable }

// Thread is one thread of a VM.
type Thread struct {
	ID      uint64 // DDM thread id (small) or JDWP threadID for non-DDM VMs
	Name    string
	Status  int    // the number from the wire (THST status or JDWP ThreadStatus)
	State   string // lowercase name of Status for the VM family (spec/ddm-chunks.md §6.5)
	SysTID  int
	UTime   int // clock ticks
	STime   int
	Daemon  bool
	Created time.Time
	Changed time.Time // when State last changed, as of the table's last read (the dashboard's blink)
	// Source is where the row comes from: SourceDDM (THST), SourceJDWP or
	// SourceProc (/proc/PID/task/TID/stat; ID and SysTID are the tid,
	// Status is -1 and ProcState holds the kernel's state letter).
	Source    Source
	ProcState string
	// CPUPercent is the thread's CPU use between the last two samples
	// ((utime+stime) delta over wall time; 100 = one core), valid when
	// CPUKnown (not on a thread's first sample).
	CPUPercent float64
	CPUKnown   bool
}

// Heap is one heap's HPIF summary and, when segments arrived, the segment
// summary.
type Heap struct {
	ID             int
	MaxBytes       uint64
	SizeBytes      uint64
	AllocatedBytes uint64
	Objects        uint64
	Timestamp      uint64 // HPIF timestamp (ms; epoch on Dalvik, monotonic on ART)
	Reason         int
	GCCount        int
	Updated        time.Time
	Segments       *SegmentSummary
	// History holds the HPIF reports of this session, oldest first, at most
	// HistoryLen of them: growth and leaks show across GCs.
	History []HeapSample
}

// HeapSample is one HPIF report kept in a heap's history.
type HeapSample struct {
	Time           time.Time
	SizeBytes      uint64
	AllocatedBytes uint64
	Objects        uint64
	GCCount        int
}

// HistoryLen bounds a heap's history.
const HistoryLen = 240

func appendSample(h []HeapSample, s HeapSample) []HeapSample {
	if len(h) >= HistoryLen {
		n := copy(h, h[len(h)-HistoryLen+1:])
		h = h[:n]
	}
	return append(h, s)
}

// SegmentSummary counts allocation units of the last complete HPSG set.
type SegmentSummary struct {
	UnitSize     int
	TotalUnits   uint64
	UnitsByKind  [8]uint64 // index: HPSG kind (0 object … 7 native)
	UnitsBySolid [8]uint64 // index: solidity (0 free, 1 hard, …)
	Segments     int
	Updated      time.Time
}

// Events published on the Bus. Each carries a snapshot.

// VMUpdated says a VM appeared or its identity/debugger state changed.
type VMUpdated struct{ VM VM }

// VMGone says a VM's session ended.
type VMGone struct {
	Key    string
	Reason string
	// Failed says the endpoint never worked as a VM (HELO unanswered, not
	// JDWP after the handshake, a protocol error before HELO's reply):
	// `list` reports it as failed, and so does the dashboard.
	Failed bool
}

// ThreadsUpdated carries a VM's thread table.
type ThreadsUpdated struct {
	Key     string
	Threads []Thread
}

// HeapUpdated carries a VM's heaps.
type HeapUpdated struct {
	Key   string
	Heaps []Heap
}

// CoalesceKey implementations: a newer event of the same kind for the same VM
// replaces an older undelivered one. Appearance and disappearance share a key
// so the latest lifecycle state wins.
func (e VMUpdated) CoalesceKey() string      { return "vm/" + e.VM.Key }
func (e VMGone) CoalesceKey() string         { return "vm/" + e.Key }
func (e ThreadsUpdated) CoalesceKey() string { return "threads/" + e.Key }
func (e HeapUpdated) CoalesceKey() string    { return "heap/" + e.Key }
