package tui

import (
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// TestDeviceRowShowsModel: a device's row in the VM list names its
// serial, API level and model; the model comes from the device and is
// escaped (a tview colour tag in it shows as text).
func TestDeviceRowShowsModel(t *testing.T) {
	hs := start(t, 200, 40, style.Palette{}, func(s *monitor.Store) {
		twoVMs(s)
		s.UpdateVM("adb:emu-5556:4321", func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.API, vm.Model = "adb:emu-5556", 4321, "com.example.modern", true, 34, "Pixel[red]8"
		})
	})
	hs.waitText("emu-5556 · API 34 · Pixel[red]8")
	if strings.Contains(strings.Join(hs.text(), "\n"), "local · API") {
		t.Fatal("the local group shows an API level")
	}
}

// TestDeviceRowWholeAt120: at 120 columns the VM pane is about half the
// screen, narrower than serial, API level and model in the App column; the
// device's row spans the columns after the fold mark, so all of it shows,
// with the device's VM count.
func TestDeviceRowWholeAt120(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		twoVMs(s)
		s.UpdateVM("adb:emulator-5554:4321", func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.API, vm.Model = "adb:emulator-5554", 4321, "com.example.modern", true, 34, "sdk_gphone64_x86_64"
		})
	})
	hs.waitText("emulator-5554 · API 34 · sdk_gphone64_x86_64 1 VM")
	hs.waitText("local 2 VMs")
}
