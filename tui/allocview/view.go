// Package allocview is the terminal pane of the allocation tracker: a VM's
// recent allocations (allocs.Table, from DDM REAL) grouped by class (the
// default), by allocation site, by whole stack or by thread, or listed one by
// one; sortable; filtered with `/` (`!` inverts); Enter shows the stacks of
// the selected row's allocations. A header tells whether the VM is tracking
// and how many allocations and bytes are shown.
//
// View is a tview.Primitive that fits into a larger layout (the dashboard
// embeds it); Run shows a table full screen, optionally refreshing it and
// turning tracking on and off through callbacks. Every string from the VM
// goes through safetext before it reaches tview. Keys are declared once in
// a tui/keymap table, which also generates the help.
package allocview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// Options configure a View.
type Options struct {
	Title   string        // shown in the header, e.g. the app name
	Palette style.Palette // colours; style.FromEnv() honours NO_COLOR
	// Quit is called by q; nil leaves q without effect (an embedding
	// decides itself when to leave).
	Quit func()
	// Refresh, when set, is called by R: the embedding fetches the table
	// again (off the UI goroutine) and hands it to SetTable.
	Refresh func()
	// Track, when set, is called by t with the state wanted: the embedding
	// asks the VM (REAE) and reports the outcome with SetTracking.
	Track func(on bool)
}

// Page names.
const (
	pageTable  = "table"
	pageStacks = "stacks"
	pageHelp   = "help"
)

// maxStacksShown bounds the stacks listed for one row.
const maxStacksShown = 200

// View shows an allocation table.
type View struct {
	*tview.Flex
	opt      Options
	header   *tview.TextView
	pages    *tview.Pages
	table    *tview.Table
	stacks   *tview.TextView
	help     *tview.TextView
	footer   *viewer.Footer // key hints or the message, and the / prompt
	keys     *keymap.Map
	setFocus func(tview.Primitive)

	tab           *allocs.Table
	tracking      bool
	trackingKnown bool
	message       string
	by            allocs.GroupBy
	sortKey       allocs.SortKey
	reverse       bool
	filter        string

	rows   []int          // entries passing the filter; sorted in Flat
	groups []allocs.Group // sorted groups, unless Flat
	bytes  uint64         // total size of rows

	helpShown   bool
	stacksShown bool
}

// New returns an empty view; SetTable fills it.
func New(opt Options) *View {
	v := &View{opt: opt}
	v.header = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	v.header.SetTextColor(opt.Palette.Accent())
	v.footer = viewer.NewFooter(v.applyFilter).DynamicColors()

	v.table = tview.NewTable().SetSelectable(true, false).SetFixed(1, 0)
	v.table.SetContent(&content{v: v})
	v.table.SetSelectedStyle(tcell.StyleDefault.Reverse(true))
	v.table.SetBorder(true).SetBorderColor(opt.Palette.Accent())
	v.stacks = tview.NewTextView().SetDynamicColors(true).SetScrollable(true).SetWrap(false)
	v.stacks.SetBorder(true).SetBorderColor(opt.Palette.Accent())
	v.help = tview.NewTextView().SetDynamicColors(false).SetWrap(false)
	v.pages = tview.NewPages().
		AddPage(pageTable, v.table, true, true).
		AddPage(pageStacks, v.stacks, true, false).
		AddPage(pageHelp, v.help, true, false)
	v.Flex = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.header, 1, 0, false).
		AddItem(v.pages, 0, 1, false).
		AddItem(v.footer, 1, 0, false)
	v.keys = v.keyTable()
	v.help.SetText("Allocation tracker keys (press ? or Esc to close; arrows scroll)\n\n" + v.keys.HelpText())
	v.SetTable(nil)
	return v
}

