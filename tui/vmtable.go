package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// vmTable is the VM list's table. A device's row is one line of text across
// the Source … Port columns, which tview's cells (one column each) cannot
// hold, so it is drawn over the table's own rows.
type vmTable struct {
	*tview.Table
	heads  []headRow
	drawnH int // the inner height of the last draw
}

// Draw draws the table, then each device's row that is in view.
func (t *vmTable) Draw(screen tcell.Screen) {
	t.unscrollOnGrowth()
	t.Table.Draw(screen)
	x, y, w, h := t.GetInnerRect()
	rowOff, _ := t.GetOffset()
	const start = 2 // after the fold mark's column and its gap
	if w <= start {
		return
	}
	for _, hd := range t.heads {
		if hd.r < 1+rowOff { // scrolled away under the fixed header row
			continue
		}
		sy := y + hd.r - rowOff
		if sy >= y+h {
			continue
		}
		_, style, _ := screen.Get(x+start, sy) // the row's style (the cursor's, when on it)
		avail := w - start
		count := " " + hd.count
		text := truncate(safetext.Terminal(hd.text), max(avail-len(count), min(avail, 8)))
		line := text + count
		if uniseg.StringWidth(line) > avail {
			line = text
		}
		col := x + start
		for c := col; c < x+w; c++ {
			screen.SetContent(c, sy, ' ', nil, style)
		}
		bold, dim := style.Bold(true), style.Dim(true)
		g := uniseg.NewGraphemes(line)
		for i := 0; g.Next(); {
			rs := g.Runes()
			st := bold
			if i >= len(text) {
				st = dim
			}
			screen.SetContent(col, sy, rs[0], rs[1:], st)
			col += g.Width()
			i += len(g.Str())
		}
	}
}

// unscrollOnGrowth gives back the rows a smaller pane scrolled away once
// the pane is taller again: the offset drops to the least that keeps the
// selection in view (tview keeps any offset that still shows it).
func (t *vmTable) unscrollOnGrowth() {
	_, _, _, h := t.GetInnerRect()
	grew := h > t.drawnH
	t.drawnH = h
	if !grew {
		return
	}
	off, col := t.GetOffset()
	sel, _ := t.GetSelection()
	least := max(0, sel-(h-1)) // row 0 is the fixed header
	if off > least {
		t.SetOffset(least, col)
	}
}
