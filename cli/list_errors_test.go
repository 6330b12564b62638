package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// TestListReportsFailedEndpoints is issue 16 item 2: endpoints that are not
// working VMs are printed with an "error" beside the healthy VM, so a script
// can tell "no VMs" from "VMs that failed".
func TestListReportsFailedEndpoints(t *testing.T) {
	leakcheck.Check(t)
	base := freePorts(t, 6)
	dev := sim.NewDevice("t")
	vm := sim.NewVM(sim.Scenario(5, 1)[0])
	dev.Add(vm)
	defer dev.Close()
	if _, err := dev.ServeVM(vm, fmt.Sprintf("127.0.0.1:%d", base)); err != nil {
		t.Fatal(err)
	}
	want := map[int]string{ // port offset → a word of the error
		1: "not a JDWP VM",
		2: "shorter than its header",
		3: "no reply to HELO",
		4: "handshake not answered",
		5: "exceeds the limit",
	}
	for i, b := range []hostile.Behaviour{hostile.Garbage, hostile.BadLength, hostile.NoHELO, hostile.Slowloris, hostile.Oversize} {
		s, err := hostile.Serve(fmt.Sprintf("127.0.0.1:%d", base+1+i), b)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	}
	scanFlag := fmt.Sprintf("%d-%d", base, base+5)

	for _, cmd := range []string{"list", "snapshot"} {
		out, err := runApp(t, cmd, "--json", "--adb", "off", "--scan", scanFlag, "--wait", "400ms")
		if err != nil {
			t.Fatal(err)
		}
		var got []headless.ListEntry
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
		if len(got) != 6 {
			t.Fatalf("%s: %d entries, want 6:\n%s", cmd, len(got), out)
		}
		for _, e := range got {
			var port int
			fmt.Sscanf(e.Source, "local:%d", &port)
			off := port - base
			if off == 0 {
				if e.Error != "" || !e.DDM || e.PID != vm.PID() {
					t.Errorf("%s: healthy VM %+v", cmd, e)
				}
				continue
			}
			if !strings.Contains(e.Error, want[off]) {
				t.Errorf("%s: %s error %q, want it to say %q", cmd, e.Source, e.Error, want[off])
			}
		}
	}

	out, err := runApp(t, "list", "--adb", "off", "--scan", scanFlag, "--wait", "400ms")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "failed: local:"); n != 5 {
		t.Errorf("text list: %d failed lines, want 5:\n%s", n, out)
	}
	if !strings.Contains(out, vm.App()) {
		t.Errorf("text list lacks the healthy VM:\n%s", out)
	}
}

// A bad --scan names the flag once, without the package's label after it
// (issue 29 #13: "--scan: scan: bad port range").
func TestBadScanRangeIsLabelledOnce(t *testing.T) {
	_, err := runApp(t, "list", "--scan", "9-3", "--adb", "off")
	if err == nil || !strings.HasPrefix(err.Error(), `--scan: bad port range "9-3"`) {
		t.Fatalf("err = %v", err)
	}
}
