package tui

import (
	"fmt"
	"strings"

	"github.com/rivo/uniseg"

	"github.com/ddmtui/ddmtui/tui/style"
)

// humanBytes formats a byte count compactly: 512B, 12.0K, 256.0M, 1.5G.
func humanBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	v := float64(n)
	for _, suffix := range []string{"K", "M", "G", "T"} {
		v /= unit
		if v < unit {
			return fmt.Sprintf("%.1f%s", v, suffix)
		}
	}
	return fmt.Sprintf("%.1fP", v/unit)
}

// groupDigits writes 91234 as 91,234.
func groupDigits(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// bar draws a width-cell bar with used and size marks relative to max:
// '█' allocated, '▒' heap footprint not allocated, '·' room to max.
func bar(allocated, size, limit uint64, width int) string {
	if width <= 0 || limit == 0 {
		return ""
	}
	a := int(float64(width) * float64(allocated) / float64(limit))
	s := int(float64(width) * float64(size) / float64(limit))
	a = min(max0(a), width)
	s = min(max(s, a), width)
	return strings.Repeat("█", a) + strings.Repeat("▒", s-a) + strings.Repeat("·", width-s)
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// truncate shortens s to w display cells, marking the cut with '…'. It
// measures terminal cells, not runes: a CJK character takes two, a
// combining mark none, so a cut name never spills into the next column.
func truncate(s string, w int) string {
	if uniseg.StringWidth(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	var b strings.Builder
	used := 0
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		cw := g.Width()
		if used+cw > w-1 {
			break
		}
		b.WriteString(g.Str())
		used += cw
	}
	return b.String() + "…"
}

// fitTitle makes a pane's plain title fit the w cells its border has
// (tview centres a title and cuts a long one at both ends, losing its
// first letters): it is cut at the end with '…' and then escaped. w <= 0
// (not drawn yet) keeps it whole.
func fitTitle(title string, w int) string {
	if w > 2 && uniseg.StringWidth(title) > w {
		title = truncate(title, w-1) + " "
	}
	return style.EscapeTags(title)
}
