package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/android/meminfo"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// The heap pane's process-memory view: what `dumpsys meminfo PID` reports,
// shown in full when the VM sends no HPIF (recent Android), and as one
// line under the HPIF summary when both exist.

// kib formats a KiB value from dumpsys.
func kib(v int64) string { return humanBytes(uint64(max(v, 0)) * 1024) }

// memParts lists the App Summary's values that were printed, in the order
// dumpsys prints them.
func memParts(mi meminfo.MemInfo) []string {
	var parts []string
	add := func(label string, v *int64) {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%s [::b]%s[::-]", label, kib(*v)))
		}
	}
	add("Java heap", mi.JavaHeap)
	add("Native heap", mi.NativeHeap)
	add("Code", mi.Code)
	add("Stack", mi.Stack)
	add("Graphics", mi.Graphics)
	add("Private other", mi.PrivateOther)
	add("System", mi.System)
	return parts
}

// memLine is the one-line summary drawn under the HPIF summary.
func memLine(mi meminfo.MemInfo) string {
	var parts []string
	if mi.TotalPSS != nil {
		parts = append(parts, fmt.Sprintf("process PSS [::b]%s[::-]", kib(*mi.TotalPSS)))
	}
	if mi.JavaHeap != nil {
		parts = append(parts, "Java "+kib(*mi.JavaHeap))
	}
	if mi.NativeHeap != nil {
		parts = append(parts, "Native "+kib(*mi.NativeHeap))
	}
	if mi.Graphics != nil {
		parts = append(parts, "Graphics "+kib(*mi.Graphics))
	}
	return strings.Join(parts, "  ") + "  [::d](dumpsys meminfo)"
}

// heapRow is a table row's Heap Size / Alloc / Free.
func heapRow(label string, size, alloc, free *int64) string {
	if size == nil && alloc == nil && free == nil {
		return ""
	}
	v := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return kib(*p)
	}
	s := fmt.Sprintf("%-12s size [::b]%s[::-]  alloc [::b]%s[::-]  free %s", label, v(size), v(alloc), v(free))
	if size != nil && alloc != nil && *size > 0 {
		s += fmt.Sprintf(" (%.0f%% used)", 100*float64(*alloc)/float64(*size))
	}
	return s
}

// drawMemory draws the full process-memory view from row line of the
// pane's inner rectangle and returns the next free row.
func (p *heapMap) drawMemory(screen tcell.Screen, x, y, w, h, line int) int {
	text := func(s string) {
		if line < h {
			tview.Print(screen, s, x, y+line, w, tview.AlignLeft, tcell.ColorDefault)
		}
		line++
	}
	mi := p.mem.Info
	var head []string
	if mi.TotalPSS != nil {
		head = append(head, fmt.Sprintf("[::b]TOTAL PSS %s[::-]", kib(*mi.TotalPSS)))
	}
	if mi.TotalRSS != nil {
		head = append(head, "RSS "+kib(*mi.TotalRSS))
	}
	if mi.TotalSwapPSS != nil {
		head = append(head, "swap PSS "+kib(*mi.TotalSwapPSS))
	} else if mi.TotalSwap != nil {
		head = append(head, "swap "+kib(*mi.TotalSwap))
	}
	if len(head) > 0 {
		text(fitParts(head, "  ", w))
	}
	for _, l := range wrapParts(memParts(mi), "  ", w) {
		text(l)
	}
	// The history chart, PSS, Java and Native over the readings, comes
	// before the details, which a short pane drops.
	if hist := p.mem.History; len(hist) > 1 && h-line >= 3 {
		over := fmt.Sprintf(" over %d readings", len(hist))
		series := []struct {
			label string
			get   func(monitor.MemorySample) int64
		}{
			{"PSS", func(s monitor.MemorySample) int64 { return s.TotalPSS }},
			{"Java", func(s monitor.MemorySample) int64 { return s.JavaHeap }},
			{"Native", func(s monitor.MemorySample) int64 { return s.NativeHeap }},
		}
		for _, se := range series {
			vals := make([]uint64, 0, len(hist))
			var first, last int64 = -1, -1
			for _, s := range hist {
				v := se.get(s)
				if v < 0 {
					continue
				}
				if first < 0 {
					first = v
				}
				last = v
				vals = append(vals, uint64(v))
			}
			if len(vals) < 2 {
				continue
			}
			label := fmt.Sprintf(" %s → %s%s", kib(first), kib(last), over)
			over = ""
			sw := max(1, w-8-len([]rune(label)))
			if line < h {
				tview.Print(screen, fmt.Sprintf("%-7s", se.label), x, y+line, 8, tview.AlignLeft, tcell.ColorDefault)
				tview.Print(screen, spark(vals, sw), x+8, y+line, sw, tview.AlignLeft, p.pal.Accent())
				tview.Print(screen, "[::d]"+label, x+8+min(sw, len(vals)), y+line, w-8-min(sw, len(vals)), tview.AlignLeft, tcell.ColorDefault)
			}
			line++
		}
	}
	if s := heapRow("Dalvik heap", mi.DalvikHeapSize, mi.DalvikHeapAlloc, mi.DalvikHeapFree); s != "" {
		text(s)
	}
	if s := heapRow("Native heap", mi.NativeHeapSize, mi.NativeHeapAlloc, mi.NativeHeapFree); s != "" {
		text(s)
	}
	if len(mi.Objects) > 0 && h-line >= 2 {
		keys := make([]string, 0, len(mi.Objects))
		for k := range mi.Objects {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %s", style.Escape(meminfo.ObjectLabel(k)), groupDigits(uint64(max(mi.Objects[k], 0)))))
		}
		lines := wrapParts(parts, " · ", max(1, w-9))
		for i, l := range lines {
			if h-line < 1 {
				break
			}
			lead := "         "
			if i == 0 {
				lead = "[::d]Objects[::-]  "
			}
			text(lead + l)
		}
	}
	return line
}

// wrapParts joins parts with sep into lines of at most w cells, never
// cutting a part (one wider than w is cut by drawing).
func wrapParts(parts []string, sep string, w int) []string {
	var lines []string
	cur, used := "", 0
	for _, part := range parts {
		n := tview.TaggedStringWidth(part)
		sw := tview.TaggedStringWidth(sep)
		if cur != "" && used+sw+n > w {
			lines = append(lines, cur)
			cur, used = "", 0
		}
		if cur != "" {
			cur += sep
			used += sw
		}
		cur += part
		used += n
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