// keyTable declares every key of the view once; help is generated from it.
func (v *View) keyTable() *keymap.Map {
	nav, view, sorting, find, tracker, gen := "Move", "View", "Sort", "Find", "Tracker", "General"
	b := keymap.Bind
	m := keymap.New(append(keymap.MoveKeys(nav, "row (or stack line)", false, v.move, v.pageSize),

		b(tcell.KeyEnter, 0, "Enter", "show the stacks of the selected row's allocations (Enter or Esc: back)", view, v.toggleStacks),
		b(tcell.KeyRune, 'g', "g", "group by class → site → stack → thread → none", view, v.cycleGrouping),

		b(tcell.KeyRune, 'c', "c", "sort by number of allocations", sorting, func() { v.setSort(allocs.SortCount) }),
		b(tcell.KeyRune, 'b', "b", "sort by bytes (size when not grouped)", sorting, func() { v.setSort(allocs.SortBytes) }),
		b(tcell.KeyRune, 'm', "m", "sort by mean size", sorting, func() { v.setSort(allocs.SortMean) }),
		b(tcell.KeyRune, 'n', "n", "sort by name (class when not grouped)", sorting, func() { v.setSort(allocs.SortName) }),
		b(tcell.KeyRune, 's', "s", "sort by allocation site", sorting, func() { v.setSort(allocs.SortSite) }),
		b(tcell.KeyRune, 'o', "o", "sort by allocation order, newest first", sorting, func() { v.setSort(allocs.SortOrder) }),
		b(tcell.KeyRune, 'r', "r", "reverse the order", sorting, v.toggleReverse),

		b(tcell.KeyRune, '/', "/", "filter by class, method or file (!text excludes; tid=N)", find, v.startFilter).As("filter"),
		b(tcell.KeyEscape, 0, "Esc", "clear the filter", find, v.escape),
	)...)
	if v.opt.Track != nil {
		m.Add(b(tcell.KeyRune, 't', "t", "turn allocation tracking on / off", tracker, v.toggleTracking))
	}
	if v.opt.Refresh != nil {
		m.Add(b(tcell.KeyRune, 'R', "R", "fetch the recent allocations again", tracker, v.opt.Refresh))
	}
	m.Add(
		b(tcell.KeyRune, 'y', "y", "copy the allocation site to the clipboard (OSC 52)", gen, v.copyRow).As("copy"),
		b(tcell.KeyRune, '?', "?", "this help", gen, v.toggleHelp).As("help"),
		b(tcell.KeyRune, 'q', "q", "quit", gen, v.quit).As("quit"),
	)
	return m
}

// Keys returns the view's key table (for an embedding's combined help).
func (v *View) Keys() *keymap.Map { return v.keys }

// InputHandler routes keys: to the filter prompt while it is open, to the
// closing and scrolling keys while help or the stacks are shown, else
// through the key table.
func (v *View) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return v.WrapInputHandler(func(ev *tcell.EventKey, setFocus func(p tview.Primitive)) {
		v.setFocus = setFocus
		switch {
		case v.footer.Prompting():
			if h := v.footer.Input(); h != nil {
				h(ev, setFocus)
			}
		case v.helpShown:
			switch {
			case ev.Key() == tcell.KeyEscape || (ev.Key() == tcell.KeyRune && (ev.Rune() == '?' || ev.Rune() == 'q')):
				v.toggleHelp()
			case ev.Key() == tcell.KeyRune && ev.Rune() == 'j':
				v.help.InputHandler()(tcell.NewEventKey(tcell.KeyDown, 0, 0), setFocus)
			case ev.Key() == tcell.KeyRune && ev.Rune() == 'k':
				v.help.InputHandler()(tcell.NewEventKey(tcell.KeyUp, 0, 0), setFocus)
			case ev.Key() != tcell.KeyRune:
				v.help.InputHandler()(ev, setFocus) // arrows, pages, Home, End scroll
			}
		case v.stacksShown && (ev.Key() == tcell.KeyEscape || ev.Key() == tcell.KeyEnter || ev.Key() == tcell.KeyBackspace ||
			ev.Key() == tcell.KeyBackspace2 || (ev.Key() == tcell.KeyRune && ev.Rune() == 'q')):
			v.toggleStacks()
		default:
			v.keys.Handle(ev)
		}
	})
}

// SetTable shows t (nil shows an empty table), keeping the grouping, sort,
// filter and, when it is still listed, the selected row.
func (v *View) SetTable(t *allocs.Table) {
	if t == nil {
		t = allocs.New(nil, allocs.NewestFirst)
	}
	keep := v.selectedKey()
	v.tab = t
	v.refresh(keep)
	if v.stacksShown {
		v.showStacks()
	}
}

// Table returns the table shown.
func (v *View) Table() *allocs.Table { return v.tab }

// SetTracking records whether the VM is tracking allocations, for the
// header.
func (v *View) SetTracking(on bool) {
	v.tracking, v.trackingKnown = on, true
	v.updateHeader()
	v.updateStatus()
}

// Tracking reports the tracking state last set and whether it is known.
func (v *View) Tracking() (on, known bool) { return v.tracking, v.trackingKnown }

// SetMessage shows msg (an error, "fetching…") on the status line; ""
// clears it.
func (v *View) SetMessage(msg string) {
	v.message = msg
	v.updateStatus()
}

