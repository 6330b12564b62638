package profileview

import (
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/trace"
)

// Issue 29 #14: at 80 columns the method table ends on a whole column
// instead of cutting the last header ("Incl W", "6.1…"); the columns left
// out show on a wider terminal.
func TestMethodTableShowsWholeColumns(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	hs.w = 80
	hs.screen.SetSize(80, hs.h)
	lines := hs.lines()
	if header := lines[1]; !strings.HasSuffix(header, "% Incl Wall ms") {
		t.Fatalf("header %q", header)
	}
	for _, l := range lines[2:6] {
		if strings.Contains(l, "…") {
			t.Fatalf("a cut cell: %q", l)
		}
	}
	hs.w = 140
	hs.screen.SetSize(140, hs.h)
	if header := hs.lines()[1]; !strings.HasSuffix(header, "Excl Wall ms     %") {
		t.Fatalf("wide header %q", header)
	}
}
