package sim

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/adb"
)

// track-app on the simulated device (spec/adb-track-app.md): from Android
// 12 (API 31) adbd lists every debuggable or profileable process, from
// Android 15 (API 35) with its name, packages, user, uid and wait.

// Track-app API levels.
const (
	TrackAppAPI = 31 // adbd offers track-app
	AppInfoAPI  = 35 // track-app sends names, packages, user, uid, wait (adbd feature app_info)
)

// Architecture is what the simulated device's track-app reports for its
// processes (the emulator's x86_64 images).
const Architecture = "x86_64"

// AppProcess is the VM's track-app entry on a device of the given API
// level: debuggable unless it is a release build, profileable (apps are,
// system_process is not),
// the architecture; and from AppInfoAPI its name (once it named itself),
// package, user, uid and whether it waits for a debugger.
func (vm *VM) AppProcess(api int) adb.AppProcess {
	// Apps are profileable (debuggable ones too); system_process, the one
	// VM of package "android", is debuggable but not profileable.
	p := adb.AppProcess{PID: vm.spec.PID, Debuggable: !vm.spec.Release, Profileable: vm.spec.Package != "android",
		Architecture: Architecture}
	if api < AppInfoAPI {
		return p
	}
	if app := vm.App(); app != "<pre-initialized>" {
		p.ProcessName = app
	}
	if vm.spec.Package != "" {
		p.PackageNames = []string{vm.spec.Package}
	}
	p.HasUserID, p.UserID = true, int64(vm.spec.UserID)
	p.HasUID, p.UID = true, int64(vm.UID())
	p.HasWaiting, p.WaitingForDebugger = true, vm.spec.WaitingForDebugger
	return p
}

// UID is the app's Linux uid: user × 100000 + app id, the app id from
// VMSpec.AppID or 10000 + pid mod 9000.
func (vm *VM) UID() int {
	id := vm.spec.AppID
	if id == 0 {
		id = 10000 + vm.spec.PID%9000
	}
	return vm.spec.UserID*100000 + id
}

// AppProcesses returns the device's track-app list and a channel closed at
// the next change; ok is false when the device's API level has no
// track-app (before TrackAppAPI, or not set).
func (d *Device) AppProcesses() (procs []adb.AppProcess, changed <-chan struct{}, ok bool) {
	api := d.API()
	if api < TrackAppAPI {
		return nil, nil, false
	}
	d.mu.Lock()
	ch := d.changed
	d.mu.Unlock()
	for _, vm := range d.VMs() {
		procs = append(procs, vm.AppProcess(api))
	}
	return procs, ch, true
}

// ReleaseApp is the profileable release build (no JDWP) a simulated
// device of API level TrackAppAPI or more runs beside the VMs of specs
// (`ddmtui sim --api 31 --adbd`): a pid above theirs, and its own seed.
func ReleaseApp(specs []VMSpec, api int, seed uint64) VMSpec {
	pid := 1000
	for _, s := range specs {
		pid = max(pid, s.PID)
	}
	return VMSpec{PID: pid + 37, App: "com.example.release", Package: "com.example.release", Family: ART, Release: true,
		API: api, Threads: 5, HeapBytes: 24 << 20, Seed: seed*1000003 + 999}
}

// cmdline serves `cat /proc/PID/cmdline`: the process name and a NUL.
func (d *Device) cmdline(words []string, out io.Writer) (int, bool) {
	if len(words) != 2 || words[0] != "cat" || !strings.HasPrefix(words[1], "/proc/") || !strings.HasSuffix(words[1], "/cmdline") {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(words[1], "/proc/"), "/cmdline"))
	vm := d.VM(pid)
	if err != nil || vm == nil {
		fmt.Fprintf(out, "cat: %s: No such file or directory\n", words[1])
		return 1, true
	}
	fmt.Fprintf(out, "%s\x00", vm.App())
	return 0, true
}
