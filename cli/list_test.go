package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// freePorts finds n consecutive free loopback ports.
func freePorts(t *testing.T, n int) int {
	t.Helper()
	// Each test binary starts its search at its own place: `go test ./...`
	// runs packages side by side, and two that probed the same free ports
	// at once would both try to bind them.
	base, err := freeLocalRange(40000+os.Getpid()%500*20, n)
	if err != nil {
		t.Fatal(err)
	}
	return base
}

func TestListAndSnapshotJSONAgainstSimulator(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	for _, s := range sim.Scenario(3, 6) {
		dev.Add(sim.NewVM(s))
	}
	defer dev.Close()
	base := freePorts(t, 6)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	scanFlag := fmt.Sprintf("%d-%d", base, base+5)

	out, err := runApp(t, "list", "--json", "--adb", "off", "--scan", scanFlag, "--wait", "1s")
	if err != nil {
		t.Fatal(err)
	}
	var list []headless.ListEntry
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("list output is not JSON: %v\n%s", err, out)
	}
	vms := dev.VMs()
	if len(list) != len(vms) {
		t.Fatalf("listed %d VMs, device has %d:\n%s", len(list), len(vms), out)
	}
	for i, e := range list {
		spec := vms[i].Spec()
		if e.Source != fmt.Sprintf("local:%d", base+i) {
			t.Errorf("entry %d source %q", i, e.Source)
		}
		if spec.Family == sim.JVM {
			if e.DDM || e.PID != 0 {
				t.Errorf("JVM entry %+v", e)
			}
			continue
		}
		if !e.DDM || e.PID != spec.PID || e.App != spec.App {
			t.Errorf("entry %+v, want pid %d app %q", e, spec.PID, spec.App)
		}
		want := "none"
		if spec.WaitingForDebugger {
			want = "waiting"
		}
		if e.Debugger != want || e.DebugPort == nil || *e.DebugPort != 0 {
			t.Errorf("%s debugger %q port %v", spec.App, e.Debugger, e.DebugPort)
		}
	}
	// Raw keys are snake_case.
	for _, k := range []string{`"source"`, `"pid"`, `"app"`, `"vm"`, `"ddm"`, `"debugger"`, `"debug_port"`} {
		if !strings.Contains(out, k) {
			t.Errorf("list JSON lacks key %s", k)
		}
	}

	target := vms[1]
	out, err = runApp(t, "snapshot", "--json", "--adb", "off", "--scan", scanFlag, "--wait", "1s", "--pid", fmt.Sprint(target.PID()))
	if err != nil {
		t.Fatal(err)
	}
	var snap []headless.SnapshotEntry
	if err := json.Unmarshal([]byte(out), &snap); err != nil {
		t.Fatal(err)
	}
	if len(snap) != 1 || snap[0].PID != target.PID() {
		t.Fatalf("snapshot --pid gave %d entries", len(snap))
	}
	truth := target.Threads()
	if len(snap[0].Threads) != len(truth) {
		t.Fatalf("snapshot threads %d, VM %d", len(snap[0].Threads), len(truth))
	}
	for i, th := range snap[0].Threads {
		if th.Name != truth[i].Name || th.Status != int(truth[i].Status) || th.State == "" || th.SysTID != int(truth[i].SysTID) {
			t.Errorf("thread %d %+v, truth %+v", i, th, truth[i])
		}
	}
	h := target.Heap()
	if len(snap[0].Heaps) != 1 || snap[0].Heaps[0].SizeBytes != h.SizeBytes || snap[0].Heaps[0].MaxBytes != h.MaxBytes {
		t.Fatalf("heaps %+v, truth %+v", snap[0].Heaps, h)
	}
	for _, k := range []string{`"threads"`, `"systid"`, `"utime"`, `"stime"`, `"daemon"`, `"max_bytes"`, `"size_bytes"`, `"allocated_bytes"`, `"objects"`} {
		if !strings.Contains(out, k) {
			t.Errorf("snapshot JSON lacks key %s", k)
		}
	}
}

func TestListFindsNothing(t *testing.T) {
	base := freePorts(t, 2)
	out, err := runApp(t, "list", "--json", "--adb", "off", "--scan", fmt.Sprintf("%d-%d", base, base+1), "--wait", "200ms")
	if err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("empty list: %q %v", out, err)
	}
}

func TestListFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"list", "--scan", "9-3", "--adb", "off"},
		{"list", "--adb", "127.0.0.1:1", "--scan", "off"},
		{"list", "--adb", "nonsense", "--scan", "off"},
		{"snapshot", "--wait", "0s", "--adb", "off", "--scan", "off"},
	} {
		if _, err := runApp(t, args...); err == nil {
			t.Errorf("%v succeeded", args)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: multi-line error %q", args, err)
		}
	}
}
