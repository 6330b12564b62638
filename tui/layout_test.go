package tui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/tui/style"
)

// sevenVMs adds VMs local:8000…8006, the first with threads.
func sevenVMs(s *monitor.Store) {
	twoVMs(s)
	now := time.Now().Add(-time.Minute)
	for i := 2; i < 7; i++ {
		key := fmt.Sprintf("local:%d", 8000+i)
		s.UpdateVM(key, func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = key, 2000+i, fmt.Sprintf("com.example.app%d", i), true, now
		})
	}
}

// At 80x24 every pane is reachable with Tab: the stack takes the heap's
// place when it gets the focus, and the heap takes it back.
func TestSmallLayoutReachesEveryPane(t *testing.T) {
	hs := start(t, 80, 24, style.Palette{}, sevenVMs)
	hs.waitText("Binder:1234_1")
	hs.waitText("Heap ·")
	focused := func(title string) func(string) bool {
		return func(string) bool {
			st, ok := hs.styleOf(title)
			fg, _, _ := st.Decompose()
			return ok && fg == (style.Palette{}).Accent()
		}
	}
	hs.key(tcell.KeyTab, 0)
	hs.waitFor("threads focused", focused("Threads ·"))
	hs.key(tcell.KeyTab, 0)
	hs.waitFor("heap focused", focused("Heap ·"))
	hs.key(tcell.KeyTab, 0)
	hs.waitText("Stack")
	hs.waitGone("Heap ·")
	hs.waitFor("stack focused", focused("Stack"))
	hs.key(tcell.KeyTab, 0)
	hs.waitFor("VM list focused", focused("VMs (7)"))
	hs.key(tcell.KeyTab, 0)
	hs.key(tcell.KeyTab, 0)
	hs.waitText("Heap ·")
	// Enter on a thread shows its stack, in place of the heap.
	hs.key(tcell.KeyBacktab, 0)
	hs.key(tcell.KeyEnter, 0)
	hs.waitText("Worker.run1(Worker.java:42)")
	// s brings the stack up, h the heap, without hiding what was asked for.
	hs.key(tcell.KeyRune, 'h')
	hs.waitText("Heap ·")
	hs.key(tcell.KeyRune, 's')
	hs.waitText("Stack ·")
}

// The VM list scrolls to keep the selected VM in view; j and k select.
func TestSmallLayoutVMListFollowsSelection(t *testing.T) {
	hs := start(t, 80, 24, style.Palette{}, sevenVMs)
	hs.waitText("Binder:1234_1")
	for i := 0; i < 6; i++ {
		hs.key(tcell.KeyRune, 'j')
	}
	hs.waitText("selected: com.example.app6")
	hs.waitText("▶ local:8006")
	hs.key(tcell.KeyRune, 'k')
	hs.waitText("selected: com.example.app5")
	hs.waitText("▶ local:8005")
}

// Under NO_COLOR the cursor row is reverse video across the whole row, so
// it shows without colours.
func TestCursorVisibleUnderNoColor(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{NoColor: true}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'j')
	hs.waitText("selected: com.example.maps")
	cells, w, h := hs.contents()
	lines := cellText(cells, w, h)
	for y, line := range lines {
		x := strings.Index(line, "▶ local:8001")
		if x < 0 {
			continue
		}
		x = len([]rune(line[:x]))
		for cx := x; cx < x+30; cx++ {
			if _, _, attr := cells[y*w+cx].Style.Decompose(); attr&tcell.AttrReverse == 0 {
				t.Fatalf("cursor cell %d of %q is not reverse video", cx-x, line)
			}
		}
		return
	}
	t.Fatal("selected row not found")
}

// A VM whose debugger port is busy shows "busy" in the Port column and,
// when selected, why in the status line.
func TestBusyDebugPortShown(t *testing.T) {
	leakcheck.Check(t)
	store := monitor.NewStore(monitor.NewBus())
	twoVMs(store)
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	dash := New(Config{Store: store, Palette: style.Palette{}, Discovery: "test", Screen: screen, FrameInterval: 5 * time.Millisecond,
		PortError: func(key string) string {
			if key == "local:8000" {
				return "debugger port 8600 for local:8000: address already in use"
			}
			return ""
		}})
	screen.SetSize(160, 40)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dash.Run(ctx) }()
	defer func() { cancel(); <-done }()
	hs := &harness{t: t, screen: screen, dash: dash}
	hs.waitText("waiting  busy")
	hs.waitText("address already in use (retrying)")
}

// At 80x24 the help uses the width it has: scrolled through, every key's
// line shows whole.
func TestHelpFitsSmallTerminal(t *testing.T) {
	hs := start(t, 80, 24, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, '?')
	hs.waitText("show or hide this help")
	seen := ""
	for i := 0; i < 40; i++ {
		seen += strings.Join(hs.text(), "\n")
		hs.key(tcell.KeyRune, 'j')
	}
	for _, b := range hs.dash.Keys().Help() {
		if !strings.Contains(seen, b.Help) {
			t.Errorf("help line %q never shows whole at 80x24", b.Help)
		}
	}
}

