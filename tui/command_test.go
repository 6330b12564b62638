package tui

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// threeVMs adds a third VM on a device to twoVMs: mail and maps are local,
// messenger is on emulator-5554.
func threeVMs(s *monitor.Store) {
	twoVMs(s)
	s.UpdateVM("sim:emulator-5554:4321", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.DDM, vm.VMIdent = "sim:emulator-5554", 4321, "org.example.messenger", true, "Dalvik v2.1.0"
	})
}

// lastLine is the screen's bottom line (the prompt or the status line).
func (hs *harness) lastLine() string {
	l := hs.text()
	return l[len(l)-1]
}

func (hs *harness) waitLast(sub string) {
	hs.t.Helper()
	hs.waitFor("bottom line with "+sub, func(string) bool { return strings.Contains(hs.lastLine(), sub) })
}

// waitSelected waits for the VM list's marked row (▶) to hold row.
func (hs *harness) waitSelected(row string) {
	hs.t.Helper()
	hs.waitFor("▶ on "+row, func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "▶") && strings.Contains(l, row) {
				return true
			}
		}
		return false
	})
}

func TestCommandPromptCompletes(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, ':')
	hs.runes("thr")
	hs.waitLast("Tab → thread-dump · threads")
	hs.key(tcell.KeyTab, 0)
	hs.waitLast(":thread-dump ")
	hs.key(tcell.KeyTab, 0) // again: the next candidate
	hs.waitLast(":threads ")
	hs.key(tcell.KeyBacktab, 0) // back
	hs.waitLast(":thread-dump ")
	hs.key(tcell.KeyTab, 0)
	hs.waitLast(":threads ")
	// Enter: the thread pane gets the focus (its border turns double).
	hs.key(tcell.KeyEnter, 0)
	hs.waitFor("threads focused", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "Threads ·") {
				return strings.Contains(l, "╔")
			}
		}
		return false
	})
	// Focused already: :threads hides it.
	hs.runes(":threads\r")
	hs.waitGone("Binder:1234_1")
	// And shows it again, focused.
	hs.runes(":threads\r")
	hs.waitText("Binder:1234_1")
	// Arguments complete too: the sort columns of the focused table.
	hs.runes(":sort c")
	hs.waitLast("Tab → sort cpu")
	hs.key(tcell.KeyEscape, 0)
	hs.runes(":sort q")
	hs.waitLast("columns here: id · name · state · cpu · utime · stime · daemon · tid")
	hs.key(tcell.KeyEscape, 0)
	hs.runes(":app qqq")
	hs.waitLast("no VM's app matches")
	hs.key(tcell.KeyEscape, 0)
	hs.waitLast("ddmtui")
}

func TestCommandJumpsToAppAcrossDevices(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, threeVMs)
	hs.waitText("org.example.messenger")
	hs.waitText("selected: com.example.mail")
	hs.runes(":app messen\r")
	hs.waitSelected("4321 org.example.messenger")
	hs.waitText("app: org.example.messenger (4321) · sim:emulator-5554")
	// Several match: each :app selects the next.
	hs.runes(":app com.example.ma\r")
	hs.waitSelected("1234 com.example.mail")
	hs.waitText("1 of 2 matches")
	hs.runes(":app com.example.ma\r")
	hs.waitSelected("5678 com.example.maps")
	hs.waitText("2 of 2 matches")
	// Letters in order when nothing contains them ("exmail" in mail only).
	hs.runes(":app exmail\r")
	hs.waitSelected("1234 com.example.mail")
	hs.waitText("app: com.example.mail (1234) · local:8000")
	hs.runes(":app zzz\r")
	hs.waitText(`app "zzz": no VM's app matches (3 VMs listed)`)
	// The VM list's filter hiding the VM is cleared.
	hs.runes("/maps\r")
	hs.waitText("VMs (1 of 3)")
	hs.runes(":app messenger\r")
	hs.waitSelected("4321 org.example.messenger")
	hs.waitGone("VMs (1 of 3)")
	// The app names complete.
	hs.runes(":app ex")
	hs.waitLast("app com.example.mail · app com.example.maps · app org.example.messenger")
}

func TestCommandUnknownSuggests(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, ':')
	hs.runes("gcc")
	hs.waitLast("no such command")
	hs.key(tcell.KeyEnter, 0)
	hs.waitText("unknown command :gcc — did you mean :gc?")
	hs.runes(":hep\r")
	hs.waitText("unknown command :hep — did you mean :heap?")
	hs.runes(":app\r")
	hs.waitText(":app needs NAME (e.g. :app mail)")
	hs.runes(":gc now\r")
	hs.waitText(`:gc takes no argument ("now" left over)`)
	if hs.ctrl.called("gc local:8000") {
		t.Fatal(":gc with an argument ran")
	}
}

