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
