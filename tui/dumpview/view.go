package dumpview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// Options configure a View.
type Options struct {
	Title   string        // shown in the header, e.g. the file name
	Palette style.Palette // colours; style.FromEnv() honours NO_COLOR
	// Quit is called by the quit key; nil leaves q without effect (a
	// dashboard decides itself when to leave).
	Quit func()
}

// Page names.
const (
	pageDump = "dump"
	pageHelp = "help"
)

// Below this width the stack pane goes under the thread table.
const sideBySideWidth = 110

// Table columns.
var columns = []string{"TID", "SYSTID", "STATE", "CPU", "PRIO", "NAME"}

// View shows a thread dump. It is a tview.Primitive: add it to a layout,
// give it focus, and call SetDump. All key handling goes through one keymap
// table, which also generates the help.
type View struct {
	*tview.Flex
	opt      Options
	header   *tview.TextView
	procBar  *tview.TextView
	banner   *tview.TextView
	mainLine *tview.TextView
	body     *tview.Flex
	table    *tview.Table
	stack    *tview.TextView
	help     *tview.TextView
	pages    *tview.Pages
	footer   *viewer.Footer // key hints or detail, and the / prompt
	keys     *keymap.Map
	setFocus func(tview.Primitive)

	d        *threaddump.Dump
	proc     int
	analysis *threaddump.Analysis
	cycleOf  map[int]int // thread index -> index of its deadlock
	rows     []int       // thread indices in table order
	sortKey  SortKey
	reverse  bool
	filter   string

	helpShown  bool
	stackFocus bool // movement keys scroll the stack pane
	jumpNext   int  // position in the deadlock members for the next jump
}

// New returns an empty view; SetDump fills it.
func New(opt Options) *View {
	v := &View{opt: opt}
	text := func() *tview.TextView {
		return tview.NewTextView().SetDynamicColors(true).SetWrap(true).SetWordWrap(true)
	}
	v.header = text().SetWrap(false)
	v.header.SetTextColor(opt.Palette.Accent())
	v.procBar = text().SetWrap(false)
	v.banner = text()
	v.banner.SetTextColor(tcell.ColorWhite)
	v.banner.SetBackgroundColor(opt.Palette.Warning())
	if opt.Palette.NoColor {
		v.banner.SetTextStyle(tcell.StyleDefault.Reverse(true).Bold(true))
	}
	v.mainLine = text()
	v.footer = viewer.NewFooter(v.setFilter)

	v.table = tview.NewTable().SetSelectable(true, false).SetFixed(1, 0)
	v.table.SetSelectedStyle(tcell.StyleDefault.Reverse(true))
	v.table.SetBorder(true).SetTitle(" Threads ")
	v.table.SetSelectionChangedFunc(func(int, int) { v.showSelected() })
	v.stack = text().SetScrollable(true).SetWordWrap(false)
	v.stack.SetBorder(true).SetTitle(" Stack ")
	v.body = tview.NewFlex().
		AddItem(v.table, 0, 1, false).
		AddItem(v.stack, 0, 1, false)
	v.keys = v.keyTable()
	v.help = viewer.HelpView("Thread dump keys (press ? or Esc to close)", v.keys)
	v.pages = tview.NewPages().
		AddPage(pageDump, v.body, true, true).
		AddPage(pageHelp, v.help, true, false)
	v.Flex = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.header, 1, 0, false).
		AddItem(v.procBar, 0, 0, false).
		AddItem(v.banner, 0, 0, false).
		AddItem(v.mainLine, 0, 0, false).
		AddItem(v.pages, 0, 1, false).
		AddItem(v.footer, 1, 0, false)
	v.setStackFocus(false)
	v.SetDump(nil)
	return v
}

