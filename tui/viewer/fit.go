package viewer

import "github.com/rivo/tview"

// fitColumns decides how many columns the table shows so that the last one
// is whole: tview draws whatever part of the last column fits, its title
// cut mid-word. The columns left out come into view by scrolling right
// (ScrollColumns) or on a wider terminal. It reports whether that changed
// since the last draw (the table is then drawn again).
func (t *Table) fitColumns() bool {
	_, _, w, h := t.view.GetInnerRect()
	rowOff, colOff := t.view.GetOffset()
	fit := len(t.cols)
	if w > 0 {
		fixed := min(t.opt.FixedColumns, len(t.cols))
		used, shown := 0, 0
		for c := range t.cols {
			if c >= fixed && c < fixed+colOff {
				continue // scrolled away to the left
			}
			cw := t.columnWidth(c, rowOff, h)
			if shown > 0 {
				cw++ // the gap before it
			}
			if used+cw > w && shown > 0 && c >= fixed+colOff {
				fit = c
				break
			}
			used += cw
			shown++
		}
	}
	changed := fit != t.shown
	t.shown = fit
	return changed
}

// columnWidth is what tview gives column c when rows from rowOff on are in
// view: its widest cell, bounded by the column's MaxWidth.
func (t *Table) columnWidth(c, rowOff, h int) int {
	content := &tableContent{t: t}
	n := 0
	for _, r := range append([]int{0}, rows(1+rowOff, min(t.n, rowOff+h))...) {
		if cell := content.GetCell(r, c); cell != nil {
			n = max(n, tview.TaggedStringWidth(cell.Text))
		}
	}
	if k := t.cols[c]; k.MaxWidth > 0 {
		n = min(n, k.MaxWidth)
	}
	return n
}

// rows lists first…last.
func rows(first, last int) []int {
	var out []int
	for r := first; r <= last; r++ {
		out = append(out, r)
	}
	return out
}
