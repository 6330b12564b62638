package tui

import (
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// TestSelectionStartsAtTheTop: VMs are found in no set order (a device's VM
// may come before the local ones); until the user chooses, the selection is
// the first VM of the list, and once they have, later VMs do not move it.
func TestSelectionStartsAtTheTop(t *testing.T) {
	add := func(s *monitor.Store, key, source string, pid int, app string) {
		s.UpdateVM(key, func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = source, pid, app, true, time.Now()
		})
	}
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		add(s, "adb:sim/emulator-5554:5120", "sim:emulator-5554", 5120, "com.example.camera")
	})
	hs.waitText("selected: com.example.camera (5120)")
	add(hs.store, "local:8000", "local:8000", 1390, "system_process")
	hs.waitText("selected: system_process (1390)")
	hs.key(tcell.KeyRune, 'j') // onto the next VM's row: the user chose
	hs.key(tcell.KeyRune, 'j')
	hs.waitText("selected: com.example.camera (5120)")
	add(hs.store, "local:7999", "local:7999", 1000, "early_app") // sorts first now
	hs.waitText("early_app")
	time.Sleep(100 * time.Millisecond)
	hs.waitText("selected: com.example.camera (5120)")
}
