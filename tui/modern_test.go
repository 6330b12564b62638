package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/android/meminfo"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// modernVMs is a DDM VM on an Android 14 device that answers no thread or
// heap chunk: threads from /proc, memory from dumpsys; and a second such
// VM whose /proc reads fail.
func modernVMs(s *monitor.Store) {
	now := time.Now().Add(-time.Minute)
	const key = "adb:emu-5556:4321"
	s.UpdateVM(key, func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.DDM, vm.VMIdent, vm.Connected, vm.API = "adb:emu-5556", 4321, "com.example.modern", true, "ART", now, 34
		vm.Capabilities = monitor.Capabilities{
			monitor.FeatThreads:     {Source: monitor.SourceProc},
			monitor.FeatStack:       {Source: monitor.SourceNone, Reason: "stacks need the DDM thread handler, which Android 11 and later no longer register"},
			monitor.FeatHeapSummary: {Source: monitor.SourceDumpsys},
			monitor.FeatHeapMap:     {Source: monitor.SourceNone, Reason: "the heap map needs the DDM heap handler, which Android 11 and later no longer register"},
			monitor.FeatGC:          {Source: monitor.SourceNone, Reason: "GC requests need the DDM heap handler, which Android 11 and later no longer register"},
			monitor.FeatMemory:      {Source: monitor.SourceDumpsys},
		}
	})
	s.SetThreads(key, []monitor.Thread{
		{ID: 4321, Name: "mainthr", Status: -1, SysTID: 4321, UTime: 50, Source: monitor.SourceProc, ProcState: "S", State: "sleeping", CPUPercent: 3.25, CPUKnown: true, Created: now},
		{ID: 4330, Name: "RenderThread", Status: -1, SysTID: 4330, UTime: 9, Source: monitor.SourceProc, ProcState: "D", CPUPercent: 41.5, CPUKnown: true, Created: now},
		{ID: 4331, Name: "Bind[red]", Status: -1, SysTID: 4331, Source: monitor.SourceProc, ProcState: "t", Created: now},
	})
	s.UpdateVM("adb:emu-5556:4400", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected, vm.API = "adb:emu-5556", 4400, "com.example.hidden", true, now, 34
		vm.Capabilities = monitor.Capabilities{
			monitor.FeatThreads: {Source: monitor.SourceNone, Reason: "/proc: cat: /proc/4400/task: Permission denied [red]"},
		}
	})
}

// rowOrder returns the order in which names appear on the screen.
func rowOrder(screen string, names ...string) []string {
	type at struct {
		name string
		i    int
	}
	var found []at
	for _, n := range names {
		if i := strings.Index(screen, n); i >= 0 {
			found = append(found, at{n, i})
		}
	}
	for i := range found {
		for j := i + 1; j < len(found); j++ {
			if found[j].i < found[i].i {
				found[i], found[j] = found[j], found[i]
			}
		}
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	return out
}

// /proc threads: the title names the source, the state word comes from
// the kernel's letter, CPU% shows where known (blank elsewhere) and sorts
// busiest first; VM text stays text.
func TestThreadPaneProcSourceStatesAndCPU(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, modernVMs)
	hs.waitText("Threads · com.example.modern (4321) · 3 · from /proc")
	hs.waitText("CPU%")
	hs.waitText("disk-sleep")
	hs.waitText("tracing-stop")
	hs.waitText("41.5")
	hs.waitText("3.2") // 3.25 to one decimal
	hs.waitText("Bind[red]")
	for _, line := range hs.text() {
		if strings.Contains(line, "Bind[red]") && strings.Contains(line, "0.0") {
			t.Fatalf("unknown CPU shown as a number: %q", line)
		}
	}
	// ID, Name, State, then CPU%: three presses sort by CPU, busiest first.
	hs.runes("ooo")
	hs.waitText("CPU%▼")
	hs.waitFor("busiest first", func(s string) bool {
		got := rowOrder(s, "RenderThread", "mainthr", "Bind[red]")
		return strings.Join(got, ",") == "RenderThread,mainthr,Bind[red]"
	})
	hs.key(tcell.KeyRune, 'O')
	hs.waitText("CPU%▲")
	hs.waitFor("unknown first ascending", func(s string) bool {
		got := rowOrder(s, "RenderThread", "mainthr", "Bind[red]")
		return strings.Join(got, ",") == "Bind[red],mainthr,RenderThread"
	})
}

// DDM threads: the title says DDM and CPU% is blank until known.
func TestThreadPaneDDMSourceInTitle(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		twoVMs(s)
		s.UpdateVM("local:8000", func(vm *monitor.VM) {
			vm.Capabilities = monitor.Capabilities{monitor.FeatThreads: {Source: monitor.SourceDDM}}
		})
	})
	hs.waitText("Threads · com.example.mail (1234) · 3 · DDM")
	hs.waitText("CPU%")
}

// A VM whose threads have no source says why instead of an empty table.
func TestThreadPaneSaysWhyNoThreads(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, modernVMs)
	hs.waitText("RenderThread")
	hs.key(tcell.KeyRune, 'j')
	hs.waitText("Permission denied [red]")
	hs.waitGone("RenderThread")
}

func kb(v int64) *int64 { return &v }