// SetGrouping chooses the grouping.
func (v *View) SetGrouping(by allocs.GroupBy) {
	v.by = by
	v.refresh("")
}

// Grouping returns the grouping shown.
func (v *View) Grouping() allocs.GroupBy { return v.by }

// SetSort chooses the order of the rows.
func (v *View) SetSort(key allocs.SortKey, reverse bool) {
	v.sortKey, v.reverse = key, reverse
	v.refresh(v.selectedKey())
}

// SetFilter filters the allocations (see allocs.Table.Filter).
func (v *View) SetFilter(s string) {
	v.footer.SetFilter(s) // calls applyFilter
	v.applyFilter(s)
}

// Filter returns the filter in effect.
func (v *View) Filter() string { return v.filter }

// refresh recomputes the rows and keeps the row with key selected when it
// is still listed (else the first row).
func (v *View) refresh(keep string) {
	v.rows = v.tab.Filter(v.filter)
	_, v.bytes = v.tab.Sum(v.rows)
	v.groups = nil
	if v.by == allocs.Flat {
		v.tab.SortEntries(v.rows, v.sortKey, v.reverse)
	} else {
		v.groups = v.tab.Groups(v.by, v.rows)
		allocs.SortGroups(v.groups, v.sortKey, v.reverse)
	}
	row := 1
	if keep != "" {
		for i := range v.items() {
			if v.itemKey(i) == keep {
				row = i + 1
				break
			}
		}
	}
	v.table.Select(row, 0)
	if row == 1 {
		v.table.SetOffset(0, 0)
	}
	v.table.SetTitle(fmt.Sprintf(" Allocations by %s: %d ", v.by, v.items()))
	if v.by == allocs.Flat {
		v.table.SetTitle(fmt.Sprintf(" Allocations: %d ", v.items()))
	}
	v.updateHeader()
	v.updateStatus()
}

// items is the number of table rows below the header.
func (v *View) items() int {
	if v.by == allocs.Flat {
		return len(v.rows)
	}
	return len(v.groups)
}

// itemKey identifies row i across refreshes.
func (v *View) itemKey(i int) string {
	if v.by == allocs.Flat {
		return "#" + strconv.Itoa(v.tab.Entries[v.rows[i]].Index)
	}
	return v.groups[i].Key
}

// selected returns the index of the selected row among the items, or -1.
func (v *View) selected() int {
	row, _ := v.table.GetSelection()
	if row >= 1 && row <= v.items() {
		return row - 1
	}
	return -1
}

func (v *View) selectedKey() string {
	if v.tab == nil {
		return ""
	}
	if i := v.selected(); i >= 0 {
		return v.itemKey(i)
	}
	return ""
}

// Selected returns the group of the selected row (nil when none or not
// grouped) and the entry positions it covers.
func (v *View) Selected() (*allocs.Group, []int) {
	i := v.selected()
	switch {
	case i < 0:
		return nil, nil
	case v.by == allocs.Flat:
		return nil, []int{v.rows[i]}
	}
	return &v.groups[i], v.groups[i].Entries
}

func (v *View) updateHeader() {
	parts := []string{"ddmtui allocs"}
	if v.opt.Title != "" {
		parts = append(parts, style.Escape(v.opt.Title))
	}
	switch {
	case !v.trackingKnown:
		parts = append(parts, "tracking ?")
	case v.tracking:
		parts = append(parts, "[::b]tracking on[::-]")
	default:
		parts = append(parts, "tracking off")
	}
	total := v.tab.Len()
	if v.filter != "" {
		parts = append(parts, fmt.Sprintf("filter %s: %d of %d allocations, %s", style.Escape(strconv.Quote(v.filter)),
			len(v.rows), total, humanBytes(v.bytes)))
	} else {
		parts = append(parts, fmt.Sprintf("%d allocations, %s", total, humanBytes(v.bytes)))
	}
	if v.by == allocs.Flat {
		parts = append(parts, "not grouped")
	} else {
		parts = append(parts, fmt.Sprintf("by %s: %d", v.by, len(v.groups)))
	}
	s := "sort " + v.sortKey.String()
	if v.reverse {
		s += ", reversed"
	}
	parts = append(parts, s, "VM sent "+v.tab.Order.String())
	v.header.SetText(strings.Join(parts, " │ "))
}

