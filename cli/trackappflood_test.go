package cli

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// TestListTrackAppFlood (issue 37 #9): an adb server whose one device's
// track-app message lists 30,000 profileable processes (240 KB) makes
// `list` follow --adb-max-processes of them, and open a shell for those
// only; before the cap it followed every one (672 MiB, 8.9 CPU-s and
// thousands of shell commands in 5 s, docs/RELIABILITY.md).
func TestListTrackAppFlood(t *testing.T) {
	leakcheck.Check(t)
	var shells atomic.Int64
	srv, err := hostile.Serve("127.0.0.1:0", hostile.TrackAppFlood(30_000, &shells))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	out, _, err := runAppSplit(t, "list", "--scan", "off", "--adb", srv.Addr(), "--adb-max-processes", "16",
		"--json", "--wait", "2s", "--log", "-")
	if err != nil {
		t.Fatal(err)
	}
	var vms []struct {
		PID         int  `json:"pid"`
		Profileable bool `json:"profileable"`
	}
	if err := json.Unmarshal([]byte(out), &vms); err != nil {
		t.Fatalf("%v in %.300s", err, out)
	}
	if len(vms) != 16 {
		t.Fatalf("%d processes listed, want the 16 followed", len(vms))
	}
	for _, vm := range vms {
		if !vm.Profileable || vm.PID < 10000 || vm.PID >= 10016 {
			t.Errorf("listed %+v: want the 16 lowest pids, profileable", vm)
		}
	}
	// A followed process reads its name and, over 2 s, its /proc and
	// meminfo a few times: far from a command per listed process.
	if n := shells.Load(); n == 0 || n > 16*10 {
		t.Errorf("%d shell commands for 16 followed processes", n)
	}
}
