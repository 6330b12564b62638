package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/headless"
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
