package heapview

import (
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/viewer"
)

// dupRows is the duplicate strings table (D13): each content held by two
// or more reachable Strings, the most bytes wasted first.
type dupRows struct {
	m     *Model
	shown []int
}

func (r *dupRows) Columns() []viewer.Column {
	return []viewer.Column{
		{Title: "VALUE", Expand: 1, MaxWidth: 70},
		{Title: "COPIES", Align: tview.AlignRight},
		{Title: "WASTED", Align: tview.AlignRight},
	}
}

func (r *dupRows) Update(q viewer.Query) int {
	r.shown = r.shown[:0]
	for i, d := range r.m.dups {
		if q.Filter == "" || passes(d.Value, q.Filter) {
			r.shown = append(r.shown, i)
		}
	}
	return len(r.shown)
}

func (r *dupRows) Cell(i, c int) *tview.TableCell {
	d := &r.m.dups[r.shown[i]]
	switch c {
	case 0:
		return cell(quote(d.Value))
	case 1:
		return cell(count(d.Count))
	case 2:
		return cell(size(d.Wasted))
	}
	return nil
}

// Key: the group's rank (contents may be long; ranks are stable).
func (r *dupRows) Key(i int) string { return count(r.shown[i]) }

// openDuplicate lists the String objects of the selected group.
func (v *View) openDuplicate() {
	i := v.strings.Selected()
	if i < 0 || i >= len(v.stringRows.shown) {
		return
	}
	d := &v.m.dups[v.stringRows.shown[i]]
	items := make([]nodeItem, 0, min(len(d.Members), maxListed))
	for _, n := range d.Members {
		if len(items) == maxListed {
			break
		}
		items = append(items, nodeItem{node: n})
	}
	rows := &nodeRows{m: v.m, items: items, more: len(d.Members) - len(items)}
	v.Push(v.table(rows, viewer.TableOptions{Title: quote(d.Value) + " ×" + count(d.Count), Scope: "objects"}))
}