func TestCommandRunsKeyActionsAndRemembers(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.runes(":gc\r")
	hs.waitFor("GC", func(string) bool { return hs.ctrl.called("gc local:8000") })
	hs.runes(":dump\r") // the thread dump's short name
	hs.waitFor("thread dump", func(string) bool { return hs.ctrl.called("dump local:8000") })
	hs.waitText("DEADLOCK")
	hs.key(tcell.KeyRune, 'q')
	hs.waitText("Binder:1234_1")
	// :heap hides the heap pane when it has the focus, after focusing it.
	hs.runes(":heap\r")
	hs.waitFor("heap focused", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "Heap ·") {
				return strings.Contains(l, "╔")
			}
		}
		return false
	})
	hs.runes(":heap\r")
	hs.waitGone("Heap ·")
	// History: Up walks back through the lines run.
	hs.key(tcell.KeyRune, ':')
	hs.key(tcell.KeyUp, 0)
	hs.waitLast(":heap ") // run twice, kept once
	hs.key(tcell.KeyUp, 0)
	hs.waitLast(":dump ")
	hs.key(tcell.KeyUp, 0)
	hs.key(tcell.KeyUp, 0) // the oldest stays
	hs.waitLast(":gc ")
	hs.key(tcell.KeyDown, 0)
	hs.waitLast(":dump ")
	hs.key(tcell.KeyDown, 0)
	hs.key(tcell.KeyDown, 0) // past the newest: an empty line
	hs.waitFor("an empty prompt", func(string) bool { return strings.HasPrefix(hs.lastLine(), ":   ") })
	hs.key(tcell.KeyEscape, 0)
	hs.waitLast("ddmtui")
}

// TestEveryKeyActionIsACommand: the prompt's commands are the key table's
// action names (but movement and the prompt's own keys), with the panes'
// short names and the table's extra names.
func TestEveryKeyActionIsACommand(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	var names map[string]bool
	hs.dash.App().QueueUpdate(func() {
		names = map[string]bool{}
		for _, c := range hs.dash.commands() {
			names[c.name] = true
		}
	})
	for _, b := range hs.dash.Keys().Bindings() {
		if b.Name == "" || notCommands[b.Name] || b.Scope == TimelineScope || b.Scope == ThreadsScope || b.Scope == VMListScope {
			continue
		}
		if !names[b.Name] {
			t.Errorf("action %q is not a command", b.Name)
		}
	}
	for _, n := range []string{"app", "sort", "threads", "heap", "stack", "log", "vms", "timeline", "gc", "dump", "hprof", "trace", "q"} {
		if !names[n] {
			t.Errorf("no :%s", n)
		}
	}
	if names["down"] || names["sort-threads-cpu"] {
		t.Error("movement or digit keys offered as commands")
	}
}

func TestSortKeysPerColumn(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, threeVMs)
	hs.waitText("Binder:1234_1")
	// The VM list has the focus: 3 sorts each device's VMs by app name,
	// again the other way.
	hs.key(tcell.KeyRune, '3')
	hs.waitText("App▲")
	hs.key(tcell.KeyRune, '3')
	hs.waitText("App▼")
	order := func(a, b string) bool {
		s := strings.Join(hs.text(), "\n")
		return strings.Contains(s, a) && strings.Index(s, a) < strings.Index(s, b)
	}
	hs.waitFor("maps above mail", func(string) bool { return order("5678 com.example.maps", "1234 com.example.mail") })
	hs.key(tcell.KeyRune, '2') // pid, ascending
	hs.waitText("PID▲")
	hs.waitFor("mail above maps", func(string) bool { return order("1234 com.example.mail", "5678 com.example.maps") })
	// The devices keep their places: the local group before the emulator.
	if !order("5678 com.example.maps", "4321 org.example.messenger") {
		t.Fatal("a device's VM sorted into another device")
	}
	// The threads: 4 is CPU%, busiest first; again: the other way.
	hs.key(tcell.KeyEnter, 0)
	hs.key(tcell.KeyRune, '4')
	hs.waitText("CPU%▼")
	hs.waitFor("AsyncTask first", func(string) bool { return order("AsyncTask #1", "Binder:1234_1") && order("AsyncTask #1", " main ") })
	hs.key(tcell.KeyRune, '4')
	hs.waitText("CPU%▲")
	hs.waitFor("AsyncTask last", func(string) bool { return order("Binder:1234_1", "AsyncTask #1") })
	// :sort names a column of the focused table.
	hs.runes(":sort name\r")
	hs.waitText("Name▲")
	hs.runes(":sort bogus\r")
	hs.waitText(`sort: no column "bogus" here (id, name, state, cpu, utime, stime, daemon, tid)`)
	// Help lists the sort keys.
	hs.key(tcell.KeyRune, '?')
	hs.waitText("Keys")
	for i := 0; i < 4; i++ {
		hs.key(tcell.KeyPgDn, 0)
	}
	hs.waitText("Sort the focused table (again: reverse)")
	hs.waitText("1 2 3 4          threads: by ID · Name · State · CPU%")
	hs.waitText("5 6 7 8          threads: by utime · stime · Daemon · tid")
	hs.waitText("1 2 3 4          VM list: by source · pid · app · ddm")
	hs.waitText("5 6              VM list: by debugger · port")
}
