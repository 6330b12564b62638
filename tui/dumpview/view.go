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

// RunOptions configure Run.
type RunOptions = viewer.RunOptions

// Below this width the stack pane goes under the thread table.
const sideBySideWidth = 110

// View shows a thread dump on the viewer base: the thread table with the
// selected thread's stack as its detail pane, and above them the process
// selector, the deadlock banner and the main thread's line. It is a
// tview.Primitive: add it to a layout, give it focus, and call SetDump.
type View struct {
	*viewer.Frame
	opt      Options
	procBar  *tview.TextView
	banner   *tview.TextView
	mainLine *tview.TextView
	tbl      *viewer.Table
	table    *tview.Table // the rows' widget
	stack    *tview.TextView

	d        *threaddump.Dump
	proc     int
	analysis *threaddump.Analysis
	cycleOf  map[int]int // thread index -> index of its deadlock
	rows     []int       // thread indices in table order
	jumpNext int         // position in the deadlock members for the next jump
}

// New returns an empty view; SetDump fills it.
func New(opt Options) *View {
	v := &View{opt: opt}
	v.Frame = viewer.NewFrame(viewer.FrameOptions{
		Palette: opt.Palette, HelpTitle: "Thread dump keys", Item: "thread (or stack line)", Quit: opt.Quit,
		FilterHelp: "filter threads by name, state or tid (!text excludes)",
		Copy:       v.CopyText, CopyHelp: "copy the thread and its stack to the clipboard (OSC 52)",
	})
	text := func() *tview.TextView {
		return tview.NewTextView().SetDynamicColors(true).SetWrap(true).SetWordWrap(true)
	}
	v.procBar = text().SetWrap(false)
	v.banner = text()
	v.banner.SetTextColor(tcell.ColorDefault) // the terminal's own, light or dark, on the warning colour
	v.banner.SetBackgroundColor(opt.Palette.Warning())
	if opt.Palette.NoColor {
		v.banner.SetTextStyle(tcell.StyleDefault.Reverse(true).Bold(true))
	}
	v.mainLine = text()
	v.AddBar(v.procBar, 0)
	v.AddBar(v.banner, 0)
	v.AddBar(v.mainLine, 0)

	sorts := []viewer.Sort{
		{Key: 'o', Name: SortDump.String(), Help: "sort in dump order"},
		{Key: 'n', Name: SortName.String(), Help: "sort by name"},
		{Key: 't', Name: SortTID.String(), Help: "sort by tid"},
		{Key: 's', Name: SortState.String(), Help: "sort by state, blocked threads first"},
		{Key: 'c', Name: SortCPU.String(), Help: "sort by CPU time (utm+stm)"},
	}
	v.tbl = viewer.NewTable(&threadList{v: v}, viewer.TableOptions{Title: "Threads", Sorts: sorts,
		SideBySide: sideBySideWidth, DetailHelp: "switch the movement keys between the thread table and the stack"})
	v.table = v.tbl.Widget()
	v.table.SetBorder(true).SetTitle(" Threads ")
	v.stack = text().SetScrollable(true) // wraps between words (sta│te=S was cut mid-word)
	v.stack.SetBorder(true).SetTitle(" Stack ")
	v.tbl.SetDetail(v.stack)
	v.tbl.OnSelect(func(int) { v.showSelected() })
	v.tbl.OnChange(func() {
		v.table.SetTitle(fmt.Sprintf(" Threads %d ", len(v.rows)))
		v.updateHeader()
	})
	v.AddTab(v.tbl)

	nav, find, b := "Move", "Find", keymap.Bind
	v.AddKeys(
		b(tcell.KeyRune, ']', "]", "next process in the file", nav, func() { v.switchProcess(1) }),
		b(tcell.KeyRune, '[', "[", "previous process in the file", nav, func() { v.switchProcess(-1) }),
		b(tcell.KeyRune, 'd', "d", "jump to the next thread of a deadlock", find, v.jumpToDeadlock),
		b(tcell.KeyRune, 'm', "m", "jump to the main thread", find, v.jumpToMain),
	)
	v.SetDump(nil)
	return v
}

// NewShell returns the shell Run runs: a View showing d full screen,
// quitting on q and Ctrl-C.
func NewShell(d *threaddump.Dump, opt RunOptions) (*viewer.Shell, *View) {
	return viewer.NewRun(opt, func(h viewer.Host) *View {
		v := New(Options{Title: h.Title, Palette: h.Palette, Quit: h.Quit})
		v.SetDump(d)
		return v
	})
}

// Run shows d full screen until the user quits.
func Run(d *threaddump.Dump, opt RunOptions) error {
	sh, _ := NewShell(d, opt)
	return sh.Run()
}

// Draw sizes the banner and main-thread lines to their wrapped text and
// shows the process selector for a file of several processes, then draws.
func (v *View) Draw(screen tcell.Screen) {
	_, _, width, height := v.GetInnerRect()
	v.ResizeItem(v.banner, wrappedHeight(v.banner.GetText(false), width, height/4), 0)
	v.ResizeItem(v.mainLine, wrappedHeight(v.mainLine.GetText(false), width, 3), 0)
	bar := 0
	if v.d != nil && len(v.d.Processes) > 1 {
		bar = 1
	}
	v.ResizeItem(v.procBar, bar, 0)
	v.Frame.Draw(screen)
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

// Filter returns the thread filter in force.
func (v *View) Filter() string { return v.tbl.Filter() }

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
	v.tbl.Reset()
	v.showSelected()
}

