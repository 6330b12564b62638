package sim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/android/meminfo"
	"github.com/ddmtui/ddmtui/android/procfs"
	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/scan"
)

// ModernDDMAPI is the first API level whose simulated VMs answer only the
// DDM chunks recent frameworks register — DdmHandleHello (HELO, FEAT),
// DdmHandleAppName's APNM and WAIT (sent by the VM), DdmHandleExit,
// DdmHandleProfiling (MPxx, SPxx), DdmHandleNativeHeap (NHGT) and
// DdmHandleViewDebug — and leave THEN, THST, STKL, HPIF, HPSG/NHSG, HPGC,
// REAx and HPDU/HPDS without any reply. A 2020-era frameworks (Android 10,
// API 29) still registers DdmHandleThread and DdmHandleHeap
// (../shared/spec/ddm-chunks.md §4), so the simulator draws the line at
// Android 11.
const ModernDDMAPI = 30

// hostileCommThread is the thread a simulated VM with an API level adds:
// its comm (15 bytes) is "Render) Thread " — a ')' followed by a space,
// and a trailing space.
const hostileCommThread = "Render) Thread 2"

// registeredLocked reports whether a handler for msg exists on the VM's
// frameworks.
func (vm *VM) registeredLocked(msg ddm.Message) bool {
	if vm.spec.API < ModernDDMAPI {
		return true
	}
	switch msg.(type) {
	case *ddm.ThreadNotifyRequest, *ddm.ThreadStatusRequest, *ddm.StackTraceRequest,
		*ddm.HeapInfoRequest, *ddm.SegmentRequest, *ddm.GCRequest,
		*ddm.AllocTrackerStatusRequest, *ddm.AllocTrackerEnableRequest, *ddm.AllocationsRequest,
		*ddm.HeapDumpRequest, *ddm.HeapDumpStreamRequest:
		return false
	}
	return true
}

// SetAPI sets the device's API level (getprop ro.build.version.sdk).
func (d *Device) SetAPI(api int) {
	d.mu.Lock()
	d.api = api
	d.mu.Unlock()
}

// SetModel sets the device's model (getprop ro.product.model).
func (d *Device) SetModel(model string) {
	d.mu.Lock()
	d.model = model
	d.mu.Unlock()
}

// API is the device's API level, 0 when not set.
func (d *Device) API() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.api
}

// procLetter is the kernel state a thread in a THST status would show.
func (vm *VM) procLetter(status int8) byte {
	if vm.spec.Family == Dalvik {
		switch status {
		case 1, 7:
			return 'R'
		case 0:
			return 'Z'
		}
		return 'S'
	}
	switch status {
	case 1:
		return 'R'
	case 0:
		return 'Z'
	}
	return 'S' // sleeping, monitor, wait: blocked in the kernel
}

// ProcThreads is the VM's truth as /proc/PID/task/*/stat shows it: one
// record per thread, tid = systid, comm = the first 15 bytes of the name.
func (vm *VM) ProcThreads() []procfs.Thread {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	out := make([]procfs.Thread, 0, len(vm.threads))
	for _, id := range vm.sortedThreadIDs() {
		t := vm.threads[id]
		out = append(out, procfs.Thread{TID: int(t.systid), Comm: procfs.TruncComm(t.name), State: vm.procLetter(t.status),
			UTime: uint64(t.utime), STime: uint64(t.stime)})
	}
	return out
}

