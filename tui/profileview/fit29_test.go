package profileview

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/trace"
)

// Issue 29 #14: at 80 columns the method table shows whole columns only —
// the sorted clock's — instead of cutting the last header ("Incl W").
func TestMethodTableShowsWholeColumns(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	hs.w = 80
	hs.screen.SetSize(80, hs.h)
	hs.lines() // the first draw decides what fits
	header := hs.lines()[1]
	if !strings.HasSuffix(header, "Excl CPU ms     %") || strings.Contains(header, "Wall") {
		t.Fatalf("header %q", header)
	}
	hs.send(tcell.NewEventKey(tcell.KeyRune, 'w', tcell.ModNone)) // sort by wall clock
	hs.lines()
	header = hs.lines()[1]
	if !strings.Contains(header, "Incl Wall ms ▼") || !strings.HasSuffix(header, "Excl Wall ms     %") || strings.Contains(header, "CPU") {
		t.Fatalf("header sorted by wall clock %q", header)
	}
	// Wide enough: both clocks, in their order.
	hs.w = 140
	hs.screen.SetSize(140, hs.h)
	hs.lines()
	if header = hs.lines()[1]; !strings.Contains(header, "Incl CPU ms") || !strings.HasSuffix(header, "Excl Wall ms     %") {
		t.Fatalf("wide header %q", header)
	}
}
