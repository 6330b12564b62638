package viewer

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// Column is one column of a Table.
type Column struct {
	Title    string
	Align    int // tview.AlignLeft (the zero value) or tview.AlignRight
	Expand   int // share of spare width (tview's expansion)
	MaxWidth int // 0: unbounded
	// Sort names the sort order whose key is this column: its title gets
	// ▼ (or ▲ reversed) while the table is in that order.
	Sort string
	// Clip cuts the column (ending it with …) where it would run past the
	// table's edge, rather than leaving it out: a last column of free text
	// (a packet's summary) that is wider than any terminal.
	Clip bool
}

// Sort is one order a Table's rows can take, chosen by a key.
type Sort struct {
	Key  rune   // the key that chooses it
	Name string // as the header says it: "inclusive", "name"
	Help string // its help line: "sort by inclusive time"
}

// Query is what a Rows source lays its rows out for: the filter and the
// order chosen in the frame.
type Query struct {
	Filter  string
	Sort    int // index in TableOptions.Sorts
	Reverse bool
}

// Rows is what a Table shows: the view's data, filtered and sorted as the
// Query asks. Cells are asked for as they are drawn, so a million rows
// cost nothing until scrolled to.
type Rows interface {
	// Columns names the columns (asked again on every Refresh).
	Columns() []Column
	// Update lays the rows out for q and returns their number.
	Update(q Query) int
	// Cell returns row i's cell in column c; peer strings in it must be
	// escaped (style.Escape). The column's alignment and width bounds are
	// applied by the table.
	Cell(i, c int) *tview.TableCell
	// Key identifies row i across updates so that the selection stays on
	// it; "" for a row that cannot be selected (a heading).
	Key(i int) string
}

// TableOptions configure a Table.
type TableOptions struct {
	// Title names the page in the tab bar; Scope is its key scope (its
	// sort keys act only while a table of that scope is shown). A table
	// of no scope (the root table of a viewer with one) brings its keys
	// unscoped: they are the view's own, checked against every other
	// key of the view; only one such table's keys are registered.
	Title, Scope string
	// Sorts are the orders the rows can take; the first is the default.
	// Each one's key, and r (reverse), are bound while the table is shown.
	Sorts []Sort
	// RepeatReverses makes the key of the current order reverse it.
	RepeatReverses bool
	// FixedColumns stay on screen when scrolling right.
	FixedColumns int
	// Empty says why there are no rows ("no allocations recorded"): it is
	// drawn under the column titles when the table is empty.
	Empty string
	// DetailHelp describes Tab in help when the table has a detail pane.
	DetailHelp string
	// SideBySide is the width from which the detail pane goes beside the
	// table rather than under it (default 110).
	SideBySide int
	// NoFilter makes / leave the page for its tab's root and filter that
	// (a drilled-in page whose rows are not a list to narrow).
	NoFilter bool
}

// Table is a page of rows: column titles, a selection the movement keys
// move (skipping headings), sorting by the keys of its Sorts, the / filter,
// an optional detail pane (the selected row's stack, fields...) that Tab
// gives the movement keys to, and a line saying why it is empty.
type Table struct {
	*tview.Flex
	opt    TableOptions
	rows   Rows
	view   *tview.Table
	detail *tview.TextView
	frame  *Frame

	cols        []Column
	q           Query
	n           int
	selKey      string // the selected row's key, as of the last selection
	detailFocus bool
	onSelect    func(i int)
	onChange    func()
	shown       int // the columns that fit whole, as of the last draw (fit.go)
	clipCol     int // the Clip column cut at the edge, and its width there (0: none)
	clipWidth   int
}

// NewTable returns a table page over rows; call Refresh once the rows
// have data.
func NewTable(rows Rows, opt TableOptions) *Table {
	if opt.SideBySide == 0 {
		opt.SideBySide = 110
	}
	t := &Table{opt: opt, rows: rows}
	t.view = tview.NewTable().SetSelectable(true, false).SetFixed(1, opt.FixedColumns)
	t.view.SetContent(&tableContent{t: t})
	t.view.SetSelectedStyle(tcell.StyleDefault.Reverse(true))
	t.view.SetSelectionChangedFunc(func(int, int) { t.selectionChanged() })
	t.Flex = tview.NewFlex().AddItem(t.view, 0, 1, false)
	t.Refresh()
	return t
}

