package cli

import (
	"context"
	"strings"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
)

// deviceLog finds the log of vm's device: through the adb server that
// listed it, or the demo's in-process device read directly (no adb knows
// it). Local-port VMs have none.
func deviceLog(logs *devicelog.Logs, d monitor.Discovery, vm monitor.VM) (*devicelog.Log, string) {
	for _, r := range d.ADB {
		switch a := r.(type) {
		case *scan.ADB:
			if serial, ok := strings.CutPrefix(vm.Source, "adb:"); ok {
				return logs.Device(a.Client, serial), ""
			}
		case *sim.Endpoints:
			if vm.Source == a.Source {
				ring := a.Device.Logcat()
				return logs.Source(vm.Source, func(ctx context.Context) (devicelog.EntryReader, error) {
					return devicelog.NewRingReader(ctx, ring), nil
				}), ""
			}
		}
	}
	return nil, "this VM has no device log: it was found on a local port, not through adb"
}

// learnVMs names, in dl (the log of the device with serial), the apps of
// the VMs in vms that run on that device (Source "adb:SERIAL"); the VMs of
// other devices are left out.
func learnVMs(dl *devicelog.Log, serial string, vms []monitor.VM) {
	for _, vm := range vms {
		if vm.Source == "adb:"+serial && vm.PID > 0 && vm.App != "" {
			dl.SetApp(vm.PID, vm.App)
		}
	}
}

// followDeviceLogs starts the log of every device a VM in store is on
// (deviceLog: through adb, or the demo's device), as the VMs appear, until
// ctx ends: with logs.Recorder set, their entries are recorded from then
// on, whether or not a view reads them.
func followDeviceLogs(ctx context.Context, store *monitor.Store, logs *devicelog.Logs, d monitor.Discovery) {
	sub := store.Bus().Subscribe()
	defer sub.Close()
	seen := map[string]bool{}
	follow := func(vm monitor.VM) {
		if seen[vm.Source] {
			return
		}
		seen[vm.Source] = true // a local VM has none: not asked again
		if dl, _ := deviceLog(logs, d, vm); dl != nil && vm.PID > 0 && vm.App != "" {
			dl.SetApp(vm.PID, vm.App)
		}
	}
	for _, vm := range store.VMs() {
		follow(vm)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-sub.Ready():
		}
		for _, ev := range sub.Drain() {
			if u, ok := ev.(monitor.VMUpdated); ok && u.VM.Source != "" {
				follow(u.VM)
			}
		}
	}
}
