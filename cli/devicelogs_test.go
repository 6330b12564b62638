package cli

import (
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/monitor"
)

// learnVMs names the apps of the VMs on the log's device only: a VM of
// another device with a pid the device also runs must not name it, nor a
// VM without a pid or a name.
func TestLearnVMsOfTheDeviceOnly(t *testing.T) {
	dl := devicelog.NewFed(10)
	learnVMs(dl, "emu", []monitor.VM{
		{Source: "adb:emu", PID: 7, App: "com.a"},
		{Source: "adb:other", PID: 8, App: "com.b"},
		{Source: "adb:emu", PID: 9},
		{Source: "adb:emu", App: "com.nopid"},
	})
	t0 := time.Unix(100, 0)
	for i, pid := range []int32{7, 8, 9, 0} {
		dl.Add(&logcat.Entry{Time: t0.Add(time.Duration(i) * time.Millisecond), PID: pid, TID: pid, Message: "m"})
	}
	got, _, _ := dl.Ring().Read(nil, 1, 0)
	want := []string{"com.a", "", "", ""}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].App != want[i] {
			t.Errorf("entry of pid %d: app %q, want %q", got[i].PID, got[i].App, want[i])
		}
	}
}