// MemInfo is the VM's process memory as `dumpsys meminfo PID` reports it
// on a recent Android, derived from its heap: every value is set.
func (vm *VM) MemInfo() meminfo.MemInfo {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	kb := func(b uint64) *int64 { v := int64(b / 1024); return &v }
	n := func(v int64) *int64 { return &v }
	alloc, size := vm.heap.allocatedBytes(), vm.heap.footprint()
	threads := int64(len(vm.threads))
	seed := int64(vm.spec.PID%97) * 64
	java, native := int64(alloc/1024)+512, 18_000+seed
	code, stack, gfx, other, system := 9_000+seed/2, threads*64, 4_096+seed, 2_300+seed/4, 11_000+seed
	total := java + native + code + stack + gfx + other + system
	m := meminfo.MemInfo{PID: vm.spec.PID, Process: vm.app,
		TotalPSS: n(total), TotalRSS: n(total + 60_000), TotalSwapPSS: n(0),
		JavaHeap: n(java), NativeHeap: n(native), Code: n(code), Stack: n(stack), Graphics: n(gfx),
		PrivateOther: n(other), System: n(system),
		JavaHeapRSS: n(java + 9_000), NativeHeapRSS: n(native + 2_000), CodeRSS: n(code + 50_000), StackRSS: n(stack + 12), GraphicsRSS: n(gfx),
		DalvikHeapSize: kb(size), DalvikHeapAlloc: kb(alloc), DalvikHeapFree: n(int64(size/1024) - int64(alloc/1024)),
		NativeHeapSize: n(native + 6_000), NativeHeapAlloc: n(native - 1_000), NativeHeapFree: n(7_000),
		Objects: map[string]int64{"views": 40 + threads, "view_root_impl": 1, "app_contexts": 4, "activities": 1,
			"assets": 10, "asset_managers": 0, "local_binders": 12, "proxy_binders": 30, "parcel_memory": 5,
			"parcel_count": 20, "death_recipients": 1, "web_views": 0}}
	return m
}

// procAndDumpsys serves the device-shell commands ddmtui's /proc and
// dumpsys sources send (BasicShell.Extra):
//
//	cat /proc/PID/task/*/stat   every thread's stat record (ProcThreads)
//	dumpsys meminfo PID         the process memory (MemInfo), Android 14 style
//	cat /proc/PID/cmdline       the process name and a NUL (sim/apps.go)
func (d *Device) procAndDumpsys(words []string, out io.Writer) (int, bool) {
	if code, ok := d.cmdline(words, out); ok {
		return code, true
	}
	switch {
	case len(words) == 2 && words[0] == "cat" && strings.HasPrefix(words[1], "/proc/") && strings.HasSuffix(words[1], "/task/*/stat"):
		pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(words[1], "/proc/"), "/task/*/stat"))
		vm := d.VM(pid)
		if err != nil || vm == nil {
			fmt.Fprintf(out, "cat: %s: No such file or directory\n", words[1])
			return 1, true
		}
		var b bytes.Buffer
		for _, t := range vm.ProcThreads() {
			b.Write(procfs.Format(t, pid))
		}
		_, _ = out.Write(b.Bytes())
		return 0, true
	case len(words) == 3 && words[0] == "dumpsys" && words[1] == "meminfo":
		pid, err := strconv.Atoi(words[2])
		vm := d.VM(pid)
		if err != nil || vm == nil {
			fmt.Fprintf(out, "No process found for: %s\n", words[2])
			return 0, true
		}
		var b bytes.Buffer
		_ = meminfo.Format(&b, vm.MemInfo())
		_, _ = out.Write(b.Bytes())
		return 0, true
	}
	return 0, false
}

// Endpoints hands every VM of a device to a scan.Handler as if it had been
// found through adb — a JDWP stream (OpenJDWP), a device shell (Shell) and
// its files (SyncFiles), and from TrackAppAPI its track-app entry (a release
// build: no stream) — without an adb server or a socket: `ddmtui demo` uses it to show a
// modern device on a machine with no adb. It is a monitor.Runner.
type Endpoints struct {
	Device *Device
	// Name goes into endpoint keys ("adb:NAME/SERIAL:PID"); default "sim".
	Name string
	// Source is what the VMs show as their source; default "adb:SERIAL".
	Source string
}

