package screentext

import (
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestCellsAndTrimmed(t *testing.T) {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(6, 2)
	s.SetContent(1, 0, 'a', nil, tcell.StyleDefault)
	s.SetContent(2, 0, 'e', []rune{'\u0301'}, tcell.StyleDefault)
	s.Show()
	cells, trimmed := Cells(s), Trimmed(s)
	if len(cells) != 2 || cells[0] != " ae   " || cells[1] != "      " {
		t.Errorf("Cells: %q", cells)
	}
	if len(trimmed) != 2 || trimmed[0] != " ae\u0301" || trimmed[1] != "" {
		t.Errorf("Trimmed: %q", trimmed)
	}
}
