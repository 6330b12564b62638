package monitor

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ddmtui/ddmtui/devshell"
)

// Feature names a thing the monitor shows or does for a VM.
type Feature string

// Features, as keys of VM.Capabilities and of the JSON "capabilities".
const (
	FeatThreads     Feature = "threads"
	FeatStack       Feature = "stack"
	FeatHeapSummary Feature = "heap_summary"
	FeatHeapMap     Feature = "heap_map"
	FeatGC          Feature = "gc"
	FeatAllocations Feature = "allocations"
	FeatHPROF       Feature = "hprof"
	FeatMethodTrace Feature = "method_trace"
	FeatThreadDump  Feature = "thread_dump"
	FeatLogcat      Feature = "logcat"
	FeatMemory      Feature = "memory"
)

// AllFeatures lists the features in display order.
var AllFeatures = []Feature{FeatThreads, FeatStack, FeatHeapSummary, FeatHeapMap, FeatGC, FeatAllocations,
	FeatHPROF, FeatMethodTrace, FeatThreadDump, FeatLogcat, FeatMemory}

// Source names where a feature's data comes from.
type Source string

// Sources. The device-shell sources (proc, dumpsys, am, shell) run
// commands through adb on the VM's device.
const (
	SourceDDM     Source = "ddm"     // DDM chunks on the VM's JDWP connection
	SourceJDWP    Source = "jdwp"    // standard JDWP commands (VMs that refuse DDM)
	SourceProc    Source = "proc"    // cat /proc/PID/task/*/stat
	SourceDumpsys Source = "dumpsys" // dumpsys meminfo PID
	SourceAm      Source = "am"      // am dumpheap / am profile
	SourceShell   Source = "shell"   // other device shell commands (kill -3, logcat)
	// SourcePerfetto: the device's perfetto (a Java heap graph of a
	// profileable or debuggable app, Android 11+).
	SourcePerfetto Source = "perfetto"
	SourceNone     Source = "none"
)

// Capability is the source chosen for one feature, and why there is none.
type Capability struct {
	Source Source
	Reason string // one line, set when Source is SourceNone
}

// Capabilities maps every feature to its source.
type Capabilities map[Feature]Capability

func (c Capabilities) clone() Capabilities {
	if c == nil {
		return nil
	}
	return maps.Clone(c)
}

// Source returns the source of f, SourceNone when not decided.
func (c Capabilities) Source(f Feature) Source {
	if cp, ok := c[f]; ok {
		return cp.Source
	}
	return SourceNone
}

// answer is what a VM did with a kind of request: not known yet, answered,
// or left unanswered past its bounded wait.
type answer int

const (
	unknown answer = iota
	answered
	unanswered
)

// capInput is what capabilities are decided from.
type capInput struct {
	kind     string // "ddm", "jdwp", "silent", "process" (no JDWP), or "" before HELO is decided
	device   bool   // the VM is on an adb device (device shell available)
	api      int    // device API level, 0 unknown
	thst     answer // THST (DdmHandleThread: THEN, THST, STKL)
	hpif     answer // HPIF (DdmHandleHeap: HPIF, HPSG, HPGC, REAx, HPDU/HPDS)
	features []string
	memory   answer // dumpsys meminfo parsed, or failed
	memWhy   string // why dumpsys meminfo gave nothing
	memOff   bool   // --meminfo-interval 0
	procWhy  string // why /proc gave no threads (last poll), "" when it did
}

// ddmThreadsGoneAPI is the first API level assumed to lack the frameworks'
// DDM thread and heap handlers (DdmHandleThread, DdmHandleHeap): a 2020-era
// frameworks (Android 10, API 29) still registers them, recent ones do not
// (spec/ddm-chunks.md §4). From the moment a device VM's level is known to
// be at least this, its threads and heap summary come from the device shell
// at once, without waiting for THST and HPIF to go unanswered; a VM that
// answers them after all (a custom framework) gets its DDM sources back.
const ddmThreadsGoneAPI = 30

func none(why string) Capability { return Capability{Source: SourceNone, Reason: why} }

