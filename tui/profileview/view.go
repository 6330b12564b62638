package profileview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// Page names.
const (
	pageMethods = "methods"
	pageCalls   = "calls"
	pageThreads = "threads"
	pageHelp    = "help"
	pageEmpty   = "empty"
)

// Options configure a View.
type Options struct {
	Title   string        // shown in the header, e.g. the file name
	Palette style.Palette // colours; style.FromEnv() honours NO_COLOR
	// Quit is called by the quit key; nil leaves q unbound in effect (a
	// dashboard decides itself when to leave).
	Quit func()
}

// View shows a trace profile. It is a tview.Primitive: add it to a layout,
// give it focus, and call SetProfile whenever a profile is ready. All key
// handling goes through one keymap table, which also generates the help.
type View struct {
	*tview.Flex
	header  *tview.TextView
	pages   *tview.Pages
	methods *tview.Table
	calls   *tview.Table
	threads *tview.Table
	help    *tview.TextView
	empty   *tview.TextView
	footer  *viewer.Footer // key hints or the method's detail, and the / prompt

	keys     *keymap.Map
	opt      Options
	setFocus func(tview.Primitive)

	p       *trace.Profile
	thread  int // index in p.Threads, -1 for all threads
	clock   trace.Clock
	sortKey SortKey
	reverse bool
	filter  string
	rows    []int32 // methods in the table, in display order

	page     string
	helpFrom string
	current  int32   // method of the calls page
	history  []int32 // drill-down trail
	callRows []int32 // method per calls-table row; -1 for headings
}

// New returns an empty view; SetProfile fills it.
func New(opt Options) *View {
	v := &View{opt: opt, thread: -1, current: -1}
	pal := opt.Palette
	v.header = tview.NewTextView().SetDynamicColors(false).SetWrap(false)
	v.header.SetTextColor(pal.Accent())
	v.footer = viewer.NewFooter(func(text string) {
		v.filter = text
		v.refreshMethods(-1)
	})

	v.methods = tview.NewTable().SetSelectable(true, false).SetFixed(1, 1)
	mt := &methodTable{v: v}
	v.methods.SetContent(mt)
	v.methods.SetDrawFunc(func(_ tcell.Screen, x, y, w, h int) (int, int, int, int) {
		mt.fit() // runs before the table draws its cells
		return x, y, w, h
	})
	v.calls = tview.NewTable().SetSelectable(true, false).SetFixed(1, 0)
	v.threads = tview.NewTable().SetSelectable(true, false).SetFixed(1, 0)
	v.keys = v.keyTable()
	v.help = viewer.HelpView("Method profile keys", v.keys)
	v.empty = tview.NewTextView().SetText("no profile loaded")
	for _, t := range []*tview.Table{v.methods, v.calls, v.threads} {
		t.SetSelectedStyle(tcell.StyleDefault.Reverse(true))
		t.SetSelectionChangedFunc(func(int, int) { v.updateStatus() })
	}

	v.pages = tview.NewPages().
		AddPage(pageEmpty, v.empty, true, true).
		AddPage(pageMethods, v.methods, true, false).
		AddPage(pageCalls, v.calls, true, false).
		AddPage(pageThreads, v.threads, true, false).
		AddPage(pageHelp, v.help, true, false)
	v.page = pageEmpty
	v.Flex = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.header, 1, 0, false).
		AddItem(v.pages, 0, 1, false).
		AddItem(v.footer, 1, 0, false)
	return v
}

