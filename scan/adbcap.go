package scan

import (
	"context"
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
