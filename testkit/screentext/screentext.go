// Package screentext reads what a tcell simulation screen shows, for the
// viewers' tests.
package screentext

import (
	"strings"

	"github.com/gdamore/tcell/v2"
)

// Cells returns the screen's rows one rune per cell (the first rune of a
// cell, a blank for an empty one), untrimmed: a rune's index in its row is
// its column.
func Cells(s tcell.SimulationScreen) []string {
	cells, w, h := s.GetContents()
	out := make([]string, h)
	for y := range h {
		var b strings.Builder
		for x := range w {
			c := cells[y*w+x]
			if len(c.Runes) == 0 || c.Runes[0] == 0 {
				b.WriteRune(' ')
			} else {
				b.WriteRune(c.Runes[0])
			}
		}
		out[y] = b.String()
	}
	return out
}

// Trimmed returns the screen's rows with every rune of each cell
// (combining marks included) and the trailing blanks cut.
func Trimmed(s tcell.SimulationScreen) []string {
	cells, w, h := s.GetContents()
	out := make([]string, h)
	for y := range h {
		var b strings.Builder
		for x := range w {
			r := cells[y*w+x].Runes
			if len(r) == 0 {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(string(r))
		}
		out[y] = strings.TrimRight(b.String(), " ")
	}
	return out
}