// modernMemory is a dumpsys reading with three samples of history and an
// Objects key that looks like a tview tag.
func modernMemory() monitor.Memory {
	now := time.Now()
	return monitor.Memory{
		Info: meminfo.MemInfo{
			PID: 4321, Process: "com.example.modern",
			TotalPSS: kb(120 * 1024), TotalRSS: kb(200 * 1024), JavaHeap: kb(12 * 1024), NativeHeap: kb(30 * 1024),
			Code: kb(20 * 1024), Stack: kb(1024), Graphics: kb(5 * 1024),
			DalvikHeapSize: kb(16 * 1024), DalvikHeapAlloc: kb(12 * 1024), DalvikHeapFree: kb(4 * 1024),
			Objects: map[string]int64{"views": 42, "activities": 1, "x[red]": 7},
		},
		Updated: now,
		History: []monitor.MemorySample{
			{Time: now.Add(-10 * time.Second), TotalPSS: 100 * 1024, JavaHeap: 10 * 1024, NativeHeap: 28 * 1024},
			{Time: now.Add(-5 * time.Second), TotalPSS: 110 * 1024, JavaHeap: -1, NativeHeap: 29 * 1024},
			{Time: now, TotalPSS: 120 * 1024, JavaHeap: 12 * 1024, NativeHeap: 30 * 1024},
		},
	}
}

// Without HPIF the heap pane shows the process memory, its history chart
// and, instead of suggesting g, why there is no heap map; g says why
// there is no GC.
func TestHeapPaneProcessMemoryWithoutHPIF(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, func(s *monitor.Store) {
		modernVMs(s)
		s.SetMemory("adb:emu-5556:4321", modernMemory())
	})
	hs.waitText("Heap · com.example.modern · dumpsys meminfo")
	hs.waitText("TOTAL PSS 120.0M")
	hs.waitText("RSS 200.0M")
	hs.waitText("Java heap 12.0M")
	hs.waitText("Graphics 5.0M")
	hs.waitText("Dalvik heap")
	hs.waitText("alloc 12.0M")
	hs.waitText("(75% used)")
	hs.waitText("100.0M → 120.0M over 3 readings")
	hs.waitText("100.0M → 120.0M") // PSS
	hs.waitText("10.0M → 12.0M")   // Java, the missing reading skipped
	hs.waitText("x[red] 7")
	hs.waitText("the heap map needs the DDM heap handler")
	hs.waitGone("g causes one")
	hs.key(tcell.KeyRune, 'g')
	hs.waitText("no GC: GC requests need the DDM heap handler")
	if hs.ctrl.called("gc adb:emu-5556:4321") {
		t.Fatal("GC sent to a VM without a GC source")
	}
}

// With both HPIF and process memory, one line of memory sits under the
// HPIF summary; a new reading redraws it.
func TestHeapPaneMemoryLineUnderHPIF(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("91,234")
	hs.store.SetMemory("local:8000", modernMemory())
	hs.waitText("process PSS 120.0M")
	hs.waitText("Native 30.0M")
	hs.waitText("Heap · com.example.mail · dumpsys meminfo")
	m := modernMemory()
	m.Info.TotalPSS = kb(130 * 1024)
	hs.store.SetMemory("local:8000", m)
	hs.waitText("process PSS 130.0M")
}

// A VM whose stacks have no source says why at once, and Enter on a
// thread asks it nothing (no "asking the VM…").
func TestStackPaneSaysWhyNoStack(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, modernVMs)
	hs.waitText("RenderThread")
	hs.waitText("stacks need the DDM thread handler")
	hs.key(tcell.KeyTab, 0) // the thread pane
	hs.key(tcell.KeyEnter, 0)
	hs.key(tcell.KeyRune, 'j')
	hs.waitText("stacks need the DDM thread handler")
	hs.waitGone("asking the VM")
	time.Sleep(50 * time.Millisecond)
	hs.waitText("Android 11 and later")
	if hs.ctrl.called("stack adb:emu-5556:4321 4321") || hs.ctrl.called("stack adb:emu-5556:4321 4330") {
		t.Fatal("STKL sent to a VM without a stack source")
	}
}

// At 80x24 the memory view keeps its summary and chart in the heap pane's
// few rows (details give way first).
func TestHeapPaneMemoryAt80x24(t *testing.T) {
	hs := start(t, 80, 24, style.Palette{}, func(s *monitor.Store) {
		modernVMs(s)
		s.SetMemory("adb:emu-5556:4321", modernMemory())
	})
	hs.waitText("Heap · com.example.modern · dumpsys meminfo")
	hs.waitText("TOTAL PSS 120.0M")
	hs.waitText("100.0M → 120.0M over 3 readings")
	hs.waitText("Native  ")
}

// Reasons and memory parts wrap between words / parts, never inside one,
// and no line is wider than asked unless one word is.
func TestWrapWordsAndParts(t *testing.T) {
	got := wrapWords("the heap map needs the DDM heap handler", 16)
	want := []string{"the heap map", "needs the DDM", "heap handler"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("wrapWords: %q", got)
	}
	if got := wrapWords("averyveryverylongword x", 5); len(got) != 2 || got[0] != "averyveryverylongword" {
		t.Fatalf("long word: %q", got)
	}
	parts := wrapParts([]string{"Java heap [::b]1.0M[::-]", "Code [::b]2.0M[::-]", "Stack [::b]3.0M[::-]"}, " · ", 26)
	if len(parts) != 2 || parts[0] != "Java heap [::b]1.0M[::-] · Code [::b]2.0M[::-]" {
		t.Fatalf("wrapParts (tags take no width): %q", parts)
	}
}
