package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// trackedVMs: a device whose track-app lists a debuggable VM and a
// profileable release app without JDWP (a work-profile app).
func trackedVMs(s *monitor.Store) {
	now := time.Now()
	s.UpdateVM("adb:emulator-5554:4000", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.DDM, vm.VMIdent, vm.Connected, vm.API = "adb:emulator-5554", 4000, "com.example.debug", true, "ART", now, 35
		vm.Debuggable, vm.Profileable, vm.Tracked, vm.Architecture = true, true, true, "arm64"
		vm.Debugger = monitor.DebuggerNone
	})
	none := monitor.Capability{Source: monitor.SourceNone, Reason: monitor.NoJDWPReason}
	s.UpdateVM("adb:emulator-5554:4001", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.Connected, vm.API = "adb:emulator-5554", 4001, "com.example.release", now, 35
		vm.Profileable, vm.Tracked, vm.Architecture, vm.UserID, vm.UserIDKnown, vm.UID, vm.UIDKnown = true, true, "arm[red]", 10, true, 1010123, true
		vm.Debugger = monitor.DebuggerNone
		vm.Capabilities = monitor.Capabilities{monitor.FeatThreads: {Source: monitor.SourceProc}, monitor.FeatStack: none,
			monitor.FeatHeapMap: none, monitor.FeatGC: none, monitor.FeatHeapSummary: {Source: monitor.SourceDumpsys}}
	})
	s.SetThreads("adb:emulator-5554:4001", []monitor.Thread{{ID: 4011, Name: "release-main", Status: -1, SysTID: 4011,
		Source: monitor.SourceProc, ProcState: "S", State: "sleeping", Created: now}})
}

// A profileable process is a row of its own ("prof", no debugger, its
// architecture and user, escaped); its stack pane says in one line what
// it cannot give; P hides it and shows it again.
func TestProfileableProcessRow(t *testing.T) {
	hs := start(t, 140, 40, style.Palette{}, trackedVMs)
	hs.waitText("Arch")
	hs.waitFor("the release app's row", func(s string) bool {
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, " 4001 ") && strings.Contains(line, "prof") &&
				strings.Contains(line, "arm[red] u10") && !strings.Contains(line, "none") {
				return true
			}
		}
		return false
	})
	hs.waitText("arm64")
	hs.key(tcell.KeyRune, 'j') // select the release app
	hs.waitText("release-main")
	hs.waitText("a profileable process has no JDWP")
	hs.key(tcell.KeyRune, 'P')
	hs.waitText("debuggable only")
	hs.waitGone(" 4001 ")
	hs.waitText(" 4000 ")
	// The hidden VM was the selected one: the selection moves to a row
	// still listed, marked ▶, and the panes follow it (issue 38 #18).
	hs.waitGone("release-main")
	hs.waitFor("▶ on the debuggable VM's row", func(s string) bool {
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, " 4000 ") && strings.Contains(line, "▶") {
				return true
			}
		}
		return false
	})
	hs.waitText("selected: com.example.debug (4000)")
	hs.key(tcell.KeyRune, 'P')
	hs.waitText(" 4001 ")
}

// --processes debuggable starts the list with debuggable VMs only.
func TestDebuggableOnlyAtStart(t *testing.T) {
	hs := startCfg(t, 140, 40, style.Palette{}, trackedVMs, func(c *Config) { c.DebuggableOnly = true })
	hs.waitText(" 4000 ")
	hs.waitText("VMs (1) · debuggable only")
	for _, line := range hs.text() {
		if strings.Contains(line, " 4001 ") {
			t.Fatalf("release app listed: %q", line)
		}
	}
}

