package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
)

// TestServeSelectedPortLineOnce: the proxy reports the selected-VM port
// again when it starts listening or a debugger comes and goes; serve prints
// its line only when what the line says changed (it was printed twice).
func TestServeSelectedPortLineOnce(t *testing.T) {
	steps := [][]proxy.PortStatus{
		{{Selected: true, Port: 8700}},
		{{Selected: true, Port: 8700, Listening: true}},
		{{Selected: true, Port: 8700, Listening: true, VM: "local:8000", Present: true}},
		{{Selected: true, Port: 8700, Listening: true, VM: "local:8000", Present: true, Debugger: "127.0.0.1:5555"}},
		{{Selected: true, Port: 8700, Listening: true, VM: "local:8000", Present: true}},
	}
	for _, js := range []bool{false, true} {
		var b strings.Builder
		o := &serveOutput{w: &b, json: js, vms: map[string]headless.ListEntry{}, portErr: map[string]string{}}
		for _, ps := range steps {
			o.ports(ps)
		}
		got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		want := []string{"selected-VM port 8700 leads to no VM yet", "selected-VM port 8700 leads to local:8000"}
		if js {
			want = []string{`{"event":"selected","port":8700}`, `{"event":"selected","key":"local:8000","port":8700}`}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("json=%v: printed\n%s\nwant\n%s", js, b.String(), strings.Join(want, "\n"))
		}
	}
}

// A profileable release app is printed once, with its name, rather than
// first as "-" and again once /proc names it (issue 38 #22); one whose
// name never comes is printed as "-" after processNameWait.
func TestServeWaitsForAProcessName(t *testing.T) {
	var b strings.Builder
	clock := time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)
	o := &serveOutput{w: &b, vms: map[string]headless.ListEntry{}, portErr: map[string]string{}, now: func() time.Time { return clock }}
	release := monitor.VM{Key: "adb:s/1", Source: "adb:s", PID: 1, Profileable: true}
	o.vm(release)
	clock = clock.Add(300 * time.Millisecond)
	release.App = "com.example.release"
	o.vm(release)
	stuck := monitor.VM{Key: "adb:s/2", Source: "adb:s", PID: 2, Profileable: true}
	o.vm(stuck)
	clock = clock.Add(processNameWait)
	o.vm(stuck)
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(got) != 2 || !strings.Contains(got[0], "pid 1  com.example.release") || !strings.Contains(got[1], "pid 2  -") {
		t.Errorf("printed:\n%s", b.String())
	}
}

// serve prints one line per drop of the memory budget, and with --json the
// budget's figures at the end; the drop's note (a device's name) is
// escaped for the terminal.
func TestServeMemoryLines(t *testing.T) {
	st := budget.Stats{Used: 200 << 20, Limit: 256 << 20, Peak: 250 << 20}
	for _, js := range []bool{false, true} {
		var b strings.Builder
		o := &serveOutput{w: &b, json: js, vms: map[string]headless.ListEntry{}, portErr: map[string]string{}}
		o.memory(st, false)
		if b.Len() != 0 {
			t.Fatalf("json=%v: a line without a drop: %q", js, b.String())
		}
		dropped := st
		dropped.Drops, dropped.DroppedBytes = 1, 3<<20
		dropped.LastDrop = "dropped 3.0 MiB: the 700 oldest entries of emu\x1b]2;x\x07's log"
		o.memory(dropped, false)
		o.memory(dropped, false)
		o.memory(dropped, true)
		got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		want := []string{`ddmtui: memory budget (200 of 256 MiB) dropped 3.0 MiB: the 700 oldest entries of emu\x1b]2;x\x07's log`}
		if js {
			line := `{"event":"memory","used_bytes":209715200,"limit_bytes":268435456,"peak_bytes":262144000,"drops":1,"dropped_bytes":3145728,` +
				`"last_drop":"dropped 3.0 MiB: the 700 oldest entries of emu\u001b]2;x\u0007's log"}`
			want = []string{line, line}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("json=%v: printed\n%s\nwant\n%s", js, b.String(), strings.Join(want, "\n"))
		}
	}
}
