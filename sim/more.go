package sim

import (
	"bytes"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/trace"
)

// profiling is a VM's method-tracing state; it belongs to the VM, not to the
// monitor connection (a trace started by one DDMS keeps running).
type profiling struct {
	mode   uint8 // ddm.ProfilingInactive, ProfilingMethodTrace, ProfilingSampling
	start  time.Time
	buffer uint32
	file   string // MPRS: where MPRE writes the trace on the "device"
	flags  uint32 // MPRS/MPSS flags (ddm.TraceFormatV2 asks for format V2)
	runs   uint64 // traces produced, for distinct seeds
}

// ProfileStart is how the last trace was started: its mode (MPSS/MPRS give
// ddm.ProfilingMethodTrace, SPSS ddm.ProfilingSampling), SPSS's interval,
// the buffer size and the flags asked for, and the device file (MPRS).
type ProfileStart struct {
	Mode           uint8
	IntervalMicros uint32
	BufferSize     uint32
	Flags          uint32
	File           string
}

// TraceFormatV2API is the first API level whose simulated VMs answer a
// file trace asked for with ddm.TraceFormatV2 with a format V2 file
// (version 5), as ART does from Android 15; below it the flag is ignored.
// Streamed traces (MPSE) stay format V1, as ART's.
const TraceFormatV2API = 35

// recordsPerSecond is how many trace records a simulated VM produces per
// second of tracing.
const recordsPerSecond = 20000

