package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// TestRebindingAppliedToDashboard: the configuration's [keys] table
// (keymap.Use) replaces the defaults: help shows the keys in effect, the
// old keys do nothing, the new ones act.
func TestRebindingAppliedToDashboard(t *testing.T) {
	r, errs := keymap.ParseRebinding(map[string][]string{"quit": {"x"}, "gc": {"G", "Ctrl-G"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	keymap.Use(r)
	t.Cleanup(func() { keymap.Use(nil) }) // after the dashboard stops
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, '?')
	hs.waitText("G / Ctrl-G")
	hs.waitText("cause a GC in the selected VM")
	hs.waitGone("q / Ctrl-C")
	hs.key(tcell.KeyEscape, 0)
	hs.waitGone("cause a GC in the selected VM")
	hs.waitText("?:help x:quit") // the status line names the key in effect
	hs.key(tcell.KeyRune, 'g')
	hs.key(tcell.KeyRune, 'q')
	time.Sleep(100 * time.Millisecond)
	if gcCalled(hs.ctrl) {
		t.Fatal("g still causes a GC after gc was rebound")
	}
	select {
	case err := <-hs.done:
		hs.done <- err
		t.Fatal("q still quits after quit was rebound to x")
	default:
	}
	hs.screen.InjectKey(tcell.KeyCtrlG, 0, tcell.ModCtrl)
	hs.waitFor("GC requested by Ctrl-G", func(string) bool { return gcCalled(hs.ctrl) })
	hs.key(tcell.KeyRune, 'x')
	select {
	case err := <-hs.done:
		if err != nil {
			t.Fatalf("quit: %v", err)
		}
		hs.done <- nil
	case <-time.After(3 * time.Second):
		t.Fatal("x did not quit")
	}
}

func gcCalled(f *fakeController) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if strings.HasPrefix(c, "gc ") {
			return true
		}
	}
	return false
}

// TestCtrlCQuitsFromEverywhere: Ctrl-C quits the dashboard even with quit
// rebound to a key no terminal sends and the help overlay (which swallowed
// every other key) open (issue 30 #6).
func TestCtrlCQuitsFromEverywhere(t *testing.T) {
	r, errs := keymap.ParseRebinding(map[string][]string{"quit": {"Exit"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	keymap.Use(r)
	t.Cleanup(func() { keymap.Use(nil) })
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, '?')
	hs.waitText("Exit / Ctrl-C")
	hs.screen.InjectKey(tcell.KeyCtrlC, 0, tcell.ModCtrl)
	select {
	case err := <-hs.done:
		if err != nil {
			t.Fatalf("quit: %v", err)
		}
		hs.done <- nil
	case <-time.After(3 * time.Second):
		t.Fatal("Ctrl-C over the help overlay did not quit")
	}
}