func (v *View) updateStatus() {
	keys := "? help  Enter stacks  g group  c/b/m/n/s/o sort  r reverse  / filter"
	if v.opt.Track != nil {
		keys += "  t tracking"
	}
	if v.opt.Refresh != nil {
		keys += "  R refresh"
	}
	if v.opt.Quit != nil {
		keys += "  q quit"
	}
	if v.stacksShown {
		keys = "j/k scroll  Enter/Esc back"
	}
	msg := v.message
	if msg == "" && v.tab.Len() == 0 {
		switch {
		case v.trackingKnown && !v.tracking && v.opt.Track != nil:
			msg = "tracking is off: t turns it on"
		case v.trackingKnown && !v.tracking:
			msg = "tracking is off"
		default:
			msg = "no allocations recorded"
		}
	}
	if msg == "" {
		v.footer.SetStatus(keys)
		return
	}
	v.footer.SetStatus(style.Escape(msg) + "  │  " + keys)
}

// humanBytes renders n as "512 B", "1.5 KiB", "12.0 MiB".
func humanBytes(n uint64) string {
	if n < 1024 {
		return strconv.FormatUint(n, 10) + " B"
	}
	f, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB"} {
		if f < 1024 {
			break
		}
		f, unit = f/1024, u
	}
	return fmt.Sprintf("%.1f %s", f, unit)
}

// formatMean renders a mean size with one decimal.
func formatMean(m float64) string { return strconv.FormatFloat(m, 'f', 1, 64) }

// content is the table's rows, built as tview draws them.
type content struct {
	tview.TableContentReadOnly
	v *View
}

// columns returns the column titles for the grouping.
func (v *View) columns() []string {
	switch v.by {
	case allocs.ByClass:
		return []string{"COUNT", "BYTES", "MEAN", "%", "CLASS", "TOP SITE"}
	case allocs.BySite:
		return []string{"COUNT", "BYTES", "MEAN", "%", "SITE", "TOP CLASS"}
	case allocs.ByStack:
		return []string{"COUNT", "BYTES", "MEAN", "%", "STACK", "TOP CLASS"}
	case allocs.ByThread:
		return []string{"COUNT", "BYTES", "MEAN", "%", "THREAD", "TOP CLASS"}
	}
	return []string{"#", "SIZE", "TID", "CLASS", "SITE"}
}

func (c *content) GetRowCount() int    { return c.v.items() + 1 }
func (c *content) GetColumnCount() int { return len(c.v.columns()) }

func (c *content) GetCell(row, col int) *tview.TableCell {
	v := c.v
	cols := v.columns()
	if col < 0 || col >= len(cols) || row < 0 || row > v.items() {
		return nil
	}
	numeric := col < 3 || (col == 3 && v.by != allocs.Flat)
	align := tview.AlignLeft
	if numeric {
		align = tview.AlignRight
	}
	if row == 0 {
		return tview.NewTableCell(cols[col]).SetSelectable(false).SetAlign(align).
			SetAttributes(tcell.AttrBold).SetTextColor(v.opt.Palette.Accent())
	}
	var text string
	if v.by == allocs.Flat {
		e := &v.tab.Entries[v.rows[row-1]]
		switch col {
		case 0:
			text = strconv.Itoa(e.Index)
		case 1:
			text = strconv.FormatUint(uint64(e.Size), 10)
		case 2:
			text = strconv.Itoa(int(e.ThreadID))
		case 3:
			text = style.Escape(e.Class)
		case 4:
			text = style.Escape(v.tab.Site(v.rows[row-1]))
		}
	} else {
		g := &v.groups[row-1]
		switch col {
		case 0:
			text = strconv.Itoa(g.Count)
		case 1:
			text = strconv.FormatUint(g.Bytes, 10)
		case 2:
			text = formatMean(g.Mean())
		case 3:
			text = "0.0"
			if v.bytes > 0 {
				text = strconv.FormatFloat(100*float64(g.Bytes)/float64(v.bytes), 'f', 1, 64)
			}
		case 4:
			text = groupLabel(g)
		case 5:
			if v.by == allocs.ByClass {
				text = style.Escape(g.Site)
			} else {
				text = style.Escape(g.Class)
			}
		}
	}
	cell := tview.NewTableCell(text).SetAlign(align)
	if !numeric {
		cell.SetMaxWidth(80)
	}
	return cell
}

// groupLabel is the text of a group's key column.
func groupLabel(g *allocs.Group) string {
	switch g.By {
	case allocs.ByStack:
		s := style.Escape(g.Site)
		if n := len(g.Frames); n > 1 {
			s += " [::d](+" + plural(n-1, "frame") + ")[::-]"
		}
		return s
	case allocs.ByThread:
		return "tid " + strconv.Itoa(int(g.ThreadID))
	}
	return style.Escape(g.Key)
}