// keyTable declares every key of the view once; help is generated from it.
func (v *View) keyTable() *keymap.Map {
	nav, sort, view, gen := "Move", "Sort", "View", "General"
	b, hidden := keymap.Bind, keymap.Alias
	return keymap.New(append(keymap.MoveKeys(nav, "row", true, v.move, v.pageSize),
		b(tcell.KeyRune, 'h', "h/←", "scroll columns left", nav, func() { v.scrollColumns(-1) }),
		hidden(tcell.KeyLeft, 0, func() { v.scrollColumns(-1) }),
		b(tcell.KeyRune, 'l', "l/→", "scroll columns right", nav, func() { v.scrollColumns(1) }),
		hidden(tcell.KeyRight, 0, func() { v.scrollColumns(1) }),
		b(tcell.KeyEnter, 0, "Enter", "callers and callees of the method; choose the thread", nav, v.enter),
		b(tcell.KeyBackspace2, 0, "Backspace/Esc", "back (clears the filter on the method table)", nav, v.back),
		hidden(tcell.KeyBackspace, 0, v.back),
		hidden(tcell.KeyEscape, 0, v.back),

		b(tcell.KeyRune, 'i', "i", "sort by inclusive time", sort, func() { v.setSort(SortInclusive) }),
		b(tcell.KeyRune, 'e', "e", "sort by exclusive time", sort, func() { v.setSort(SortExclusive) }),
		b(tcell.KeyRune, 'c', "c", "sort by calls", sort, func() { v.setSort(SortCalls) }),
		b(tcell.KeyRune, 'n', "n", "sort by name", sort, func() { v.setSort(SortName) }),
		b(tcell.KeyRune, 'r', "r", "reverse the order", sort, v.toggleReverse),
		b(tcell.KeyRune, 'w', "w", "switch the clock used to sort (thread CPU / wall)", sort, v.toggleClock),

		b(tcell.KeyRune, '/', "/", "filter methods by substring", view, v.startFilter).As("filter"),
		b(tcell.KeyRune, 't', "t", "threads: per-thread summary, Enter filters by thread", view, v.showThreads),
		b(tcell.KeyRune, 'a', "a", "all threads (clear the thread filter)", view, func() { v.setThread(-1) }),

		b(tcell.KeyRune, 'y', "y", "copy the method's signature to the clipboard (OSC 52)", gen, v.copyRow).As("copy"),
		b(tcell.KeyRune, '?', "?", "this help", gen, v.toggleHelp).As("help"),
		b(tcell.KeyRune, 'q', "q", "quit", gen, v.quitView).As("quit"),
	)...)
}

// Keys returns the view's key table (for a dashboard's combined help).
func (v *View) Keys() *keymap.Map { return v.keys }

// InputHandler routes keys: to the filter prompt while it is open, else
// through the key table.
func (v *View) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return v.WrapInputHandler(func(ev *tcell.EventKey, setFocus func(p tview.Primitive)) {
		v.setFocus = setFocus
		if v.footer.Prompting() {
			if h := v.footer.Input(); h != nil {
				h(ev, setFocus)
			}
			return
		}
		v.keys.Handle(ev)
	})
}

// SetProfile shows p (nil clears the view). Sorting, clock and the filter
// are kept; the thread filter and drill-down are reset.
func (v *View) SetProfile(p *trace.Profile) {
	v.p = p
	v.thread = -1
	v.history = nil
	v.current = -1
	if p == nil {
		v.switchTo(pageEmpty)
		v.updateHeader()
		return
	}
	if !p.Clocks.Has(v.clock) {
		v.clock = p.Clocks.First()
	}
	v.refreshMethods(-1)
	v.methods.Select(1, 0)
	v.methods.SetOffset(0, 0)
	v.switchTo(pageMethods)
}

// Profile returns the profile shown.
func (v *View) Profile() *trace.Profile { return v.p }

func (v *View) graph() *trace.Graph {
	if v.p == nil {
		return nil
	}
	if v.thread >= 0 && v.thread < len(v.p.Threads) {
		return &v.p.Threads[v.thread].Graph
	}
	return &v.p.All
}

func (v *View) switchTo(page string) {
	v.page = page
	v.pages.SwitchToPage(page)
	v.updateHeader()
	v.updateStatus()
}

