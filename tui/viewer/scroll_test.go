package viewer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// A filter that leaves few rows, then cleared: the selection is kept, and
// shown, though the rows grew past the screen (tview would follow the end).
func TestClearedFilterKeepsTheSelectionInView(t *testing.T) {
	hs := newHarness(t, 40, 12, FrameOptions{})
	r := &fruitRows{}
	for i := range 60 {
		r.all = append(r.all, fruit{fmt.Sprintf("fruit%02d", i), 100 - i})
	}
	tab := NewTable(r, TableOptions{Title: "Fruits", Sorts: fruitSorts})
	hs.f.AddTab(tab)
	hs.f.SetRunner(nil)
	tab.SetFilter("fruit03")
	hs.draw()
	if tab.SelectedKey() != "fruit03" {
		t.Fatalf("selected %q", tab.SelectedKey())
	}
	hs.key(tcell.KeyEscape, 0) // clears the filter
	if tab.Filter() != "" || tab.SelectedKey() != "fruit03" {
		t.Fatalf("filter %q, selected %q", tab.Filter(), tab.SelectedKey())
	}
	if text := hs.text(); !strings.Contains(text, "fruit03") || strings.Contains(text, "fruit59") {
		t.Errorf("the selection is out of view:\n%s", text)
	}
}
