package tui

import (
	"testing"

	"github.com/rivo/uniseg"
)

// Names are cut by display width: a CJK character is two cells.
func TestTruncateMeasuresDisplayWidth(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"main", 10, "main"},
		{"AsyncTask #1", 6, "Async…"},
		{"线程池工作者", 7, "线程池…"},           // 3×2 cells + the mark
		{"线程池工作者", 12, "线程池工作者"},        // exactly 12 cells
		{"e\u0301cole", 3, "e\u0301c…"}, // a combining mark takes no cell
	} {
		got := truncate(c.in, c.w)
		if got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		if uniseg.StringWidth(got) > c.w {
			t.Errorf("truncate(%q, %d) is %d cells wide", c.in, c.w, uniseg.StringWidth(got))
		}
	}
}
