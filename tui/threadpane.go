package tui

import (
	"fmt"
	"sort"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/android/procfs"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// threadColumns are the thread table's columns; descending says which
// sort largest first by default (the CPU times: the busiest thread on
// top).
var threadColumns = []struct {
	name       string
	right      bool
	descending bool
}{
	{"ID", true, false}, {"Name", false, false}, {"State", false, false}, {"CPU%", true, true},
	{"utime", true, true}, {"stime", true, true}, {"Daemon", false, false}, {"tid", true, false},
}

// Thread table columns by index.
const (
	colID = iota
	colName
	colState
	colCPU
	colUTime
	colSTime
	colDaemon
	colTID
)

// threadPane is the selected VM's live thread table: new threads marked +,
// changed states blink, dead threads stay struck through for a moment.
type threadPane struct {
	env     paneEnv
	table   *tview.Table
	rowIDs  []uint64
	filter  string
	sortCol int
	reverse bool // against the column's natural order
	width   int  // inner width the rows were cut for
}

func newThreadPane(env paneEnv) *threadPane {
	p := &threadPane{env: env}
	p.table = tview.NewTable().SetSelectable(true, false).SetFixed(1, 0)
	p.table.SetSelectedStyle(env.pal.Cursor())
	p.table.SetBorder(true).SetTitle(" Threads ")
	// Names are cut to the width the pane has when it is drawn: re-render
	// when that changed since the rows were made.
	p.table.SetDrawFunc(func(_ tcell.Screen, x, y, w, h int) (int, int, int, int) {
		if w-2 != p.width {
			p.width = w - 2
			p.render()
		}
		return x + 1, y + 1, w - 2, h - 2
	})
	p.table.SetSelectionChangedFunc(func(int, int) { env.nav.threadMoved() })
	return p
}

func (p *threadPane) Name() string            { return "threads" }
func (p *threadPane) Title() string           { return "threads" }
func (p *threadPane) Widget() tview.Primitive { return p.table }
func (p *threadPane) Frame() *tview.Box       { return p.table.Box }
func (p *threadPane) Filter() string          { return p.filter }
func (p *threadPane) SetFilter(f string)      { p.filter = f; p.render() }

func (p *threadPane) Keys() []keymap.Binding {
	const panes = "Panes"
	b := keymap.Bind
	return []keymap.Binding{
		b(tcell.KeyRune, 't', "t", "show or hide the thread pane", panes, func() { p.env.nav.toggle(paneThreads) }).As("toggle-threads"),
		b(tcell.KeyRune, 'o', "o / O", "sort threads by the next column / reverse (▲ asc, ▼ desc)", panes, p.nextSort).As("sort-next"),
		keymap.Alias(tcell.KeyRune, 'O', p.reverseSort).As("sort-reverse"),
	}
}

func (p *threadPane) Update(c Change) {
	if c&(ChangeThreads|ChangeSelection|ChangeVMs|ChangeTick) != 0 {
		p.render()
	}
}

func (p *threadPane) Move(delta int) {
	n := p.table.GetRowCount() - 1
	if n <= 0 {
		return
	}
	r, _ := p.table.GetSelection()
	p.table.Select(min(max(1, r+delta), n), 0)
}

func (p *threadPane) PageSize() int {
	_, _, _, h := p.table.GetInnerRect()
	return max(1, h-2)
}

// Activate shows the selected thread's stack.
func (p *threadPane) Activate() { p.env.nav.showStack() }

// selected returns the thread under the cursor.
func (p *threadPane) selected() (uint64, bool) {
	row, _ := p.table.GetSelection()
	if row < 1 || row-1 >= len(p.rowIDs) {
		return 0, false
	}
	return p.rowIDs[row-1], true
}

func (p *threadPane) selectionChanged() { p.table.Select(1, 0).ScrollToBeginning() }

func (p *threadPane) nextSort() {
	p.sortCol = (p.sortCol + 1) % len(threadColumns)
	p.reverse = false
	p.resorted()
}

func (p *threadPane) reverseSort() {
	p.reverse = !p.reverse
	p.resorted()
}

// resorted redraws after the order changed, from the top: rows above the
// cursor must not be hidden with nothing to say so.
func (p *threadPane) resorted() {
	p.render()
	p.table.SetOffset(0, 0)
}

// descending reports the direction the table is sorted in.
func (p *threadPane) descending() bool { return threadColumns[p.sortCol].descending != p.reverse }

type threadRow struct {
	t    monitor.Thread
	dead bool
}

func (p *threadPane) rows() []threadRow {
	m := p.env.m
	var rows []threadRow
	for _, t := range m.threads[m.sel] {
		if matchFilter(p.filter, t.Name, threadState(t), fmt.Sprint(t.ID)) {
			rows = append(rows, threadRow{t: t})
		}
	}
	for _, dt := range m.died[m.sel] {
		if matchFilter(p.filter, dt.t.Name, "died", fmt.Sprint(dt.t.ID)) {
			rows = append(rows, threadRow{t: dt.t, dead: true})
		}
	}
	// cmp orders ascending; ties fall back to the id, always ascending.
	cmp := func(a, b monitor.Thread) int {
		switch p.sortCol {
		case colName:
			return compare(a.Name, b.Name)
		case colState:
			return compare(threadState(a), threadState(b))
		case colCPU:
			return compare(cpuKey(a), cpuKey(b))
		case colUTime:
			return compare(a.UTime, b.UTime)
		case colSTime:
			return compare(a.STime, b.STime)
		case colDaemon:
			return compare(boolInt(a.Daemon), boolInt(b.Daemon))
		case colTID:
			return compare(a.SysTID, b.SysTID)
		}
		return 0
	}
	desc := p.descending()
	sort.SliceStable(rows, func(i, j int) bool {
		c := cmp(rows[i].t, rows[j].t)
		if p.sortCol == 0 || c == 0 {
			if rows[i].t.ID == rows[j].t.ID {
				return false
			}
			less := rows[i].t.ID < rows[j].t.ID
			if p.sortCol == 0 && desc {
				return !less
			}
			return less
		}
		if desc {
			return c > 0
		}
		return c < 0
	})
	return rows
}

func compare[T int | float64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cpuKey orders threads by CPU use; an unknown use sorts below 0%.
func cpuKey(t monitor.Thread) float64 {
	if !t.CPUKnown {
		return -1
	}
	return t.CPUPercent
}

// cpuLabel is the CPU% cell: blank while unknown (a thread's first
// sample, a VM that reports no CPU times).
func cpuLabel(t monitor.Thread) string {
	if !t.CPUKnown {
		return ""
	}
	return fmt.Sprintf("%.1f", t.CPUPercent)
}

// threadState is the state word shown: for a /proc thread the kernel's
// letter by its proc(5) name, else the VM's state.
func threadState(t monitor.Thread) string {
	if t.Source == monitor.SourceProc && t.ProcState != "" {
		if name := procfs.StateName(t.ProcState[0]); name != "" {
			return name
		}
		return style.Escape(t.ProcState)
	}
	return t.State
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (p *threadPane) render() {
	t, m := p.table, p.env.m
	selID, haveSel := p.selected()
	t.Clear()
	for c, col := range threadColumns {
		label := col.name
		if c == p.sortCol {
			label += map[bool]string{false: "▲", true: "▼"}[p.descending()]
		}
		align := tview.AlignLeft
		if col.right {
			align = tview.AlignRight
		}
		t.SetCell(0, c, tview.NewTableCell(label).SetSelectable(false).SetAttributes(tcell.AttrBold).SetTextColor(p.env.pal.Accent()).SetAlign(align))
	}
	vm, ok := m.selected()
	p.rowIDs = p.rowIDs[:0]
	if !ok {
		t.SetTitle(" Threads ")
		return
	}
	now := p.env.now()
	rows := p.rows()
	newRow := 1
	names := make([]string, 0, len(rows))
	for i, r := range rows {
		th := r.t
		state := threadState(th)
		stColor := p.env.pal.ThreadState(state)
		attr := tcell.AttrNone
		mark := ""
		switch {
		case r.dead:
			state, stColor, attr, mark = "died", p.env.pal.ThreadState("zombie"), tcell.AttrDim|tcell.AttrStrikeThrough, "✝"
		case now.Sub(th.Created) < newFor && !th.Created.IsZero() && now.Sub(vm.Connected) > newFor:
			mark = "+"
		}
		if !r.dead && !th.Changed.IsZero() && now.Sub(th.Changed) < blinkFor && now.Sub(vm.Connected) > blinkFor {
			attr |= tcell.AttrBold | tcell.AttrUnderline // reverse video is the cursor's
		}
		daemon := ""
		if th.Daemon {
			daemon = "daemon"
		}
		name := th.Name
		if name == "" {
			name = fmt.Sprintf("<thread %d>", th.ID)
		}
		cpu := cpuLabel(th)
		if r.dead {
			cpu = "" // a dead thread uses no CPU; its last rate would read as current
		}
		cells := []*tview.TableCell{
			tview.NewTableCell(threadIDLabel(vm, th.ID)).SetAlign(tview.AlignRight),
			tview.NewTableCell("").SetExpansion(1), // cut to fit below
			tview.NewTableCell(state).SetTextColor(stColor).SetAttributes(attr),
			tview.NewTableCell(cpu).SetAlign(tview.AlignRight),
			tview.NewTableCell(unknownIfZero(vm, th.UTime)).SetAlign(tview.AlignRight),
			tview.NewTableCell(unknownIfZero(vm, th.STime)).SetAlign(tview.AlignRight),
			tview.NewTableCell(daemon),
			tview.NewTableCell(unknownIfZero(vm, th.SysTID)).SetAlign(tview.AlignRight),
		}
		for c, cell := range cells {
			if r.dead && c != colState {
				cell.SetAttributes(tcell.AttrDim | tcell.AttrStrikeThrough)
			}
			t.SetCell(i+1, c, cell)
		}
		names = append(names, mark+name)
		p.rowIDs = append(p.rowIDs, th.ID)
		if haveSel && th.ID == selID {
			newRow = i + 1
		}
	}
	// The name takes what the other columns leave (widths by content).
	others := len(threadColumns) - 1 // the gaps between columns
	for c := range threadColumns {
		if c == colName {
			continue
		}
		w := 0
		for r := 0; r <= len(rows); r++ {
			w = max(w, tview.TaggedStringWidth(t.GetCell(r, c).Text))
		}
		others += w
	}
	nameW := max(10, p.width-others)
	for i, name := range names {
		t.GetCell(i+1, colName).SetText(style.Escape(truncate(name, nameW)))
	}
	label := safetext.Terminal(vmLabel(vm, 32))
	title := fmt.Sprintf(" Threads · %s · %d ", label, len(m.threads[m.sel]))
	if src := threadSource(vm, m.threads[m.sel]); src != "" {
		title += "· " + src + " "
	}
	if vm.TooManyThreads {
		// Said here too: the VM's error line (the status line's) may
		// carry a later problem by now.
		title += "· newer threads not shown "
	}
	if why, none := capNone(vm, monitor.FeatThreads); none && len(rows) == 0 && p.filter == "" {
		p.showReason(why)
	}
	if m.isGone(vm.Key) {
		title = fmt.Sprintf(" Threads · %s · gone; waiting for it ", label)
	}
	if p.filter != "" {
		title += "· filter " + safetext.Terminal(p.filter) + " "
	}
	t.SetTitle(fitTitle(title, p.width))
	if len(rows) > 0 {
		t.Select(newRow, 0)
	}
}

// threadSource names where the rows come from: the capability's source,
// else the rows' own.
func threadSource(vm monitor.VM, threads []monitor.Thread) string {
	if c, ok := vm.Capabilities[monitor.FeatThreads]; ok && c.Source != monitor.SourceNone {
		return sourceLabel(c.Source)
	}
	if len(threads) > 0 {
		return sourceLabel(threads[0].Source)
	}
	return ""
}

// showReason replaces the empty table with why the VM has no thread
// source, wrapped to the pane's width.
func (p *threadPane) showReason(why string) {
	p.table.Clear()
	for i, line := range wrapWords(why, max(20, p.width)) {
		p.table.SetCell(i, 0, tview.NewTableCell("[::d]"+line).SetSelectable(false))
	}
}

// threadIDLabel shows DDM's small thread ids as they are; a plain JDWP
// VM's object ids are long and mean nothing to a reader, so only their
// last digits show (the full id is in `ddmtui snapshot`).
func threadIDLabel(vm monitor.VM, id uint64) string {
	s := fmt.Sprint(id)
	if !vm.DDM && len(s) > 6 {
		return "…" + s[len(s)-5:]
	}
	return s
}

// unknownIfZero shows a DDM number as it is, and a zero from a VM that
// does not report it (plain JDWP) as "-" (unknown), not 0.
func unknownIfZero(vm monitor.VM, n int) string {
	if n == 0 && !vm.DDM {
		return "-"
	}
	return fmt.Sprint(n)
}

// CopyText is the thread under the cursor: its name and, when the stack
// pane shows it, its stack (the copy key, y).
func (p *threadPane) CopyText() (what, text string) {
	tid, ok := p.selected()
	if !ok {
		return "", ""
	}
	return p.env.nav.threadCopy(p.env.m.sel, tid)
}