// toggleStacks shows or hides the stacks of the selected row.
func (v *View) toggleStacks() {
	if v.stacksShown {
		v.stacksShown = false
		v.pages.SwitchToPage(pageTable)
		v.updateStatus()
		return
	}
	if v.selected() < 0 {
		return
	}
	v.stacksShown = true
	v.showStacks()
	v.pages.SwitchToPage(pageStacks)
	v.updateStatus()
}

// showStacks fills the stacks page for the selected row.
func (v *View) showStacks() {
	g, rows := v.Selected()
	if rows == nil {
		v.stacks.SetTitle(" Stacks ")
		v.stacks.SetText("the selected row is gone")
		return
	}
	var b strings.Builder
	if g == nil {
		e := &v.tab.Entries[rows[0]]
		v.stacks.SetTitle(fmt.Sprintf(" Allocation #%d ", e.Index))
		fmt.Fprintf(&b, "[::b]#%d %s[::-], %d bytes, thread %d\n\n", e.Index, style.Escape(e.Class), e.Size, e.ThreadID)
		writeStack(&b, e.Frames)
	} else {
		label := groupLabel(g)
		if g.By == allocs.ByStack {
			label = style.Escape(g.Site)
		}
		v.stacks.SetTitle(" Stacks · " + label + " ")
		sts := v.tab.StacksOf(rows)
		fmt.Fprintf(&b, "[::b]%s[::-]: %s, %d bytes, mean %s; %s\n",
			label, plural(g.Count, "allocation"), g.Bytes, formatMean(g.Mean()), plural(len(sts), "distinct stack"))
		for i, st := range sts {
			if i == maxStacksShown {
				fmt.Fprintf(&b, "\n… %s more (filter to narrow)\n", plural(len(sts)-i, "stack"))
				break
			}
			fmt.Fprintf(&b, "\n[::b]%s, %d bytes[::-]\n", plural(st.Count, "allocation"), st.Bytes)
			writeStack(&b, st.Frames)
		}
	}
	v.stacks.SetText(b.String())
	v.stacks.ScrollToBeginning()
}

// writeStack writes frames one a line, innermost first.
func writeStack(b *strings.Builder, frames []allocs.Frame) {
	if len(frames) == 0 {
		b.WriteString("  " + allocs.NoSite + "\n")
	}
	for _, f := range frames {
		b.WriteString("  at " + style.Escape(f.String()) + "\n")
	}
}

// plural renders "1 stack", "2 stacks".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// move moves the selection, or scrolls the stacks.
func (v *View) move(delta int) {
	if v.stacksShown {
		row, _ := v.stacks.GetScrollOffset()
		v.stacks.ScrollTo(max(0, row+delta), 0)
		return
	}
	if v.items() == 0 {
		return
	}
	row, _ := v.table.GetSelection()
	v.table.Select(min(max(row+delta, 1), v.items()), 0)
}

func (v *View) pageSize() int {
	_, _, _, h := v.table.GetInnerRect()
	return max(1, h-2)
}

func (v *View) cycleGrouping() {
	for i, g := range allocs.Groupings {
		if g == v.by {
			v.by = allocs.Groupings[(i+1)%len(allocs.Groupings)]
			break
		}
	}
	v.refresh("")
}

func (v *View) setSort(k allocs.SortKey) {
	v.sortKey = k
	v.refresh(v.selectedKey())
}

func (v *View) toggleReverse() {
	v.reverse = !v.reverse
	v.refresh(v.selectedKey())
}

func (v *View) applyFilter(s string) {
	if s == v.filter {
		return
	}
	keep := v.selectedKey()
	v.filter = s
	v.refresh(keep)
}

func (v *View) startFilter() {
	v.footer.Ask(v.filter, func() {
		if v.setFocus != nil {
			v.setFocus(v)
		}
	})
	if v.setFocus != nil {
		v.setFocus(v.footer.Field())
	}
}

func (v *View) escape() {
	if v.filter != "" {
		v.footer.SetFilter("")
	}
}

func (v *View) toggleTracking() {
	if v.opt.Track != nil {
		v.opt.Track(!v.tracking)
	}
}

func (v *View) toggleHelp() {
	v.helpShown = !v.helpShown
	switch {
	case v.helpShown:
		v.pages.SwitchToPage(pageHelp)
	case v.stacksShown:
		v.pages.SwitchToPage(pageStacks)
	default:
		v.pages.SwitchToPage(pageTable)
	}
}

func (v *View) quit() {
	if v.opt.Quit != nil {
		v.opt.Quit()
	}
}