// Rows returns the source of the rows.
func (t *Table) Rows() Rows { return t.rows }

// Widget is the tview.Table drawn (set its border and title there).
func (t *Table) Widget() *tview.Table { return t.view }

// Title implements Page.
func (t *Table) Title() string { return t.opt.Title }

// SetPageTitle renames the page in the tab bar.
func (t *Table) SetPageTitle(s string) { t.opt.Title = s }

// Scope implements Page.
func (t *Table) Scope() string { return t.opt.Scope }

// SetEmpty sets the line that says why the table is empty.
func (t *Table) SetEmpty(why string) { t.opt.Empty = why }

// OnSelect calls fn with the selected row (-1 for none) whenever the
// selection changes, and after every Refresh.
func (t *Table) OnSelect(fn func(i int)) { t.onSelect = fn }

// OnChange calls fn after every Refresh (the filter or the order
// changed): the view updates its header.
func (t *Table) OnChange(fn func()) { t.onChange = fn }

// Query returns the filter and order in force.
func (t *Table) Query() Query { return t.q }

// Len is the number of rows.
func (t *Table) Len() int { return t.n }

// Columns returns the columns as of the last Refresh.
func (t *Table) Columns() []Column { return t.cols }

// Refresh lays the rows out again (new data, new columns), keeping the
// selected row when it is still there.
func (t *Table) Refresh() { t.update(t.selKey) }

// Reset lays the rows out again with the first row selected and the
// table scrolled to the top (a new grouping, a new data set).
func (t *Table) Reset() { t.update("") }

// update lays the rows out and selects the row with key keep, else the
// first selectable row.
func (t *Table) update(keep string) {
	t.cols = t.rows.Columns()
	t.n = t.rows.Update(t.q)
	row := -1
	if keep != "" {
		for i := 0; i < t.n; i++ {
			if t.rows.Key(i) == keep {
				row = i
				break
			}
		}
	}
	if row < 0 {
		row = t.nextSelectable(0, 1)
		t.view.SetOffset(0, 0)
	} else {
		// tview follows the end of a table that was once shorter than
		// its box (a filter left few rows); as the rows grow back the
		// kept selection must stay in view, not the end.
		r, c := t.view.GetOffset()
		t.view.SetOffset(r, c)
	}
	if row >= 0 {
		t.view.Select(row+1, 0)
	} else {
		t.view.Select(0, 0)
	}
	if t.onChange != nil {
		t.onChange()
	}
	t.selectionChanged()
}

// nextSelectable is the first row from i on, stepping by step, that can be
// selected; -1 if none.
func (t *Table) nextSelectable(i, step int) int {
	for ; i >= 0 && i < t.n; i += step {
		if t.rows.Key(i) != "" {
			return i
		}
	}
	return -1
}

// Selected returns the selected row, or -1.
func (t *Table) Selected() int {
	row, _ := t.view.GetSelection()
	if row >= 1 && row <= t.n {
		return row - 1
	}
	return -1
}

// SelectedKey returns the key of the selected row, or "" (as of the last
// selection or layout, so it is still the old row's while the source's
// data changes under the table).
func (t *Table) SelectedKey() string { return t.selKey }

// Select selects row i.
func (t *Table) Select(i int) {
	if i >= 0 && i < t.n {
		t.view.Select(i+1, 0)
	}
}

// SelectKey selects the row with key k and reports whether there is one.
func (t *Table) SelectKey(k string) bool {
	for i := 0; i < t.n; i++ {
		if t.rows.Key(i) == k {
			t.Select(i)
			return true
		}
	}
	return false
}