// keyTable declares every key of the view once; help is generated from it.
func (v *View) keyTable() *keymap.Map {
	nav, sorting, find, gen := "Move", "Sort", "Find", "General"
	b := keymap.Bind
	return keymap.New(append(keymap.MoveKeys(nav, "thread (or stack line)", true, v.move, v.pageSize),
		b(tcell.KeyTab, 0, "Tab", "switch the movement keys between the thread table and the stack", nav, v.toggleStackFocus),
		b(tcell.KeyRune, ']', "]", "next process in the file", nav, func() { v.switchProcess(1) }),
		b(tcell.KeyRune, '[', "[", "previous process in the file", nav, func() { v.switchProcess(-1) }),

		b(tcell.KeyRune, 'd', "d", "jump to the next thread of a deadlock", find, v.jumpToDeadlock),
		b(tcell.KeyRune, 'm', "m", "jump to the main thread", find, v.jumpToMain),
		b(tcell.KeyRune, '/', "/", "filter threads by name, state or tid (!text excludes)", find, v.startFilter).As("filter"),
		b(tcell.KeyEscape, 0, "Esc", "clear the filter (close help)", find, v.escape),

		b(tcell.KeyRune, 'o', "o", "sort in dump order", sorting, func() { v.setSort(SortDump) }),
		b(tcell.KeyRune, 'n', "n", "sort by name", sorting, func() { v.setSort(SortName) }),
		b(tcell.KeyRune, 't', "t", "sort by tid", sorting, func() { v.setSort(SortTID) }),
		b(tcell.KeyRune, 's', "s", "sort by state, blocked threads first", sorting, func() { v.setSort(SortState) }),
		b(tcell.KeyRune, 'c', "c", "sort by CPU time (utm+stm)", sorting, func() { v.setSort(SortCPU) }),
		b(tcell.KeyRune, 'r', "r", "reverse the order", sorting, v.toggleReverse),

		b(tcell.KeyRune, 'y', "y", "copy the thread and its stack to the clipboard (OSC 52)", gen, v.copyRow).As("copy"),
		b(tcell.KeyRune, '?', "?", "this help", gen, v.toggleHelp).As("help"),
		b(tcell.KeyRune, 'q', "q", "quit", gen, v.quit).As("quit"),
	)...)
}

// Keys returns the view's key table (for a dashboard's combined help).
func (v *View) Keys() *keymap.Map { return v.keys }

// InputHandler routes keys: to the filter prompt while it is open, only to
// the closing keys while help is shown, else through the key table.
func (v *View) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return v.WrapInputHandler(func(ev *tcell.EventKey, setFocus func(p tview.Primitive)) {
		v.setFocus = setFocus
		if v.footer.Prompting() {
			if h := v.footer.Input(); h != nil {
				h(ev, setFocus)
			}
			return
		}
		if v.helpShown {
			if ev.Key() == tcell.KeyEscape || (ev.Key() == tcell.KeyRune && (ev.Rune() == '?' || ev.Rune() == 'q')) {
				v.toggleHelp()
			}
			return
		}
		v.keys.Handle(ev)
	})
}

// Draw lays the view out for its size — the stack beside the table on wide
// terminals, under it on narrow ones; the banner and main-thread lines as
// tall as their wrapped text — then draws it.
func (v *View) Draw(screen tcell.Screen) {
	_, _, width, height := v.GetInnerRect()
	if width < sideBySideWidth {
		// Stacked: the table no taller than its rows, at most half the height.
		v.body.SetDirection(tview.FlexRow)
		v.body.ResizeItem(v.table, max(4, min(len(v.rows)+3, height/2)), 0)
	} else {
		v.body.SetDirection(tview.FlexColumn)
		v.body.ResizeItem(v.table, 0, 1)
	}
	v.ResizeItem(v.banner, wrappedHeight(v.banner.GetText(false), width, height/4), 0)
	v.ResizeItem(v.mainLine, wrappedHeight(v.mainLine.GetText(false), width, 3), 0)
	bar := 0
	if v.d != nil && len(v.d.Processes) > 1 {
		bar = 1
	}
	v.ResizeItem(v.procBar, bar, 0)
	v.Flex.Draw(screen)
}

// wrappedHeight is the number of lines text takes at width, at most limit
// (and at least 1 when there is text).
func wrappedHeight(text string, width, limit int) int {
	text = strings.TrimRight(text, "\n")
	if text == "" || width <= 0 {
		return 0
	}
	n := 0
	for _, para := range strings.Split(text, "\n") {
		n += max(1, len(tview.WordWrap(para, width)))
	}
	return max(1, min(n, limit))
}

