package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// list --json through the real adb server on an Android 15 device: the
// debuggable VM and the profileable release app, each with "debuggable"
// and "profileable"; the release app with "ddm": false and no debug_port.
// --processes debuggable leaves it out; a bad value is refused.
func TestListProcessesThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	specs := []sim.VMSpec{
		{PID: 4000, App: "com.example.debug", Package: "com.example.debug", Family: sim.ART, API: 35, Threads: 2, Seed: 1},
		{PID: 16024, App: "com.example.release", Package: "com.example.release", Family: sim.ART, API: 35, Release: true, Threads: 2, Seed: 2},
	}
	r := startADBRig(t, specs)
	r.dev.SetAPI(35)
	list := func(args ...string) []map[string]any {
		t.Helper()
		out, err := runApp(t, append([]string{"list", "--json", "--adb", r.server.Addr(), "--scan", "off", "--wait", "3s"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var got []map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return got
	}
	got := list()
	if len(got) != 2 {
		t.Fatalf("%d entries: %v", len(got), got)
	}
	dbg, rel := got[0], got[1]
	if dbg["pid"] != 4000.0 || dbg["debuggable"] != true || dbg["profileable"] != true || dbg["ddm"] != true ||
		dbg["architecture"] != sim.Architecture || dbg["debug_port"] != 0.0 {
		t.Errorf("debuggable VM %v", dbg)
	}
	if rel["pid"] != 16024.0 || rel["app"] != "com.example.release" || rel["debuggable"] != false || rel["profileable"] != true ||
		rel["ddm"] != false || rel["architecture"] != sim.Architecture || rel["user_id"] != 0.0 || rel["uid"] != float64(10000+16024%9000) {
		t.Errorf("release app %v", rel)
	}
	if _, ok := rel["debug_port"]; ok {
		t.Errorf("release app has a debug_port: %v", rel)
	}
	if got := list("--processes", "debuggable"); len(got) != 1 || got[0]["pid"] != 4000.0 {
		t.Errorf("--processes debuggable: %v", got)
	}
	if _, err := runApp(t, "list", "--adb", "off", "--scan", "off", "--processes", "some"); err == nil ||
		!strings.Contains(err.Error(), "--processes \"some\": want all or debuggable") {
		t.Errorf("bad --processes: %v", err)
	}
}
