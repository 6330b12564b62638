package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/monitor"
)

// The same pid on two devices: --serial picks one; without it the first is
// used and a warning names both, once.
func TestPickVMSerialAndAmbiguousPID(t *testing.T) {
	vms := []monitor.VM{
		{Key: "adb:emulator-5556:1234", Source: "adb:emulator-5556", PID: 1234},
		{Key: "adb:emulator-5554:1234", Source: "adb:emulator-5554", PID: 1234},
		{Key: "local:8000", Source: "local:8000", PID: 99},
	}
	var w bytes.Buffer
	warned := map[string]bool{}
	vm, ok := pickVM(vms, 1234, "emulator-5556", &w, warned)
	if !ok || vm.Key != "adb:emulator-5556:1234" || w.Len() != 0 {
		t.Fatalf("--serial: %v %v %q", vm.Key, ok, w.String())
	}
	vm, ok = pickVM(vms, 1234, "", &w, warned)
	if !ok || vm.Key != "adb:emulator-5554:1234" {
		t.Fatalf("no serial: %v %v", vm.Key, ok)
	}
	if !strings.Contains(w.String(), "pid 1234 is on 2 sources (adb:emulator-5554, adb:emulator-5556)") || !strings.Contains(w.String(), "--serial") {
		t.Fatalf("warning %q", w.String())
	}
	pickVM(vms, 1234, "", &w, warned)
	if strings.Count(w.String(), "warning") != 1 {
		t.Fatalf("warned more than once: %q", w.String())
	}
	if _, ok := pickVM(vms, 1234, "other", &w, warned); ok {
		t.Fatal("a serial that matches nothing picked a VM")
	}
	if vm, ok := pickVM(vms, 99, "", nil, warned); !ok || vm.Key != "local:8000" {
		t.Fatalf("unique pid: %v", vm.Key)
	}
}

// The advice "say which with --serial" works for every source list prints
// (issue 29 #10: --serial local:23120 found nothing).
func TestPickVMBySourceAsListPrintsIt(t *testing.T) {
	vms := []monitor.VM{
		{Key: "local:23120", Source: "local:23120", PID: 7},
		{Key: "local:23121", Source: "local:23121", PID: 7},
		{Key: "sim:emulator-5554:7", Source: "sim:emulator-5554", PID: 7},
		{Key: "adb:emulator-5556:7", Source: "adb:emulator-5556", PID: 7},
	}
	for serial, want := range map[string]string{
		"local:23121":       "local:23121",
		"local:23120":       "local:23120",
		"adb:emulator-5556": "adb:emulator-5556:7",
		"emulator-5556":     "adb:emulator-5556:7",
		"emulator-5554":     "sim:emulator-5554:7",
		"sim:emulator-5554": "sim:emulator-5554:7",
	} {
		vm, ok := pickVM(vms, 7, serial, nil, map[string]bool{})
		if !ok || vm.Key != want {
			t.Errorf("--serial %s picked %q (%v), want %s", serial, vm.Key, ok, want)
		}
	}
	if _, ok := pickVM(vms, 7, "23120", nil, map[string]bool{}); ok {
		t.Error("a bare port matched a local source")
	}
}
