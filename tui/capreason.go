package tui

import (
	"strings"

	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// capNone returns the reason a feature has no source on vm, escaped for
// tview, and whether it was decided to have none. A VM whose capabilities
// are not decided (nil: a local test store, an old recording) has none
// decided, so the panes keep their own words.
func capNone(vm monitor.VM, f monitor.Feature) (string, bool) {
	c, ok := vm.Capabilities[f]
	if !ok || c.Source != monitor.SourceNone {
		return "", false
	}
	why := c.Reason
	if why == "" {
		why = "not available for this VM"
	}
	return style.Escape(why), true
}

// sourceLabel names a source as the pane titles show it.
func sourceLabel(s monitor.Source) string {
	switch s {
	case monitor.SourceDDM:
		return "DDM"
	case monitor.SourceJDWP:
		return "JDWP"
	case monitor.SourceProc:
		return "from /proc"
	case monitor.SourceDumpsys:
		return "dumpsys meminfo"
	case monitor.SourceAm:
		return "am"
	case monitor.SourceShell:
		return "device shell"
	case monitor.SourcePerfetto:
		return "perfetto"
	}
	return ""
}

// wrapWords breaks tview text (already escaped) into lines of at most w
// cells between words; a word longer than w stays whole on its own line.
func wrapWords(s string, w int) []string {
	var lines []string
	cur, used := "", 0
	for _, word := range strings.Fields(s) {
		n := tview.TaggedStringWidth(word)
		if cur != "" && used+1+n > w {
			lines = append(lines, cur)
			cur, used = "", 0
		}
		if cur != "" {
			cur += " "
			used++
		}
		cur += word
		used += n
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// dimLines is escaped text wrapped to w cells between words, dimmed line
// by line, for a TextView that does not wrap.
func dimLines(s string, w int) string {
	lines := wrapWords(s, max(20, w))
	for i, l := range lines {
		lines[i] = "[::d]" + l
	}
	return strings.Join(lines, "\n")
}