// decideCapabilities picks a source per feature.
func decideCapabilities(in capInput) Capabilities {
	c := Capabilities{}
	has := func(f string) bool { return slices.Contains(in.features, f) }
	// modernWhy says why a DDM feature has no source: what needs which
	// frameworks handler (DdmHandleThread or DdmHandleHeap).
	modernWhy := func(what, verb, handler string) string {
		if in.api >= ddmThreadsGoneAPI {
			return fmt.Sprintf("%s %s the DDM %s handler, which Android 11 and later no longer register", what, verb, handler)
		}
		return fmt.Sprintf("%s %s the DDM %s handler, and this VM leaves its requests unanswered", what, verb, handler)
	}
	// Device-shell features first: they do not depend on the VM's protocol.
	switch {
	case !in.device:
		c[FeatMemory] = none("process memory needs an adb device (dumpsys meminfo)")
		c[FeatLogcat] = none("logcat needs an adb device")
	default:
		c[FeatLogcat] = Capability{Source: SourceShell}
		switch {
		case in.memOff:
			c[FeatMemory] = none("turned off (--meminfo-interval 0)")
		case in.memory == unanswered:
			c[FeatMemory] = none(in.memWhy)
		default:
			c[FeatMemory] = Capability{Source: SourceDumpsys}
		}
	}
	switch in.kind {
	case "":
		for _, f := range AllFeatures {
			if _, ok := c[f]; !ok {
				c[f] = none("waiting for the VM's HELO reply")
			}
		}
		return c
	case "silent":
		for _, f := range AllFeatures {
			if _, ok := c[f]; !ok || f != FeatMemory && f != FeatLogcat {
				c[f] = none("the VM does not answer HELO")
			}
		}
		if in.device && in.procWhy == "" {
			c[FeatThreads] = Capability{Source: SourceProc}
		}
		return c
	case "process":
		// A profileable process without JDWP: the device shell is all
		// there is. One line says what it cannot give.
		for _, f := range AllFeatures {
			if _, ok := c[f]; !ok {
				c[f] = none(NoJDWPReason)
			}
		}
		switch {
		case !in.device:
		case in.procWhy != "":
			c[FeatThreads] = none(in.procWhy)
		default:
			c[FeatThreads] = Capability{Source: SourceProc}
		}
		if in.device && !in.memOff && in.memory != unanswered {
			c[FeatHeapSummary] = Capability{Source: SourceDumpsys}
		}
		// Its Java heap as a heap graph (HeapGraphPreferred): perfetto
		// dumps profileable apps from Android 11; an unknown level is
		// taken as recent (such a process is known from track-app, 12+).
		if in.device && (in.api == 0 || in.api >= devshell.HeapGraphAPI) {
			c[FeatHPROF] = Capability{Source: SourcePerfetto}
		}
		return c
	case "jdwp":
		c[FeatThreads] = Capability{Source: SourceJDWP}
		for _, f := range []Feature{FeatStack, FeatHeapSummary, FeatHeapMap, FeatGC, FeatAllocations, FeatHPROF, FeatMethodTrace} {
			c[f] = none("the VM does not speak DDM; attach a debugger through the proxy")
		}
		if in.device {
			c[FeatThreadDump] = Capability{Source: SourceShell}
		} else {
			c[FeatThreadDump] = none("thread dumps need an adb device (debuggerd -j or kill -3)")
		}
		return c
	}
	// A DDM VM. On a device whose frameworks are known to lack the
	// handlers, an unanswered-yet request counts as unanswered.
	if in.device && in.api >= ddmThreadsGoneAPI {
		if in.thst == unknown {
			in.thst = unanswered
		}
		if in.hpif == unknown {
			in.hpif = unanswered
		}
	}
	switch {
	case in.thst != unanswered:
		c[FeatThreads] = Capability{Source: SourceDDM}
		c[FeatStack] = Capability{Source: SourceDDM}
	case in.device && in.procWhy != "":
		c[FeatThreads] = none(in.procWhy)
		c[FeatStack] = none(modernWhy("stacks", "need", "thread"))
	case in.device:
		c[FeatThreads] = Capability{Source: SourceProc}
		c[FeatStack] = none(modernWhy("stacks", "need", "thread"))
	default:
		c[FeatThreads] = none("the VM does not answer THST and is not on an adb device (no /proc)")
		c[FeatStack] = none(modernWhy("stacks", "need", "thread"))
	}
	heapDDM := in.hpif != unanswered
	for _, f := range []Feature{FeatHeapSummary, FeatHeapMap, FeatGC, FeatAllocations} {
		if heapDDM {
			c[f] = Capability{Source: SourceDDM}
		}
	}
	if !heapDDM {
		if in.device && !in.memOff && in.memory != unanswered {
			c[FeatHeapSummary] = Capability{Source: SourceDumpsys}
		} else {
			c[FeatHeapSummary] = none(modernWhy("the heap summary", "needs", "heap"))
		}
		c[FeatHeapMap] = none(modernWhy("the heap map", "needs", "heap"))
		c[FeatGC] = none(modernWhy("GC requests", "need", "heap"))
		c[FeatAllocations] = none(modernWhy("allocation tracking", "needs", "heap"))
	}
	switch {
	case heapDDM && (has("hprof-heap-dump-streaming") || has("hprof-heap-dump") && in.device):
		c[FeatHPROF] = Capability{Source: SourceDDM}
	case in.device:
		c[FeatHPROF] = Capability{Source: SourceAm}
	case !heapDDM:
		c[FeatHPROF] = none(modernWhy("heap dumps over DDM", "need", "heap"))
	default:
		c[FeatHPROF] = none("the VM can only dump its heap to a device file, and it is not on an adb device")
	}
	switch {
	case has("method-trace-profiling-streaming") || has("method-sample-profiling"):
		c[FeatMethodTrace] = Capability{Source: SourceDDM}
	case has("method-trace-profiling") && in.device:
		c[FeatMethodTrace] = Capability{Source: SourceDDM}
	default:
		c[FeatMethodTrace] = none("the VM lists no streaming method-trace feature, and file traces need an adb device")
	}
	switch {
	case !in.device:
		c[FeatThreadDump] = none("thread dumps need an adb device (debuggerd -j or kill -3)")
	default:
		// debuggerd -j (Android 8+, with root or run-as for a debuggable
		// app), else kill -3 and the ANR file; a dump that no way gives
		// fails with what each way answered (devicedumps.go).
		c[FeatThreadDump] = Capability{Source: SourceShell}
	}
	return c
}

// NotServedError is returned at once for a request whose feature has no
// source on this VM (e.g. STKL to a VM that left THST unanswered), instead
// of waiting for a reply that will not come. Reason is the capability's.
type NotServedError struct {
	Feature Feature
	Reason  string
}

func (e *NotServedError) Error() string { return e.Reason }
