package viewer

import "github.com/rivo/tview"

// fitColumns decides how many columns the table shows so that the last one
// is whole: tview draws whatever part of the last column fits, its title
// cut mid-word. The columns left out come into view by scrolling right
// (ScrollColumns) or on a wider terminal. A Clip column that would run
// past the edge is kept, cut to the width left (when that is at least
// minClip). It reports whether that changed since the last draw (the
// table is then drawn again).
func (t *Table) fitColumns() bool {
	_, _, w, h := t.view.GetInnerRect()
	rowOff, colOff := t.view.GetOffset()
	fit, clipCol, clipWidth := len(t.cols), 0, 0
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
				if left := w - used - 1; t.cols[c].Clip && left >= minClip {
					fit, clipCol, clipWidth = c+1, c, left
				}
				break
			}
			used += cw
			shown++
		}
	}
	changed := fit != t.shown || clipCol != t.clipCol || clipWidth != t.clipWidth
	t.shown, t.clipCol, t.clipWidth = fit, clipCol, clipWidth
	return changed
}

// minClip is the narrowest a Clip column is cut to; narrower, it is left
// out like any other.
const minClip = 8

// columnWidth is what tview gives column c when rows from rowOff on are in
// view: its widest cell, bounded by the column's MaxWidth.
func (t *Table) columnWidth(c, rowOff, h int) int {
	content := &tableContent{t: t, measure: true}
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

// clip cuts column col's cell at the width fitColumns left it.
func (c *tableContent) clip(cell *tview.TableCell, col int) *tview.TableCell {
	if t := c.t; !c.measure && t.clipWidth > 0 && col == t.clipCol && (cell.MaxWidth == 0 || cell.MaxWidth > t.clipWidth) {
		cell.SetMaxWidth(t.clipWidth)
	}
	return cell
}

// shape gives a cell its column's alignment and width bounds.
func shape(cell *tview.TableCell, k Column) *tview.TableCell {
	cell.SetAlign(k.Align)
	if k.MaxWidth > 0 {
		cell.SetMaxWidth(k.MaxWidth)
	}
	if k.Expand > 0 {
		cell.SetExpansion(k.Expand)
	}
	return cell
}