// SetDump shows d (nil clears the view), starting at its first process.
func (v *View) SetDump(d *threaddump.Dump) {
	v.d = d
	v.proc = 0
	v.showProcess()
}

// Dump returns the dump shown.
func (v *View) Dump() *threaddump.Dump { return v.d }

// process returns the process shown, or nil.
func (v *View) process() *threaddump.Process {
	if v.d == nil || v.proc >= len(v.d.Processes) {
		return nil
	}
	return v.d.Processes[v.proc]
}

// SelectProcess shows the process at index i of the dump.
func (v *View) SelectProcess(i int) {
	if v.d == nil || i < 0 || i >= len(v.d.Processes) {
		return
	}
	v.proc = i
	v.showProcess()
}

func (v *View) switchProcess(delta int) {
	if v.d == nil || len(v.d.Processes) < 2 {
		return
	}
	n := len(v.d.Processes)
	v.SelectProcess(((v.proc+delta)%n + n) % n)
}

// showProcess analyses the current process and redraws everything.
func (v *View) showProcess() {
	p := v.process()
	v.analysis, v.cycleOf, v.jumpNext = nil, map[int]int{}, 0
	if p != nil {
		v.analysis = threaddump.Analyze(p)
		for ci, cycle := range v.analysis.Deadlocks {
			for _, e := range cycle {
				v.cycleOf[e.Waiter] = ci
			}
		}
	}
	v.updateProcessBar()
	v.updateBanner()
	v.updateMainLine()
	v.refreshTable(-1)
	if len(v.rows) > 0 {
		v.table.Select(1, 0)
		v.table.SetOffset(0, 0)
	}
	v.showSelected()
}

func (v *View) updateHeader() {
	parts := []string{"ddmtui anr"}
	if v.opt.Title != "" {
		parts = append(parts, style.Escape(v.opt.Title))
	}
	p := v.process()
	if p == nil {
		v.header.SetText(strings.Join(append(parts, "no process in this dump"), " │ "))
		return
	}
	order := "▼"
	if v.reverse {
		order = "▲"
	}
	parts = append(parts, fmt.Sprintf("pid %d %s", p.PID, style.Escape(p.CmdLine)))
	// What a narrow terminal must still show comes first.
	if p.Truncated {
		parts = append(parts, "[::b]TRUNCATED[::-]")
	}
	if v.d.SizeLimited {
		parts = append(parts, "[::b]only the start of the file was read[::-]")
	}
	parts = append(parts, fmt.Sprintf("sort %s %s", v.sortKey, order))
	if v.filter != "" {
		parts = append(parts, fmt.Sprintf("filter %s (%d of %d)", style.Escape(strconv.Quote(v.filter)), len(v.rows), len(p.Threads)))
	} else {
		parts = append(parts, fmt.Sprintf("%d threads", len(p.Threads)))
	}
	parts = append(parts, p.VM.String(), style.Escape(p.Date))
	v.header.SetText(strings.Join(parts, " │ "))
}

func (v *View) updateProcessBar() {
	if v.d == nil || len(v.d.Processes) < 2 {
		v.procBar.SetText("")
		return
	}
	var parts []string
	for i, p := range v.d.Processes {
		s := fmt.Sprintf("%d %s", p.PID, style.Escape(p.CmdLine))
		if i == v.proc {
			s = "[::r] " + s + " [::-]"
		}
		parts = append(parts, s)
	}
	v.procBar.SetText(fmt.Sprintf("process %d/%d ([ ]): %s", v.proc+1, len(v.d.Processes), strings.Join(parts, " │ ")))
}

// threadLabel renders `"name" (tid N)` safely for tview.
func threadLabel(t *threaddump.Thread) string {
	s := `"` + style.Escape(t.Name) + `"`
	if t.Unattached {
		return s + fmt.Sprintf(" (sysTid %d)", t.SysTID)
	}
	return s + fmt.Sprintf(" (tid %d)", t.TID)
}

