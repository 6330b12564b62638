package scan

import (
	"context"
	"fmt"
	"sort"
)

// DefaultMaxDevices is how many adb devices are followed at once unless
// ADB.MaxDevices says otherwise: a large device farm's host, with room to
// spare. Each followed device costs a track-jdwp connection and a session
// per VM; a server listing tens of thousands of devices (a hostile or
// broken one) would otherwise get a follower each and starve the VMs
// already monitored.
const DefaultMaxDevices = 64

func (a *ADB) maxDevices() int {
	if a.MaxDevices > 0 {
		return a.MaxDevices
	}
	return DefaultMaxDevices
}

// admit returns the online devices to start following now, in serial
// order, so that at most maxDevices are followed; the ones already followed
// keep their place. It records how many online devices are left out (for
// Status) and logs when that number changes.
func (a *ADB) admit(online map[string]bool, followed map[string]context.CancelFunc) []string {
	var fresh []string
	for serial := range online {
		if _, ok := followed[serial]; !ok {
			fresh = append(fresh, serial)
		}
	}
	sort.Strings(fresh)
	room := max(0, a.maxDevices()-len(followed))
	if len(fresh) > room {
		fresh = fresh[:room]
	}
	skipped := len(online) - len(followed) - len(fresh)
	a.mu.Lock()
	changed := skipped != a.skipped
	a.skipped = skipped
	a.mu.Unlock()
	if changed && skipped > 0 {
		a.logger().Warn("more adb devices online than followed; raise --adb-max-devices to follow more",
			"adb", a.Name(), "online", len(online), "followed", len(online)-skipped, "max", a.maxDevices())
	} else if changed {
		a.logger().Info("following every online adb device again", "adb", a.Name(), "online", len(online))
	}
	return fresh
}

// DefaultMaxProcesses is how many processes of one device are followed at
// once unless ADB.MaxProcesses says otherwise (issue 37 #9). A device lists
// its debuggable VMs and profileable apps, a few dozen on a busy phone;
// each followed one costs a session, a JDWP stream or /proc and meminfo
// polls through the device's shell, so one track-app message of 30,000
// entries (240 KB) made 30,000 sessions, 1.4 GiB and 16,000 shell
// commands.
const DefaultMaxProcesses = 256

func (a *ADB) maxProcesses() int {
	if a.MaxProcesses > 0 {
		return a.MaxProcesses
	}
	return DefaultMaxProcesses
}

// admitProcs returns the entries of a device's list to start following
// now, so that at most maxProcesses are followed (running counts those
// followed already, which keep their place): debuggable VMs first, then by
// pid. It records how many listed processes are left out (for Status) and
// logs when that number changes.
func (a *ADB) admitProcs(serial string, listed []procEntry, isRunning func(pid int) bool, running int) []procEntry {
	var fresh []procEntry
	for _, e := range listed {
		if !isRunning(e.pid) {
			fresh = append(fresh, e)
		}
	}
	sort.SliceStable(fresh, func(i, j int) bool {
		if fresh[i].jdwp != fresh[j].jdwp {
			return fresh[i].jdwp
		}
		return fresh[i].pid < fresh[j].pid
	})
	room := max(0, a.maxProcesses()-running)
	skipped := max(0, len(fresh)-room)
	fresh = fresh[:len(fresh)-skipped]
	a.mu.Lock()
	if a.skippedProcs == nil {
		a.skippedProcs = map[string]int{}
	}
	changed := a.skippedProcs[serial] != skipped
	if skipped > 0 {
		a.skippedProcs[serial] = skipped
	} else {
		delete(a.skippedProcs, serial)
	}
	a.mu.Unlock()
	if changed && skipped > 0 {
		a.logger().Warn("more processes listed than followed on a device; raise --adb-max-processes to follow more",
			"adb", a.Name(), "device", serial, "listed", len(listed), "followed", len(listed)-skipped, "max", a.maxProcesses())
	} else if changed {
		a.logger().Info("following every listed process of the device again", "adb", a.Name(), "device", serial, "listed", len(listed))
	}
	return fresh
}

// forgetProcs drops a device's count of processes left out (it is no
// longer followed).
func (a *ADB) forgetProcs(serial string) {
	a.mu.Lock()
	delete(a.skippedProcs, serial)
	a.mu.Unlock()
}

// skippedProcsNote is the status line's note on processes left out,
// "" when none are (a.mu held).
func (a *ADB) skippedProcsNote() string {
	n := 0
	for _, k := range a.skippedProcs {
		n += k
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d processes not followed (--adb-max-processes %d)", n, a.maxProcesses())
}