func (t *Table) selectionChanged() {
	t.selKey = ""
	if i := t.Selected(); i >= 0 {
		t.selKey = t.rows.Key(i)
	}
	if t.onSelect != nil {
		t.onSelect(t.Selected())
	}
	if t.frame != nil && t.frame.Current() == Page(t) {
		t.frame.updateFooter()
	}
}

// Filterable reports whether / filters this table (see NoFilter).
func (t *Table) Filterable() bool { return !t.opt.NoFilter }

// Filter implements Filterable.
func (t *Table) Filter() string { return t.q.Filter }

// SetFilter implements Filterable: the rows are laid out again, the
// selection kept when it passes.
func (t *Table) SetFilter(s string) {
	if s == t.q.Filter {
		return
	}
	t.q.Filter = s
	t.update(t.selKey)
}

// SetSort orders the rows by Sorts[i]; with RepeatReverses, the current
// order's key reverses it.
func (t *Table) SetSort(i int) {
	if i < 0 || i >= len(t.opt.Sorts) {
		return
	}
	if t.opt.RepeatReverses {
		if t.q.Sort == i {
			t.q.Reverse = !t.q.Reverse
		} else {
			t.q.Reverse = false
		}
	}
	t.q.Sort = i
	t.update(t.selKey)
}

// SetReverse chooses the direction of the order.
func (t *Table) SetReverse(on bool) {
	t.q.Reverse = on
	t.update(t.selKey)
}

// SortName is the name of the order in force ("" without Sorts).
func (t *Table) SortName() string {
	if t.q.Sort < len(t.opt.Sorts) {
		return t.opt.Sorts[t.q.Sort].Name
	}
	return ""
}

// pageKeys: each Sort's key and r, in the table's scope. Scoped, they act
// on the table shown (any table of the scope); without a scope, on this
// table wherever the frame is.
func (t *Table) pageKeys(f *Frame) []keymap.Binding {
	cur := func(fn func(*Table)) func() {
		return func() {
			if t.opt.Scope == "" {
				fn(t)
			} else if c, ok := f.Current().(*Table); ok {
				fn(c)
			}
		}
	}
	var bs []keymap.Binding
	if tr, ok := t.rows.(*Tree); ok {
		bs = append(bs, tr.treeKeys(f, t.opt.Scope)...)
	}
	for i, s := range t.opt.Sorts {
		i := i
		bs = append(bs, keymap.Bind(tcell.KeyRune, s.Key, string(s.Key), s.Help, "Sort", cur(func(c *Table) { c.SetSort(i) })).In(t.opt.Scope))
	}
	if len(t.opt.Sorts) > 0 {
		bs = append(bs, keymap.Bind(tcell.KeyRune, 'r', "r", "reverse the order", "Sort", cur(func(c *Table) { c.SetReverse(!c.q.Reverse) })).In(t.opt.Scope))
	}
	if t.detail != nil {
		help := t.opt.DetailHelp
		if help == "" {
			help = "switch the movement keys between the table and the detail pane"
		}
		bs = append(bs, keymap.Bind(tcell.KeyTab, 0, "Tab", help, "Move", cur(func(c *Table) { c.SetDetailFocus(!c.detailFocus) })).In(t.opt.Scope))
	}
	return bs
}

// SetDetail gives the table a detail pane (the view fills it from
// OnSelect). Call it before the table is registered with the frame.
func (t *Table) SetDetail(d *tview.TextView) {
	t.detail = d
	t.Flex.AddItem(d, 0, 1, false)
	t.SetDetailFocus(false)
}

// Detail returns the detail pane (nil without one).
func (t *Table) Detail() *tview.TextView { return t.detail }

// DetailFocus reports whether the movement keys scroll the detail pane.
func (t *Table) DetailFocus() bool { return t.detailFocus }

// SetDetailFocus gives the movement keys to the detail pane (on) or the
// rows; the active one's border is highlighted.
func (t *Table) SetDetailFocus(on bool) {
	if t.detail == nil {
		return
	}
	t.detailFocus = on
	pal := t.palette()
	t.view.SetBorderColor(tcell.ColorDefault)
	t.detail.SetBorderColor(tcell.ColorDefault)
	if on {
		t.detail.SetBorderColor(pal.Accent())
	} else {
		t.view.SetBorderColor(pal.Accent())
	}
}

