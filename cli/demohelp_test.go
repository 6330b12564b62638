package cli

import (
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
)

// demo --help says how many VMs it starts (7, not the simulator's 5) and
// that the simulated VMs cannot be debugged, pointing to a real JVM.
func TestDemoHelpTellsVMsAndDebugging(t *testing.T) {
	out, err := runApp(t, "demo", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(default: 7)", "cannot be debugged", "-agentlib:jdwp", "jdb -attach 127.0.0.1:8700"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo --help lacks %q:\n%s", want, out)
		}
	}
}

// Each discovery mode the m key cycles through names both its parts.
func TestDiscoveryLabelsNameBothParts(t *testing.T) {
	local := &scan.Local{Ports: scan.PortRange{First: 8000, Last: 8040}}
	for _, c := range []struct {
		d    monitor.Discovery
		want string
	}{
		{monitor.Discovery{Local: local, ADB: []monitor.Runner{&scan.ADB{}}}, "scan 8000-8040 · adb on"},
		{monitor.Discovery{Local: local}, "scan 8000-8040 · adb off"},
		{monitor.Discovery{ADB: []monitor.Runner{&scan.ADB{}}}, "scan off · adb on"},
	} {
		if got := discoveryLabel(nil, c.d); got != c.want {
			t.Errorf("label %q, want %q", got, c.want)
		}
	}
}

// demo --help names the simulated Android 14 device it always adds (issue
// 29: a newcomer could not tell where the device VMs came from).
func TestDemoHelpNamesTheAndroid14Device(t *testing.T) {
	out, err := runApp(t, "demo", "--help")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"simulated Android 14 device", "profileable release build", "no adb needed"} {
		if !strings.Contains(flat, want) {
			t.Errorf("demo --help lacks %q:\n%s", want, out)
		}
	}
}