func (v *View) activeTable() *tview.Table {
	switch v.page {
	case pageMethods:
		return v.methods
	case pageCalls:
		return v.calls
	case pageThreads:
		return v.threads
	}
	return nil
}

// refreshMethods recomputes the rows, keeping method keep (or the selected
// one, for keep < 0) selected when it is still listed.
func (v *View) refreshMethods(keep int32) {
	if v.p == nil {
		return
	}
	if keep < 0 {
		keep = v.selectedMethod()
	}
	v.rows = methodRows(v.p, v.graph(), v.filter, v.sortKey, v.clock, v.reverse)
	row := 1
	for i, m := range v.rows {
		if m == keep {
			row = i + 1
			break
		}
	}
	v.methods.Select(row, 0)
	v.updateHeader()
	v.updateStatus()
}

func (v *View) selectedMethod() int32 {
	if v.p == nil {
		return -1
	}
	switch v.page {
	case pageMethods:
		row, _ := v.methods.GetSelection()
		if row >= 1 && row <= len(v.rows) {
			return v.rows[row-1]
		}
	case pageCalls:
		row, _ := v.calls.GetSelection()
		if row >= 0 && row < len(v.callRows) {
			return v.callRows[row]
		}
	}
	return -1
}

// SetTitle names what the view shows (e.g. the saved file's name).
func (v *View) SetTitle(title string) {
	v.opt.Title = title
	v.updateHeader()
}

func (v *View) updateHeader() {
	if v.p == nil {
		v.header.SetText("ddmtui trace  " + safetext.Terminal(v.opt.Title))
		return
	}
	p := v.p
	// View state first (what a narrow terminal must show), facts after.
	parts := []string{safetext.Terminal(v.opt.Title)}
	if v.thread >= 0 {
		parts = append(parts, "thread "+threadName(&p.Threads[v.thread]))
	} else {
		parts = append(parts, "all threads")
	}
	order := "▼"
	if v.reverse {
		order = "▲"
	}
	parts = append(parts, fmt.Sprintf("sort %s %s %s", v.sortKey, clockLabel(v.clock), order))
	if v.filter != "" {
		parts = append(parts, fmt.Sprintf("filter %q (%d)", safetext.Terminal(v.filter), len(v.rows)))
	}
	total := v.graph().Total()
	for _, c := range p.Clocks.List() {
		parts = append(parts, fmt.Sprintf("%s %s ms", clockLabel(c), millis(total[c])))
	}
	parts = append(parts, fmt.Sprintf("v%d %s, %d records", p.Header.Version, p.Clocks, p.Records))
	if w := p.Warnings.Total(); w > 0 {
		parts = append(parts, fmt.Sprintf("%d warnings", w))
	}
	var b strings.Builder
	b.WriteString(strings.Join(parts, " │ "))
	v.header.SetText(b.String())
}

func threadName(tp *trace.ThreadProfile) string {
	id := strconv.FormatUint(uint64(tp.ID), 10)
	if tp.Name == "" {
		return id
	}
	return safetext.Terminal(tp.Name) + " (" + id + ")"
}

func (v *View) updateStatus() {
	if v.footer.Prompting() {
		return
	}
	text := "? help  / filter  Enter callers/callees  t threads  i/e/c/n sort  q quit"
	if m := v.selectedMethod(); m >= 0 && v.p != nil {
		meth := &v.p.Methods[m]
		text = safetext.Terminal(v.p.Name(m) + " " + meth.Signature)
		if meth.File != "" {
			text += "  (" + safetext.Terminal(meth.File) + ")"
		}
		if m >= 2 {
			text += fmt.Sprintf("  id %#x", meth.ID)
		}
		text += "  │  ? help  / filter  q quit"
	}
	if v.page == pageHelp {
		text = "Esc or ? closes the help"
	}
	v.footer.SetStatus(text)
}

