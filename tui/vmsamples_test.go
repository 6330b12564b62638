package tui

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/simpleperf"
	"github.com/ddmtui/ddmtui/tui/style"
)

// RecordSamples of the fake: a generated recording.
func (f *fakeController) RecordSamples(_ context.Context, key string, o monitor.SampleOptions, w io.Writer) (int64, error) {
	f.record("samples " + key)
	st, err := simpleperf.Gen(w, simpleperf.GenOptions{Threads: 2, Duration: 200 * time.Millisecond, Frequency: 1000, Depth: 6, Stacks: 4})
	return st.Bytes, err
}

// sampleableVMs: a profileable release app without JDWP and a debuggable
// app, both on an Android 14 device.
func sampleableVMs(s *monitor.Store) {
	now := time.Now().Add(-time.Minute)
	s.UpdateVM("adb:emu-5554:700", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.Connected, vm.API, vm.Profileable, vm.Tracked = "adb:emu-5554", 700, "com.example.release", now, 34, true, true
	})
	s.UpdateVM("adb:emu-5554:701", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected, vm.API = "adb:emu-5554", 701, "com.example.debug", true, now, 34
		vm.Profileable, vm.Debuggable, vm.Tracked = true, true, true
	})
}

// p on a profileable release app samples it (no "plain JDWP" refusal) and
// opens the saved recording; on a debuggable app it asks, and the answer
// holds for the session.
func TestProfileKeySamples(t *testing.T) {
	hs := start(t, 160, 40, style.Palette{}, sampleableVMs)
	hs.waitText("com.example.release")
	hs.key(tcell.KeyRune, 'p') // the first row is selected
	hs.waitFor("samples", func(string) bool { return hs.ctrl.called("samples adb:emu-5554:700") })
	hs.waitText("Incl Samples")
	files, _ := filepath.Glob(filepath.Join(hs.dash.cfg.TraceDir, "com.example.release-*.trace"))
	if len(files) != 1 {
		t.Fatalf("saved: %v", files)
	}
	hs.key(tcell.KeyRune, 'q')
	hs.waitText("samples saved to")

	hs.key(tcell.KeyDown, 0)
	hs.key(tcell.KeyRune, 'p')
	hs.waitText("t method trace, s CPU samples")
	hs.key(tcell.KeyRune, 's')
	hs.waitFor("samples of the debuggable app", func(string) bool { return hs.ctrl.called("samples adb:emu-5554:701") })
	hs.waitText("Incl Samples")
	hs.key(tcell.KeyRune, 'q')
	hs.waitText("samples saved to")
	hs.key(tcell.KeyRune, 'p') // remembered: no question
	hs.waitFor("samples again", func(string) bool { return hs.ctrl.count("samples adb:emu-5554:701") == 2 })
}

func (f *fakeController) count(s string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == s {
			n++
		}
	}
	return n
}