// traceBytesLocked builds a real dmtrace file (key text followed by the
// binary data, version 3, dual clock as ART writes it) covering the time
// since tracing started, with the VM's own threads and pid.
func (vm *VM) traceBytesLocked() ([]byte, error) {
	p := &vm.prof
	elapsed := time.Since(p.start)
	records := int(elapsed.Seconds() * recordsPerSecond)
	records = max(records, 2000)
	if p.buffer > 0 {
		records = min(records, int(p.buffer/14))
	}
	records = min(records, 2_000_000)
	var threads []trace.Thread
	for _, id := range vm.sortedThreadIDs() {
		threads = append(threads, trace.Thread{ID: id, Name: vm.threads[id].name})
	}
	p.runs++
	tr, err := trace.Synth{Seed: vm.spec.Seed*7919 + p.runs, Records: records, PID: vm.spec.PID,
		NamedThreads: threads, Clocks: trace.Dual, EntersAtStart: true}.Trace()
	if err != nil {
		return nil, err
	}
	if p.file != "" && p.flags&ddm.TraceFormatV2 != 0 && vm.spec.API >= TraceFormatV2API {
		var b bytes.Buffer
		if err := trace.EncodeV2(&b, tr, trace.V2Options{PID: vm.spec.PID}); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	return tr.MarshalBinary()
}

// File returns a file the VM wrote on the simulated device (MPRS/MPRE), or
// nil.
func (vm *VM) File(path string) []byte {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.files[path]
}

// LastProfileStart reports how the last trace was started (zero if never).
func (vm *VM) LastProfileStart() ProfileStart {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.lastProfile
}

// ProfilingMode reports the VM's profiling state (MPRQ's answer).
func (vm *VM) ProfilingMode() uint8 {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.prof.mode
}

// handleMoreDDMLocked answers the allocation-tracker and profiling chunks
// (spec/ddm-chunks.md §7.7, §8). It reports whether it replied.
func (vm *VM) handleMoreDDMLocked(c *vmConn, p *jdwp.Packet, msg ddm.Message) bool {
	prof := &vm.prof
	fail := func(msg string) { c.replyChunk(p, &ddm.FailError{Code: 1, Message: msg}) }
	switch m := msg.(type) {
	case *ddm.ViewWindowsRequest, *ddm.ViewRootRequest, *ddm.ViewOpRequest:
		vm.handleViewLocked(c, p, msg)
	case *ddm.AllocTrackerStatusRequest:
		c.replyChunk(p, &ddm.AllocTrackerStatus{Enabled: vm.allocTrackingLocked()})
	case *ddm.AllocTrackerEnableRequest:
		vm.setAllocTrackingLocked(m.Enable)
		c.replyEmpty(p)
	case *ddm.AllocationsRequest:
		c.replyChunk(p, vm.allocationsLocked())
	case *ddm.HeapDumpStreamRequest:
		if !vm.hasFeatureLocked("hprof-heap-dump-streaming") {
			return false
		}
		if vm.spec.HeapDumpSilent {
			break // no data, no reply
		}
		if vm.spec.HeapDumpFails != "" {
			fail(vm.spec.HeapDumpFails)
			break
		}
		data, err := vm.hprofLocked("")
		if err != nil {
			fail("heap dump failed: " + err.Error())
			break
		}
		// The whole file arrives as an unsolicited HPDS chunk, then the
		// (empty, or on modern ART absent) reply (spec/ddm-chunks.md §7.6).
		c.sendLocked(&ddm.HeapDumpData{HPROF: data})
		c.replyEmpty(p)
	case *ddm.HeapDumpRequest:
		if !vm.hasFeatureLocked("hprof-heap-dump") {
			return false
		}
		if vm.spec.HeapDumpSilent {
			break
		}
		data, err := vm.hprofLocked("")
		if err != nil || m.FileName == "" {
			c.replyChunk(p, &ddm.HeapDumpResult{Result: 0xFF})
			break
		}
		if vm.files == nil {
			vm.files = map[string][]byte{}
		}
		vm.files[m.FileName] = data
		c.replyChunk(p, &ddm.HeapDumpResult{Result: 0})
	case *ddm.ProfilingStatusRequest:
		c.replyChunk(p, &ddm.ProfilingStatus{Mode: prof.mode})
	case *ddm.MethodTraceStreamStartRequest:
		if prof.mode != ddm.ProfilingInactive {
			fail("method tracing is already active")
			break
		}
		*prof = profiling{mode: ddm.ProfilingMethodTrace, start: time.Now(), buffer: m.BufferSize, flags: m.Flags, runs: prof.runs}
		vm.lastProfile = ProfileStart{Mode: prof.mode, BufferSize: m.BufferSize, Flags: m.Flags}
		c.replyEmpty(p)
	case *ddm.SamplingStartRequest:
		if vm.spec.Family == Dalvik {
			return false // Dalvik of this era has no sampling profiler: unknown chunk
		}
		if prof.mode != ddm.ProfilingInactive {
			fail("method tracing is already active")
			break
		}
		*prof = profiling{mode: ddm.ProfilingSampling, start: time.Now(), buffer: m.BufferSize, runs: prof.runs}
		vm.lastProfile = ProfileStart{Mode: prof.mode, IntervalMicros: m.IntervalMicros, BufferSize: m.BufferSize}
		c.replyEmpty(p)
	case *ddm.MethodTraceStartRequest:
		if prof.mode != ddm.ProfilingInactive {
			fail("method tracing is already active")
			break
		}
		if vm.spec.NoSDCard && strings.HasPrefix(m.FileName, "/sdcard/") {
			fail("Unable to open trace file '" + m.FileName + "': Permission denied")
			break
		}
		*prof = profiling{mode: ddm.ProfilingMethodTrace, start: time.Now(), buffer: m.BufferSize, file: m.FileName, flags: m.Flags, runs: prof.runs}
		vm.lastProfile = ProfileStart{Mode: prof.mode, BufferSize: m.BufferSize, Flags: m.Flags, File: m.FileName}
		c.replyEmpty(p)
	case *ddm.MethodTraceStreamStopRequest, *ddm.SamplingStopRequest:
		if prof.mode == ddm.ProfilingInactive || prof.file != "" {
			fail("method tracing is not active")
			break
		}
		body, err := vm.traceBytesLocked()
		prof.mode = ddm.ProfilingInactive
		if err != nil {
			fail("trace failed: " + err.Error())
			break
		}
		// The whole file arrives as an unsolicited MPSE chunk, then the
		// (empty, or on modern ART absent) reply (spec/ddm-chunks.md §8).
		c.sendLocked(&ddm.MethodTraceData{Trace: body})
		c.replyEmpty(p)
	case *ddm.MethodTraceStopRequest:
		if prof.mode == ddm.ProfilingInactive || prof.file == "" {
			c.replyChunk(p, &ddm.MethodTraceResult{Result: 1})
			break
		}
		body, err := vm.traceBytesLocked()
		prof.mode = ddm.ProfilingInactive
		if err != nil {
			c.replyChunk(p, &ddm.MethodTraceResult{Result: 1})
			break
		}
		if vm.files == nil {
			vm.files = map[string][]byte{}
		}
		vm.files[prof.file] = body
		c.replyChunk(p, &ddm.MethodTraceResult{Result: 0})
	default:
		return false
	}
	return true
}

func (vm *VM) hasFeatureLocked(name string) bool {
	for _, f := range vm.features() {
		if f == name {
			return true
		}
	}
	return false
}

// hprofLocked builds a real Android HPROF (JAVA PROFILE 1.0.3): a scene
// (hprof/scene: leaked activities through a static listener, a Handler
// message and a thread's Runnable, detached fragments, duplicate strings,
// bitmaps) in an app heap that also holds the VM's live objects by kind.
// bitmaps is `am dumpheap -b`'s format ("" without -b): on API 35+ the
// bitmaps' pixels are then in Bitmap.dumpData.
func (vm *VM) hprofLocked(bitmaps string) ([]byte, error) {
	counts := map[ddm.Kind]int{}
	for _, a := range vm.heap.allocs {
		if a.state != ddm.StateFree {
			counts[a.state.Kind()]++
		}
	}
	// Keep the file small: one instance per 200 live objects of a kind.
	scale := func(n int) int { return max(1, n/200) }
	pkg := vm.spec.Package
	if pkg == "" {
		pkg = "com.example.app"
	}
	heap := []hprof.ClassCount{
		{Name: pkg + "." + heapFillers[0], Instances: scale(counts[ddm.KindObject])},
		{Name: pkg + "." + heapFillers[1], Instances: scale(counts[ddm.KindObject] / 4)},
		{Name: "java.lang.String", Instances: scale(counts[ddm.KindArray2])},
	}
	vm.prof.runs++
	api := vm.spec.API
	if api == 0 && vm.spec.Family == Dalvik {
		api = 19
	}
	if bitmaps != "" {
		api = max(api, 35) // `am dumpheap -b` exists from Android 15 on
	}
	data, _, err := scene.Android(scene.Options{Seed: vm.spec.Seed*31 + vm.prof.runs, API: api, BitmapFormat: bitmaps,
		Package: pkg, Filler: heap, Timestamp: uint64(time.Now().UnixMilli()), ClassNames: vm.spec.heapClassNames(pkg)})
	return data, err
}