func (v *View) updateBanner() {
	p := v.process()
	if p == nil || len(v.analysis.Deadlocks) == 0 {
		v.banner.SetText("")
		return
	}
	var b strings.Builder
	for ci, cycle := range v.analysis.Deadlocks {
		if ci > 0 {
			b.WriteString("\n")
		}
		b.WriteString("DEADLOCK")
		if len(v.analysis.Deadlocks) > 1 {
			fmt.Fprintf(&b, " %d/%d", ci+1, len(v.analysis.Deadlocks))
		}
		fmt.Fprintf(&b, " (%d threads, press d to jump): ", len(cycle))
		// Wait order: each owner is the next edge's waiter.
		b.WriteString(threadLabel(p.Threads[cycle[0].Waiter]))
		for i, e := range cycle {
			if i > 0 {
				b.WriteString(", which")
			}
			fmt.Fprintf(&b, " waits for %s held by %s", style.Escape(e.Lock.ObjectText()), threadLabel(p.Threads[e.Owner]))
		}
	}
	v.banner.SetText(b.String())
}

func (v *View) updateMainLine() {
	if v.analysis == nil || v.analysis.Main == nil {
		v.mainLine.SetText("")
		return
	}
	m := v.analysis.Main
	label := "[::b]main thread:[::-] "
	if m.Idle {
		label = "[::b]main thread (idle):[::-] "
	}
	v.mainLine.SetText(label + style.Escape(m.Summary) + "  (m: jump)")
}

// refreshTable recomputes the rows and cells, keeping thread keep (or the
// selected one, for keep < 0) selected when it is still listed.
func (v *View) refreshTable(keep int) {
	p := v.process()
	if keep < 0 {
		keep = v.selectedThread()
	}
	v.table.Clear()
	for c, name := range columns {
		align := tview.AlignLeft
		if c != 2 && c != 5 {
			align = tview.AlignRight
		}
		v.table.SetCell(0, c, tview.NewTableCell(name).SetSelectable(false).
			SetAttributes(tcell.AttrBold).SetTextColor(v.opt.Palette.Accent()).SetAlign(align))
	}
	v.rows = nil
	if p != nil {
		v.rows = threadRows(p, v.filter, v.sortKey, v.reverse)
	}
	row := 1
	for r, i := range v.rows {
		t := p.Threads[i]
		info := t.StateInfo()
		tid, state := strconv.Itoa(t.TID), t.State
		if t.Unattached {
			tid, state = "-", info.Name
		}
		name := style.Escape(t.Name)
		if t.Daemon {
			name += " [::d](daemon)[::-]"
		}
		nameCell := tview.NewTableCell(name).SetExpansion(1)
		if _, dead := v.cycleOf[i]; dead {
			nameCell.SetText("[::b]⚠ deadlock[::-] " + name)
		}
		cells := []*tview.TableCell{
			tview.NewTableCell(tid).SetAlign(tview.AlignRight),
			tview.NewTableCell(strconv.Itoa(t.SysTID)).SetAlign(tview.AlignRight),
			tview.NewTableCell(style.Escape(state)).SetTextColor(v.opt.Palette.ThreadState(info.Class)),
			tview.NewTableCell(strconv.Itoa(t.CPU())).SetAlign(tview.AlignRight),
			tview.NewTableCell(strconv.Itoa(t.Priority)).SetAlign(tview.AlignRight),
			nameCell,
		}
		for c, cell := range cells {
			v.table.SetCell(r+1, c, cell)
		}
		if i == keep {
			row = r + 1
		}
	}
	if len(v.rows) > 0 {
		v.table.Select(row, 0)
	}
	v.table.SetTitle(fmt.Sprintf(" Threads %d ", len(v.rows)))
	v.updateHeader()
}

// selectedThread returns the index in the process of the selected thread,
// or -1.
func (v *View) selectedThread() int {
	row, _ := v.table.GetSelection()
	if row >= 1 && row <= len(v.rows) {
		return v.rows[row-1]
	}
	return -1
}

// SelectThread selects the thread at index i of the current process,
// clearing the filter if it hides the thread.
func (v *View) SelectThread(i int) {
	p := v.process()
	if p == nil || i < 0 || i >= len(p.Threads) {
		return
	}
	if !matches(p.Threads[i], v.filter) {
		v.filter = ""
		v.footer.SetFilter("")
	}
	v.refreshTable(i)
	v.showSelected()
}