func (t *Table) palette() style.Palette {
	if t.frame != nil {
		return t.frame.opt.Palette
	}
	return style.Palette{NoColor: true}
}

// Move moves the selection by delta rows, skipping headings, or scrolls
// the detail pane while it has the movement keys.
func (t *Table) Move(delta int) {
	if t.detailFocus && t.detail != nil {
		row, _ := t.detail.GetScrollOffset()
		t.detail.ScrollTo(max(0, row+delta), 0)
		return
	}
	if t.n == 0 {
		return
	}
	cur := max(t.Selected(), 0)
	target := min(max(cur+delta, 0), t.n-1)
	step := 1
	if delta < 0 {
		step = -1
	}
	next := t.nextSelectable(target, step)
	if next < 0 {
		next = t.nextSelectable(target, -step)
	}
	if next >= 0 {
		t.Select(next)
	}
}

// PageSize is the number of rows on screen (or the detail's height).
func (t *Table) PageSize() int {
	box := tview.Primitive(t.view)
	if t.detailFocus && t.detail != nil {
		box = t.detail
	}
	_, _, _, h := box.GetRect()
	return max(1, h-3)
}

// ScrollColumns scrolls the columns right (delta > 0) or left.
func (t *Table) ScrollColumns(delta int) {
	row, col := t.view.GetOffset()
	t.view.SetOffset(row, max(0, min(col+delta, len(t.cols)-1)))
}

// Draw lays out the detail pane beside the rows on wide screens and under
// them on narrow ones, then draws; an empty table says why.
func (t *Table) Draw(screen tcell.Screen) {
	if t.detail != nil {
		_, _, w, h := t.GetRect()
		if w < t.opt.SideBySide {
			t.SetDirection(tview.FlexRow)
			t.ResizeItem(t.view, max(4, min(max(t.n, 2)+3, h/2)), 0) // empty: room to say why
		} else {
			t.SetDirection(tview.FlexColumn)
			t.ResizeItem(t.view, 0, 1)
		}
	}
	t.Flex.Draw(screen)
	if t.fitColumns() {
		t.Flex.Draw(screen) // a column that would be cut is left out
	}
	if t.n == 0 && t.opt.Empty != "" {
		x, y, w, h := t.view.GetInnerRect()
		if h > 2 {
			tview.Print(screen, style.Escape(t.opt.Empty), x+1, y+2, w-2, tview.AlignLeft, tcell.ColorDefault)
		}
	}
}

// tableContent feeds the tview.Table from Rows, the titles first; a
// Clip column cut at the edge comes at its cut width, unless measure asks
// for its cells' own widths (fit.go).
type tableContent struct {
	tview.TableContentReadOnly
	t       *Table
	measure bool
}

func (c *tableContent) GetRowCount() int { return c.t.n + 1 }
func (c *tableContent) GetColumnCount() int {
	if c.t.shown > 0 {
		return min(c.t.shown, len(c.t.cols))
	}
	return len(c.t.cols)
}

func (c *tableContent) GetCell(row, col int) *tview.TableCell {
	t := c.t
	if col < 0 || col >= len(t.cols) || row < 0 || row > t.n {
		return nil
	}
	k := t.cols[col]
	if row == 0 {
		title := k.Title
		if k.Sort != "" && k.Sort == t.SortName() {
			if t.q.Reverse {
				title += " ▲"
			} else {
				title += " ▼"
			}
		}
		return c.clip(shape(tview.NewTableCell(title).SetSelectable(false).
			SetAttributes(tcell.AttrBold).SetTextColor(t.palette().Accent()), k), col)
	}
	cell := t.rows.Cell(row-1, col)
	if cell == nil {
		cell = tview.NewTableCell("")
	}
	if t.rows.Key(row-1) == "" {
		cell.SetSelectable(false)
	}
	return c.clip(shape(cell, k), col)
}