// With several devices, one architecture per device is said on the
// device's row, and the Arch column stays away.
func TestArchOnDeviceRow(t *testing.T) {
	hs := start(t, 140, 40, style.Palette{}, func(s *monitor.Store) {
		now := time.Now()
		for i, pid := range []int{4000, 4001} {
			s.UpdateVM(fmt.Sprintf("adb:emulator-5554:%d", pid), func(vm *monitor.VM) {
				vm.Source, vm.PID, vm.App, vm.Connected, vm.API = "adb:emulator-5554", pid, fmt.Sprintf("com.example.app%d", i), now, 35
				vm.Debuggable, vm.DDM, vm.Profileable, vm.Tracked, vm.Architecture = i == 0, i == 0, true, true, "x86_64"
			})
		}
		s.UpdateVM("local:8000", func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.Debuggable, vm.Connected = "local:8000", 42, "com.example.local", true, true, now
		})
	})
	hs.waitText("emulator-5554 · API 35 · x86_64")
	hs.waitText(" prof ")
	for _, line := range hs.text() {
		if strings.Contains(line, "Arch") {
			t.Fatalf("Arch column shown: %q", line)
		}
	}
}

// V on the profileable release app says why it cannot run: it has no
// JDWP at all, not "a plain JDWP VM" (issue 38 #10). p samples it with
// simpleperf (TestProfileKeySamples) and H takes a heap graph
// (TestHeapGraphKeyOnProfileableRow).
func TestProfileableProcessActionsSayNoJDWP(t *testing.T) {
	hs := start(t, 160, 40, style.Palette{}, trackedVMs)
	hs.waitText(" 4001 ")
	hs.key(tcell.KeyRune, 'j') // select the release app
	hs.waitText("release-main")
	for _, k := range []rune{'V'} {
		hs.key(tcell.KeyRune, k)
		hs.waitText("a profileable app without JDWP has no DDM")
		for _, line := range hs.text() {
			if strings.Contains(line, "plain JDWP") {
				t.Errorf("%c: %q", k, line)
			}
		}
		hs.key(tcell.KeyEscape, 0)
	}
}

// The viewers the dashboard shows over its panes say in help that q goes
// back to it; run alone (ddmtui anr, trace, allocs) they say quit
// (issue 38 #19).
func TestOverlayViewersHelpSaysQGoesBack(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, trackedVMs)
	hs.waitText(" 4001 ")
	ov := hs.dash.ov
	for name, help := range map[string]string{"profile": ov.profView.Keys().HelpText(), "dump": ov.dumpView.Keys().HelpText(),
		"allocations": ov.allocV.Keys().HelpText(), "traffic": ov.spyView.Keys().HelpText()} {
		if !strings.Contains(help, "back to the dashboard") || strings.Contains(help, " quit\n") {
			t.Errorf("%s help:\n%s", name, help)
		}
	}
}

// H on a profileable-only row (no JDWP, Android 11+) takes a Java heap
// graph through the device's perfetto, saves it as a .pftrace and opens
// the heap viewer on it, which says once what a heap graph lacks; a
// second H opens the diff against the first.
func TestHeapGraphKeyOnProfileableRow(t *testing.T) {
	hs := start(t, 140, 40, style.Palette{}, func(s *monitor.Store) {
		trackedVMs(s)
		s.UpdateVM("adb:emulator-5554:4001", func(vm *monitor.VM) {
			vm.Capabilities[monitor.FeatHPROF] = monitor.Capability{Source: monitor.SourcePerfetto}
		})
	})
	hs.waitText("arm64")
	hs.key(tcell.KeyRune, 'j') // select the release app
	hs.waitText("release-main")
	hs.key(tcell.KeyRune, 'H')
	hs.waitFor("the heap graph", func(string) bool { return hs.ctrl.called("heapgraph adb:emulator-5554:4001") })
	hs.waitText(".pftrace — perfetto heap graph · ")
	hs.waitText("references only: no strings' text")
	hs.waitText("com.example.mail")
	if hs.ctrl.called("hpds adb:emulator-5554:4001") {
		t.Error("HPROF asked of a profileable-only app")
	}
	hs.key(tcell.KeyRune, 'q')
	hs.waitText("release-main")
	hs.key(tcell.KeyRune, 'H')
	hs.waitText(".pftrace vs com.example.release-")
}
