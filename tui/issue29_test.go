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

// The tests of this file are issue 29's defects, each failing before its fix.

// The line under the heap header counts the GCs the header counts: the
// report asked for at connect is not a GC (#15).
func TestHeapHistoryCountsGCsAsTheHeader(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		twoVMs(s)
		now := time.Now()
		var hist []monitor.HeapSample
		for i := 0; i <= 3; i++ { // the connect report, then GCs 1…3
			hist = append(hist, monitor.HeapSample{Time: now, AllocatedBytes: uint64(i+1) << 20, SizeBytes: 12 << 20, GCCount: i})
		}
		s.SetHeaps("local:8000", []monitor.Heap{{ID: 1, MaxBytes: 256 << 20, SizeBytes: 12 << 20, AllocatedBytes: 4 << 20, Objects: 91234, GCCount: 3, History: hist}})
	})
	hs.waitText("GCs 3")
	hs.waitText("allocated over 3 GCs: 1.0M → 4.0M")
}

func TestGCsSpanned(t *testing.T) {
	for _, c := range []struct{ first, last, want int }{{0, 3, 3}, {1, 3, 3}, {5, 5, 1}, {0, 0, 0}, {238, 477, 240}} {
		if got := gcsSpanned(monitor.HeapSample{GCCount: c.first}, monitor.HeapSample{GCCount: c.last}); got != c.want {
			t.Errorf("gcsSpanned(%d, %d) = %d, want %d", c.first, c.last, got, c.want)
		}
	}
}

// twelveVMs adds VMs local:8000…8011.
func twelveVMs(s *monitor.Store) {
	twoVMs(s)
	now := time.Now().Add(-time.Minute)
	for i := 2; i < 12; i++ {
		key := fmt.Sprintf("local:%d", 8000+i)
		s.UpdateVM(key, func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = key, 2000+i, fmt.Sprintf("com.example.app%d", i), true, now
		})
	}
}

// After the VM list shrinks (the log pane opens) and grows again, it shows
// its first rows again when the selection fits with them (#15).
func TestVMListUnscrollsWhenItGrows(t *testing.T) {
	hs := start(t, 120, 24, style.Palette{}, twelveVMs)
	hs.waitText("Binder:1234_1")
	for i := 0; i < 5; i++ {
		hs.key(tcell.KeyRune, 'j')
	}
	hs.waitText("selected: com.example.app5")
	hs.key(tcell.KeyRune, 'l')
	hs.waitText("Log")
	hs.waitGone(" local:8000 ")
	hs.key(tcell.KeyRune, 'l')
	hs.waitFor("the log pane closed", func(s string) bool { return !strings.Contains(s, "┌Log") })
	hs.waitText(" local:8000 ")
	hs.waitText("▶ local:8005")
}