// showSelected fills the stack pane and the status line for the selected
// thread.
func (v *View) showSelected() {
	p := v.process()
	i := v.selectedThread()
	if p == nil || i < 0 {
		v.stack.SetText("")
		v.stack.SetTitle(" Stack ")
		v.setStatus("")
		return
	}
	t := p.Threads[i]
	v.stack.SetTitle(" Stack · " + style.Escape(t.Name) + " ")
	v.stack.SetText(v.stackText(p, i))
	v.stack.ScrollToBeginning()
	info := t.StateInfo()
	v.setStatus(style.Escape(info.Name) + ": " + info.Explanation)
}

func (v *View) setStatus(detail string) {
	keys := "? help  / filter  d deadlock  m main  s/c/n/t/o sort  Tab stack  q quit"
	if v.d != nil && len(v.d.Processes) > 1 {
		keys = "? help  [ ] process  / filter  d deadlock  m main  s/c/n/t/o sort  q quit"
	}
	if detail == "" {
		v.footer.SetStatus(keys)
		return
	}
	v.footer.SetStatus(detail + "  │  " + keys)
}

// colourTag returns a tview colour tag for c, or "" for the default colour
// (so NO_COLOR leaves text alone).
func colourTag(c tcell.Color) string {
	if c == tcell.ColorDefault {
		return ""
	}
	return "[" + c.String() + "]"
}

func (v *View) stackText(p *threaddump.Process, i int) string {
	t := p.Threads[i]
	pal := v.opt.Palette
	info := t.StateInfo()
	var b strings.Builder
	header := `"` + style.Escape(t.Name) + `"`
	if t.Daemon {
		header += " daemon"
	}
	header += " prio=" + strconv.Itoa(t.Priority)
	if t.Unattached {
		header += " (not attached)"
	} else {
		header += fmt.Sprintf(" tid=%d %s", t.TID, style.Escape(t.State))
	}
	for _, f := range t.HeaderFlags {
		header += " " + style.Escape(f)
	}
	fmt.Fprintf(&b, "[::b]%s[::-]\n", header)
	stateTag := colourTag(pal.ThreadState(info.Class))
	fmt.Fprintf(&b, "%s%s[-]: %s\n", stateTag, style.Escape(info.Name), info.Explanation)
	details := []string{fmt.Sprintf("sysTid=%d", t.SysTID), fmt.Sprintf("nice=%d", t.Nice)}
	for _, kv := range [][2]string{{"group", t.Group}, {"cgrp", t.Cgroup}, {"sched", t.Sched}, {"state", t.KernelState}} {
		if kv[1] != "" {
			details = append(details, kv[0]+"="+style.Escape(kv[1]))
		}
	}
	details = append(details, fmt.Sprintf("utm=%d stm=%d core=%d", t.Utime, t.Stime, t.Core))
	if t.HZ > 0 {
		details = append(details, fmt.Sprintf("(%.2fs CPU at HZ=%d)", float64(t.CPU())/float64(t.HZ), t.HZ))
	}
	if len(t.HeldMutexes) > 0 {
		details = append(details, "holds "+style.Escape(strings.Join(t.HeldMutexes, " ")))
	}
	b.WriteString("[::d]" + strings.Join(details, " ") + "[::-]\n")
	if t.Truncated {
		b.WriteString("[::b]the dump ends inside this thread[::-]\n")
	}
	if ci, ok := v.cycleOf[i]; ok {
		fmt.Fprintf(&b, "%s[::b]in deadlock %d of %d: see the banner[::-][-]\n", colourTag(pal.Warning()), ci+1, len(v.analysis.Deadlocks))
	}
	for _, e := range v.analysis.Edges {
		if e.Waiter == i && e.Owner >= 0 {
			fmt.Fprintf(&b, "waits for %s held by %s\n", style.Escape(e.Lock.ObjectText()), threadLabel(p.Threads[e.Owner]))
		}
	}
	b.WriteString("\n")
	writeLocks := func(frame int) {
		for _, l := range t.Locks {
			if l.Frame != frame {
				continue
			}
			tag := colourTag(pal.Accent())
			if l.Kind != threaddump.LockHeld {
				tag = colourTag(pal.Warning())
			}
			line := "- " + l.Kind.String() + " " + l.ObjectText()
			if l.HeldBy != 0 {
				line += " held by thread " + strconv.Itoa(l.HeldBy)
				if owner := p.Thread(l.HeldBy); owner != nil {
					line += " (" + owner.Name + ")"
				} else if l.HeldByName != "" {
					line += " (" + l.HeldByName + ")"
				}
			}
			fmt.Fprintf(&b, "  %s%s[-]\n", tag, style.Escape(line))
		}
	}
	writeLocks(-1)
	for fi, f := range t.Frames {
		switch f.Kind {
		case threaddump.FrameJava:
			fmt.Fprintf(&b, "  at %s\n", style.Escape(f.String()))
		case threaddump.FrameNative:
			fmt.Fprintf(&b, "  [::d]native: %s[::-]\n", style.Escape(f.String()))
		case threaddump.FrameKernel:
			fmt.Fprintf(&b, "  [::d]kernel: %s[::-]\n", style.Escape(f.Text))
		default:
			fmt.Fprintf(&b, "  [::d]%s[::-]\n", style.Escape(f.Text))
		}
		writeLocks(fi)
	}
	if len(t.Unknown) > 0 {
		b.WriteString("\n[::d]lines not understood:[::-]\n")
		for _, l := range t.Unknown {
			fmt.Fprintf(&b, "  [::d]%d: %s[::-]\n", l.No, style.Escape(l.Text))
		}
	}
	return b.String()
}

