package cli

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// A device on Android 14 through the real adb server: its VMs answer no
// thread or heap chunk, and `snapshot --json` still shows every thread
// (from /proc) and the process memory (from dumpsys meminfo), equal to
// the simulated VM's own truth.
func TestSnapshotModernDeviceThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	r := startADBRig(t, []sim.VMSpec{
		{PID: 4400, App: "com.example.modern", Package: "com.example.modern", Family: sim.ART, API: 34, Threads: 3, Seed: 11},
		{PID: 4500, App: "com.example.second", Package: "com.example.second", Family: sim.ART, API: 34, Threads: 1, Seed: 12},
	})
	r.dev.SetAPI(34)
	r.dev.SetModel("sdk_gphone64_x86_64")
	out, err := runApp(t, "snapshot", "--json", "--adb", r.server.Addr(), "--scan", "off", "--wait", "6s",
		"--thread-interval", "300ms", "--meminfo-interval", "500ms")
	if err != nil {
		t.Fatal(err)
	}
	var snap []headless.SnapshotEntry
	if err := json.Unmarshal([]byte(out), &snap); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var raw []struct {
		Threads []map[string]any `json:"threads"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if len(snap) != 2 {
		t.Fatalf("%d VMs, want 2:\n%s", len(snap), out)
	}
	for k, e := range snap {
		vm := r.dev.VM(e.PID)
		if vm == nil {
			t.Fatalf("pid %d is not on the device", e.PID)
		}
		if e.Model != "sdk_gphone64_x86_64" {
			t.Errorf("pid %d: model %q", e.PID, e.Model)
		}
		if e.API != 34 || e.Capabilities["threads"] != "proc" || e.Capabilities["memory"] != "dumpsys" ||
			e.Capabilities["stack"] != "none" || e.CapabilityReasons["stack"] == "" || e.Capabilities["hprof"] != "am" {
			t.Errorf("pid %d: api %d capabilities %v reasons %v", e.PID, e.API, e.Capabilities, e.CapabilityReasons)
		}
		truth := vm.ProcThreads()
		if len(e.Threads) != len(truth) {
			t.Fatalf("pid %d: %d threads, truth %d\n%s", e.PID, len(e.Threads), len(truth), out)
		}
		for i, th := range e.Threads {
			tr := truth[i]
			if th.Name != tr.Comm || th.SysTID != tr.TID || th.UTime != int(tr.UTime) || th.STime != int(tr.STime) ||
				th.ProcState != string(tr.State) || th.Source != "proc" || th.CPUPercent == nil {
				t.Errorf("pid %d thread %d: %+v, truth %+v", e.PID, i, th, tr)
			}
			if _, has := raw[k].Threads[i]["status"]; has {
				t.Errorf("pid %d thread %d: a /proc thread has a status", e.PID, i)
			}
		}
		want, _ := json.Marshal(headless.MemoryFromInfo(vm.MemInfo()))
		got, _ := json.Marshal(e.Memory)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("pid %d memory\n got %s\nwant %s", e.PID, got, want)
		}
		if !strings.Contains(string(got), `"objects":{`) {
			t.Errorf("pid %d: no objects in %s", e.PID, got)
		}
		if st := vm.Stats(); st.NonDDMPackets.Load() != 0 {
			t.Errorf("pid %d: %d non-DDM packets", e.PID, st.NonDDMPackets.Load())
		}
	}
}