// VMs of several devices are grouped under their device's row; z folds the
// selected VM's device, j/k step over a device's row without changing the
// selection, and Enter on a folded device unfolds it.
func TestVMsGroupedByDevice(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		twoVMs(s)
		for i, serial := range []string{"emulator-5554", "emulator-5554", "R58M1234"} {
			key := fmt.Sprintf("adb:%s:%d", serial, 300+i)
			s.UpdateVM(key, func(vm *monitor.VM) {
				vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = "adb:"+serial, 300+i, fmt.Sprintf("com.device.app%d", i), true, time.Now()
			})
		}
	})
	hs.waitText("emulator-5554")
	row := func(s, device, count string) bool {
		return regexp.MustCompile(`▾\s+` + regexp.QuoteMeta(device) + `\s+` + regexp.QuoteMeta(count)).MatchString(s)
	}
	hs.waitFor("three device rows", func(s string) bool {
		return row(s, "emulator-5554", "2 VMs") && row(s, "R58M1234", "1 VM") && row(s, "local", "2 VMs")
	})
	// The first VM (adb:R58M1234's, sorted first) is selected; z folds its device.
	hs.waitText("selected: com.device.app2")
	hs.key(tcell.KeyRune, 'z')
	hs.waitFor("folded", func(s string) bool { return regexp.MustCompile(`▸\s+R58M1234\s+1 VM`).MatchString(s) })
	hs.waitGone("302 com.device.app2")
	hs.waitText("selected: com.device.app2") // folding does not move the selection
	hs.key(tcell.KeyRune, 'j')               // onto the next device's row: nothing selected anew
	hs.waitText("selected: com.device.app2")
	hs.key(tcell.KeyRune, 'j')
	hs.waitText("selected: com.device.app0")
	hs.key(tcell.KeyRune, 'k')
	hs.key(tcell.KeyRune, 'k') // back on the folded device
	hs.key(tcell.KeyEnter, 0)  // unfolds it
	hs.waitFor("unfolded", func(s string) bool { return row(s, "R58M1234", "1 VM") })
	hs.waitText("com.device.app2")
}

// A plain JDWP VM (no DDM): titles name the VM, unknown numbers are "-"
// rather than 0, long object ids do not push the columns, and the heap
// pane says why it stays empty instead of suggesting g.
func TestPlainJDWPVMLabels(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		s.UpdateVM("local:8005", func(vm *monitor.VM) {
			vm.Source, vm.VMIdent, vm.Family, vm.Connected = "local:8005", "OpenJDK 64-Bit Server VM 17.0.15", "jvm", time.Now().Add(-time.Minute)
		})
		s.SetThreads("local:8005", []monitor.Thread{
			{ID: 140737488348197, Name: "main", State: "running"},
			{ID: 140737488348198, Name: "Finalizer", State: "wait"},
		})
	})
	hs.waitText("Threads · OpenJDK 64-Bit Server VM 17.0.15 · 2")
	hs.waitText("a plain JDWP VM: it reports no heap")
	hs.waitText("…48197 main")
	hs.waitFor("no zero pid or times", func(s string) bool {
		return !strings.Contains(s, "(0)") && strings.Contains(s, "local:8005   - OpenJDK") && strings.Contains(s, "running          -     -") // CPU% blank, times unknown
	})
	hs.key(tcell.KeyRune, 'g')
	hs.waitText("GC needs a VM that speaks DDM")
}

// The debugger Port column shows whole for adb VMs with long names at 120
// columns (the App column gives way), and at 200 columns the VM list gets
// the width its content needs.
func TestVMListWidthsByContent(t *testing.T) {
	long := "com.example.a.rather.long.application.name:remote"
	setup := func(s *monitor.Store) {
		for i, serial := range []string{"emulator-5554", "R58M40ABCDEF"} {
			key := fmt.Sprintf("adb:%s:%d", serial, 4000+i)
			s.UpdateVM(key, func(vm *monitor.VM) {
				vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = "adb:"+serial, 4000+i, long, true, time.Now()
				vm.Debugger, vm.DebugPort = monitor.DebuggerAttached, 8600+i
			})
		}
	}
	t.Run("120", func(t *testing.T) {
		hs := start(t, 120, 40, style.Palette{}, setup)
		hs.waitFor("ports whole", func(s string) bool {
			return strings.Contains(s, "attached 8600") && strings.Contains(s, "attached 8601") && strings.Contains(s, "Debugger Port")
		})
	})
	t.Run("200", func(t *testing.T) {
		hs := start(t, 200, 60, style.Palette{}, setup)
		hs.waitFor("app name whole at 200 columns", func(s string) bool {
			return strings.Contains(s, long[:32]) && strings.Contains(s, "attached 8601")
		})
	})
}