// move moves the table selection, or scrolls the stack pane.
func (v *View) move(delta int) {
	if v.stackFocus {
		row, _ := v.stack.GetScrollOffset()
		v.stack.ScrollTo(max(0, row+delta), 0)
		return
	}
	if len(v.rows) == 0 {
		return
	}
	row, _ := v.table.GetSelection()
	v.table.Select(min(max(row+delta, 1), len(v.rows)), 0)
}

func (v *View) pageSize() int {
	box := tview.Primitive(v.table)
	if v.stackFocus {
		box = v.stack
	}
	_, _, _, h := box.GetRect()
	return max(1, h-3)
}

func (v *View) toggleStackFocus() { v.setStackFocus(!v.stackFocus) }

// setStackFocus makes the movement keys scroll the stack pane (on) or move
// through the table (off); the active pane's border is highlighted.
func (v *View) setStackFocus(on bool) {
	v.stackFocus = on
	v.table.SetBorderColor(tcell.ColorDefault)
	v.stack.SetBorderColor(tcell.ColorDefault)
	if v.stackFocus {
		v.stack.SetBorderColor(v.opt.Palette.Accent())
	} else {
		v.table.SetBorderColor(v.opt.Palette.Accent())
	}
}

func (v *View) setSort(k SortKey) {
	v.sortKey = k
	v.refreshTable(-1)
	v.showSelected()
}

func (v *View) toggleReverse() {
	v.reverse = !v.reverse
	v.refreshTable(-1)
	v.showSelected()
}

func (v *View) setFilter(s string) {
	v.filter = s
	v.refreshTable(-1)
	v.showSelected()
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

// jumpToDeadlock selects the next deadlocked thread: the members of each
// cycle in wait order, cycle after cycle.
func (v *View) jumpToDeadlock() {
	if v.analysis == nil {
		return
	}
	var members []int
	for _, cycle := range v.analysis.Deadlocks {
		for _, e := range cycle {
			members = append(members, e.Waiter)
		}
	}
	if len(members) == 0 {
		return
	}
	v.setStackFocus(false)
	v.SelectThread(members[v.jumpNext%len(members)])
	v.jumpNext++
}

func (v *View) jumpToMain() {
	if v.analysis != nil && v.analysis.Main != nil {
		v.SelectThread(v.analysis.Main.Thread)
	}
}

func (v *View) toggleHelp() {
	v.helpShown = !v.helpShown
	if v.helpShown {
		v.pages.SwitchToPage(pageHelp)
	} else {
		v.pages.SwitchToPage(pageDump)
	}
}

func (v *View) quit() {
	if v.opt.Quit != nil {
		v.opt.Quit()
	}
}