// Run follows the device's pid list until ctx ends, running h for each VM
// and again when a session ends while its VM is still there.
func (e *Endpoints) Run(ctx context.Context, h scan.Handler) error {
	name := e.Name
	if name == "" {
		name = "sim"
	}
	source := e.Source
	if source == "" {
		source = "adb:" + e.Device.Serial()
	}
	type running struct {
		done    chan struct{}
		cancel  context.CancelFunc
		process *scan.Process
	}
	live := map[int]running{}
	defer func() {
		for _, r := range live {
			r.cancel()
			<-r.done
		}
	}()
	for {
		procs, changed := e.processes()
		present := map[int]bool{}
		for _, p := range procs {
			present[p.PID] = true
		}
		for pid, r := range live {
			select {
			case <-r.done:
				delete(live, pid)
				continue
			default:
			}
			if !present[pid] {
				r.cancel()
			}
		}
		for _, p := range procs {
			if r, ok := live[p.PID]; ok {
				if r.process != nil {
					r.process.Set(p)
				}
				continue
			}
			var nc net.Conn
			if p.Debuggable {
				var err error
				if nc, err = e.Device.OpenJDWP(p.PID); err != nil {
					continue
				}
			}
			pctx, cancel := context.WithCancel(ctx)
			r := running{done: make(chan struct{}), cancel: cancel}
			if e.Device.API() >= TrackAppAPI {
				r.process = scan.NewProcess(p)
			}
			live[p.PID] = r
			ep := scan.Endpoint{
				Key:     fmt.Sprintf("adb:%s/%s:%d", name, e.Device.Serial(), p.PID),
				Source:  source,
				PID:     p.PID,
				Conn:    nc,
				Files:   e.Device.SyncFiles(),
				Process: r.process,
				Shell: func(ctx context.Context, cmd string) ([]byte, error) {
					var b bytes.Buffer
					_, err := e.Device.Shell(ctx, cmd, &b)
					return b.Bytes(), err
				},
			}
			go func() {
				defer close(r.done)
				_ = h(pctx, ep)
			}()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-time.After(time.Second): // re-open sessions that ended
		}
	}
}

// processes is what the device's adbd would list: track-app's entries
// where the API level has it, else track-jdwp's pids as debuggable
// entries.
func (e *Endpoints) processes() ([]adb.AppProcess, <-chan struct{}) {
	if procs, changed, ok := e.Device.AppProcesses(); ok {
		return procs, changed
	}
	pids, changed := e.Device.JDWPPids()
	procs := make([]adb.AppProcess, len(pids))
	for i, pid := range pids {
		procs[i] = adb.AppProcess{PID: pid, Debuggable: true}
	}
	return procs, changed
}

// ModernDemoDevice is the Android 14 (API 34) device `ddmtui demo` shows
// beside its old VMs: two apps whose VMs answer only what recent frameworks
// register, so their threads come from /proc and their memory from
// dumpsys meminfo, and a profileable release app without JDWP.
func ModernDemoDevice(seed uint64) *Device {
	d := NewDevice(ModernDemoSerial)
	d.SetAPI(ModernDemoAPI)
	d.SetModel(ModernDemoModel)
	for _, spec := range ModernDemoSpecs(seed) {
		d.Add(NewVM(spec))
	}
	return d
}

// The modern demo device's serial and API level.
const (
	ModernDemoSerial = "emulator-5554"
	ModernDemoAPI    = 34
	ModernDemoModel  = "sdk_gphone64_x86_64" // as the Android emulator's system images say
)

// ModernDemoSpecs are the VMs of ModernDemoDevice (the demo builds them
// while its dashboard starts).
func ModernDemoSpecs(seed uint64) []VMSpec {
	return []VMSpec{
		{PID: 5120, App: "com.example.camera", Package: "com.example.camera", Family: ART,
			API: ModernDemoAPI, Threads: 6, HeapBytes: 40 << 20, Seed: seed + 101},
		{PID: 5188, App: "com.example.chat", Package: "com.example.chat", Family: ART,
			API: ModernDemoAPI, Threads: 4, HeapBytes: 24 << 20, Seed: seed + 102},
		// A release build marked profileable: no JDWP, found by track-app.
		{PID: 5150, App: "com.example.release", Package: "com.example.release", Family: ART, Release: true,
			API: ModernDemoAPI, Threads: 5, HeapBytes: 32 << 20, Seed: seed + 103},
	}
}