// move changes the selected row by delta, skipping heading rows.
func (v *View) move(delta int) {
	if v.page == pageHelp {
		row, col := v.help.GetScrollOffset()
		v.help.ScrollTo(max(0, row+max(-1<<20, min(delta, 1<<20))), col)
		return
	}
	t := v.activeTable()
	if t == nil {
		return
	}
	n := t.GetRowCount()
	if n <= 1 {
		return
	}
	row, _ := t.GetSelection()
	target := min(max(row+delta, 1), n-1)
	step := 1
	if delta < 0 {
		step = -1
	}
	// Skip headings, in the direction of travel, then back if at an end.
	for target >= 1 && target < n && !selectable(t, target) {
		target += step
	}
	if target < 1 || target >= n {
		target = row
	}
	t.Select(target, 0)
}

func selectable(t *tview.Table, row int) bool {
	c := t.GetCell(row, 0)
	return c != nil && !c.NotSelectable
}

func (v *View) pageSize() int {
	_, _, _, h := v.pages.GetInnerRect()
	return max(1, h-2)
}

func (v *View) scrollColumns(delta int) {
	t := v.activeTable()
	if t == nil {
		return
	}
	row, col := t.GetOffset()
	t.SetOffset(row, max(0, min(col+delta, t.GetColumnCount()-1)))
}

func (v *View) enter() {
	switch v.page {
	case pageMethods, pageCalls:
		if m := v.selectedMethod(); m >= 0 {
			if v.page == pageCalls && m == v.current {
				return
			}
			if v.page == pageCalls {
				v.history = append(v.history, v.current)
			}
			v.showCalls(m)
		}
	case pageThreads:
		row, _ := v.threads.GetSelection()
		v.setThread(row - 2) // row 1 is "all threads"
	}
}

func (v *View) back() {
	switch v.page {
	case pageHelp:
		v.toggleHelp()
	case pageCalls:
		if n := len(v.history); n > 0 {
			m := v.history[n-1]
			v.history = v.history[:n-1]
			v.showCalls(m)
			return
		}
		keep := v.current
		v.current = -1
		v.switchTo(pageMethods)
		v.refreshMethods(keep)
	case pageThreads:
		v.switchTo(pageMethods)
	case pageMethods:
		if v.filter != "" {
			v.footer.SetFilter("") // clears the filter
		}
	}
}

func (v *View) setSort(k SortKey) {
	if v.sortKey == k {
		v.reverse = !v.reverse
	} else {
		v.sortKey, v.reverse = k, false
	}
	v.resort()
}

func (v *View) toggleReverse() {
	v.reverse = !v.reverse
	v.resort()
}

func (v *View) toggleClock() {
	if v.p == nil || v.p.Clocks != trace.Dual {
		return
	}
	v.clock = 1 - v.clock
	v.resort()
}

func (v *View) resort() {
	if v.p == nil {
		return
	}
	v.refreshMethods(-1)
	if v.page == pageCalls {
		v.showCalls(v.current)
	}
}

func (v *View) startFilter() {
	if v.p == nil {
		return
	}
	if v.page != pageMethods {
		v.history, v.current = nil, -1
		v.switchTo(pageMethods)
	}
	v.footer.Ask(v.filter, func() {
		if v.setFocus != nil {
			v.setFocus(v)
		}
		v.refreshMethods(-1)
	})
	if v.setFocus != nil {
		v.setFocus(v.footer.Field())
	}
}

func (v *View) setThread(i int) {
	if v.p == nil || i >= len(v.p.Threads) {
		return
	}
	if i < -1 {
		i = -1
	}
	v.thread = i
	v.history, v.current = nil, -1
	v.switchTo(pageMethods)
	v.refreshMethods(-1)
}

func (v *View) toggleHelp() {
	if v.page == pageHelp {
		v.switchTo(v.helpFrom)
		return
	}
	v.helpFrom = v.page
	v.switchTo(pageHelp)
}

func (v *View) quitView() {
	if v.opt.Quit != nil {
		v.opt.Quit()
	}
}