func (v *View) updateHeader() {
	parts := []string{"ddmtui anr"}
	if v.opt.Title != "" {
		parts = append(parts, style.Escape(v.opt.Title))
	}
	p := v.process()
	if p == nil {
		v.SetHeader(strings.Join(append(parts, "no process in this dump"), " │ "))
		return
	}
	q := v.tbl.Query()
	order := "▼"
	if q.Reverse {
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
	parts = append(parts, fmt.Sprintf("sort %s %s", SortKey(q.Sort), order))
	if q.Filter != "" {
		parts = append(parts, fmt.Sprintf("filter %s (%d of %d)", style.Escape(strconv.Quote(q.Filter)), len(v.rows), len(p.Threads)))
	} else {
		parts = append(parts, fmt.Sprintf("%d threads", len(p.Threads)))
	}
	parts = append(parts, p.VM.String(), style.Escape(p.Date))
	v.SetHeader(strings.Join(parts, " │ "))
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
	v.procBar.SetText(fmt.Sprintf("process %d/%d (%s): %s", v.proc+1, len(v.d.Processes), style.EscapeTags("[ ]"), strings.Join(parts, " │ ")))
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

// selectedThread returns the index in the process of the selected thread,
// or -1.
func (v *View) selectedThread() int {
	if i := v.tbl.Selected(); i >= 0 && i < len(v.rows) {
		return v.rows[i]
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
	if !matches(p.Threads[i], v.tbl.Filter()) {
		v.tbl.SetFilter("")
	}
	v.tbl.SelectKey(strconv.Itoa(i))
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
	v.setStatus(style.Escape(info.Name) + ": " + style.Escape(info.Explanation))
}

func (v *View) setStatus(detail string) {
	keys := "? help  / filter  d deadlock  m main  s/c/n/t/o sort  Tab stack  " + v.QuitHint()
	if v.d != nil && len(v.d.Processes) > 1 {
		keys = "? help  [ ] process  / filter  d deadlock  m main  s/c/n/t/o sort  " + v.QuitHint()
	}
	v.SetHints(keys)
	v.SetStatus(detail)
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
	v.tbl.SetDetailFocus(false)
	v.SelectThread(members[v.jumpNext%len(members)])
	v.jumpNext++
}

func (v *View) jumpToMain() {
	if v.analysis != nil && v.analysis.Main != nil {
		v.SelectThread(v.analysis.Main.Thread)
	}
}

// threadList is the thread table's rows: the current process's threads,
// filtered and sorted.
type threadList struct{ v *View }

// The thread table's columns, in the order they take the table's width:
// the name comes right after the tid, so that on a terminal narrower than
// every column (a dashboard pane at 120 columns) the threads can still be
// told apart; SYSTID goes first when there is no room (issue 38 #3).
const (
	colTID = iota
	colName
	colState
	colCPU
	colPrio
	colSysTID
)

var columns = []viewer.Column{
	colTID:    {Title: "TID", Align: tview.AlignRight},
	colName:   {Title: "NAME", MaxWidth: nameWidth},
	colState:  {Title: "STATE"},
	colCPU:    {Title: "CPU", Align: tview.AlignRight},
	colPrio:   {Title: "PRIO", Align: tview.AlignRight},
	colSysTID: {Title: "SYSTID", Align: tview.AlignRight, Expand: 1},
}

// nameWidth bounds the NAME column, so that a long name leaves the state
// room in a 58-column pane; the stack pane's title shows it whole.
const nameWidth = 28

func (tl *threadList) Columns() []viewer.Column { return columns }

func (tl *threadList) Update(q viewer.Query) int {
	v := tl.v
	v.rows = nil
	if p := v.process(); p != nil {
		v.rows = threadRows(p, q.Filter, SortKey(q.Sort), q.Reverse)
	}
	return len(v.rows)
}

func (tl *threadList) Key(i int) string { return strconv.Itoa(tl.v.rows[i]) }

func (tl *threadList) Cell(r, c int) *tview.TableCell {
	v := tl.v
	i := v.rows[r]
	t := v.process().Threads[i]
	info := t.StateInfo()
	switch c {
	case colTID:
		if t.Unattached {
			return tview.NewTableCell("-")
		}
		return tview.NewTableCell(strconv.Itoa(t.TID))
	case colSysTID:
		return tview.NewTableCell(strconv.Itoa(t.SysTID))
	case colState:
		state := t.State
		if t.Unattached {
			state = info.Name
		}
		return tview.NewTableCell(style.Escape(state)).SetTextColor(v.opt.Palette.ThreadState(info.Class))
	case colCPU:
		return tview.NewTableCell(strconv.Itoa(t.CPU()))
	case colPrio:
		return tview.NewTableCell(strconv.Itoa(t.Priority))
	}
	name := style.Escape(t.Name)
	if t.Daemon {
		name += " [::d](daemon)[::-]"
	}
	if _, dead := v.cycleOf[i]; dead {
		name = "[::b]⚠[::-] " + name
	}
	return tview.NewTableCell(name)
}
