package profileview

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// methodNameWidth bounds the method column so the numbers stay on screen.
const methodNameWidth = 56

// methodList is the method table's rows: cells are made when drawn, so a
// trace with a hundred thousand methods costs nothing until scrolled to.
type methodList struct {
	v    *View
	rows []int32 // methods in display order
}

func (ml *methodList) clocks() []trace.Clock {
	if ml.v.p == nil {
		return nil
	}
	if _, c, ok := ml.v.rangeGraph(); ok {
		return []trace.Clock{c} // a range has only its clock
	}
	return ml.v.p.Clocks.List()
}

// Columns marks the time columns of the sorting clock only.
func (ml *methodList) Columns() []viewer.Column {
	if ml.v.p == nil {
		return nil
	}
	right := tview.AlignRight
	cols := []viewer.Column{
		{Title: "Method", Sort: SortName.String(), MaxWidth: methodNameWidth, Expand: 1},
		{Title: "Calls", Sort: SortCalls.String(), Align: right},
	}
	for _, c := range ml.clocks() {
		incl, excl := "", ""
		if _, mc := ml.v.methodGraph(); c == mc {
			incl, excl = SortInclusive.String(), SortExclusive.String()
		}
		cols = append(cols,
			viewer.Column{Title: "Incl " + clockLabel(c) + " ms", Sort: incl, Align: right},
			viewer.Column{Title: "%", Align: right},
			viewer.Column{Title: "Excl " + clockLabel(c) + " ms", Sort: excl, Align: right},
			viewer.Column{Title: "%", Align: right})
	}
	return cols
}

func (ml *methodList) Update(q viewer.Query) int {
	v := ml.v
	if v.p == nil {
		ml.rows = nil
		return 0
	}
	g, c := v.methodGraph()
	ml.rows = methodRows(v.p, g, q.Filter, SortKey(q.Sort), c, q.Reverse)
	return len(ml.rows)
}

func (ml *methodList) Key(i int) string { return strconv.Itoa(int(ml.rows[i])) }

func (ml *methodList) Cell(i, col int) *tview.TableCell {
	v := ml.v
	m := ml.rows[i]
	g, _ := v.methodGraph()
	s := g.Stats(m)
	switch col {
	case 0:
		return tview.NewTableCell(style.Escape(v.p.Name(m)))
	case 1:
		return tview.NewTableCell(callsText(s))
	}
	k := col - 2
	c := ml.clocks()[k/4]
	total := g.Total()[c]
	switch k % 4 {
	case 0:
		return tview.NewTableCell(millis(s.Inclusive[c]))
	case 1:
		return tview.NewTableCell(percent(s.Inclusive[c], total))
	case 2:
		return tview.NewTableCell(millis(s.Exclusive[c]))
	}
	return tview.NewTableCell(percent(s.Exclusive[c], total))
}

// callRow is one row of a calls page: its cells and the method it names
// (-1 for a heading or the self row).
type callRow struct {
	cells  []*tview.TableCell
	method int32
}

// callList is a calls page's rows, like Traceview's profile panel: the
// callers (with the calls and time they account for), the method itself
// with its exclusive time, then the callees. They are built for the clock
// in force at every Refresh.
type callList struct {
	v    *View
	m    int32
	rows []callRow
	self int // row of the method itself
}

// callsOf returns the calls page's rows when t is a calls page.
func callsOf(t *viewer.Table) *callList {
	if t == nil {
		return nil
	}
	cl, _ := t.Rows().(*callList)
	return cl
}

func (cl *callList) method(i int) int32 {
	if i < 0 || i >= len(cl.rows) {
		return -1
	}
	return cl.rows[i].method
}

func (cl *callList) Columns() []viewer.Column {
	right := tview.AlignRight
	return []viewer.Column{{}, {Title: "Calls", Align: right}, {Title: "Incl " + clockLabel(cl.v.clock) + " ms", Align: right},
		{Title: "% of method", Align: right}, {Title: "Method"}}
}

func (cl *callList) Key(i int) string {
	if cl.rows[i].method < 0 {
		return ""
	}
	return strconv.Itoa(i) + ":" + strconv.Itoa(int(cl.rows[i].method))
}

func (cl *callList) Cell(i, c int) *tview.TableCell {
	if c < len(cl.rows[i].cells) {
		return cl.rows[i].cells[c]
	}
	return nil
}

func (cl *callList) Update(viewer.Query) int {
	v, m := cl.v, cl.m
	g, c := v.graph(), v.clock
	s := g.Stats(m)
	cl.rows = cl.rows[:0]
	add := func(method int32, cells ...*tview.TableCell) { cl.rows = append(cl.rows, callRow{cells, method}) }
	heading := func(text string) { add(-1, bold(text)) }
	edgeRow := func(e trace.Edge, other int32, otherCalls int64) {
		add(other, tview.NewTableCell("  "),
			tview.NewTableCell(strconv.FormatInt(e.Calls, 10)+"/"+strconv.FormatInt(otherCalls, 10)),
			tview.NewTableCell(millis(e.Inclusive[c])),
			tview.NewTableCell(percent(e.Inclusive[c], s.Inclusive[c])),
			tview.NewTableCell(style.Escape(v.p.Name(other))))
	}
	callers := edgeRows(v.p, g.Callers(m), func(e trace.Edge) int32 { return e.Caller }, c)
	heading("Callers (" + strconv.Itoa(len(callers)) + ")")
	for _, e := range callers {
		edgeRow(e, e.Caller, s.Calls)
	}
	cl.self = len(cl.rows)
	add(m, bold("▶"), bold(callsText(s)), bold(millis(s.Inclusive[c])), bold(percent(s.Inclusive[c], g.Total()[c])+" of all"),
		bold(style.Escape(v.p.Name(m)+" "+v.p.Methods[m].Signature)))
	add(-1, tview.NewTableCell("  "), tview.NewTableCell(""),
		tview.NewTableCell(millis(s.Exclusive[c])), tview.NewTableCell(percent(s.Exclusive[c], s.Inclusive[c])),
		tview.NewTableCell("(self: exclusive time)"))
	callees := edgeRows(v.p, g.Callees(m), func(e trace.Edge) int32 { return e.Callee }, c)
	heading("Callees (" + strconv.Itoa(len(callees)) + ")")
	for _, e := range callees {
		edgeRow(e, e.Callee, g.Stats(e.Callee).Calls)
	}
	return len(cl.rows)
}

func bold(text string) *tview.TableCell {
	return tview.NewTableCell(text).SetAttributes(tcell.AttrBold)
}

// showCalls pushes the callers and callees of method m, the first callee
// selected (else the method's own row).
func (v *View) showCalls(m int32) {
	if v.p == nil || m < 0 || int(m) >= len(v.p.Methods) {
		return
	}
	cl := &callList{v: v, m: m}
	t := viewer.NewTable(cl, viewer.TableOptions{Title: v.p.Name(m), Scope: scopeCalls, NoFilter: true})
	t.OnSelect(func(int) { v.updateStatus() })
	sel := cl.self
	if cl.self+3 < len(cl.rows) {
		sel = cl.self + 3 // the first callee
	}
	t.Select(sel)
	v.Push(t)
	v.updateStatus()
}

// threadList is the per-thread summary: records and traced time on each
// clock, with the share of all threads; "All threads" first.
type threadList struct{ v *View }

func (tl *threadList) Columns() []viewer.Column {
	right := tview.AlignRight
	cols := []viewer.Column{{Title: "Thread"}, {Title: "Records", Align: right}}
	for _, c := range tl.v.p.Clocks.List() {
		cols = append(cols, viewer.Column{Title: clockLabel(c) + " ms", Align: right}, viewer.Column{Title: "%", Align: right})
	}
	return cols
}

func (tl *threadList) Update(viewer.Query) int { return len(tl.v.p.Threads) + 1 }

func (tl *threadList) Key(i int) string { return strconv.Itoa(i) }

func (tl *threadList) Cell(i, col int) *tview.TableCell {
	p := tl.v.p
	name, records, total := "All threads", p.Records, p.All.Total()
	if i > 0 {
		tp := &p.Threads[i-1]
		name, records, total = style.Escape(threadName(tp)), tp.Records, tp.Total()
	}
	switch col {
	case 0:
		return tview.NewTableCell(name)
	case 1:
		return tview.NewTableCell(strconv.FormatInt(records, 10))
	}
	c := p.Clocks.List()[(col-2)/2]
	if (col-2)%2 == 0 {
		return tview.NewTableCell(millis(total[c]))
	}
	return tview.NewTableCell(percent(total[c], p.All.Total()[c]))
}

// showThreads pushes the per-thread summary; Enter on a row filters the
// method table by it.
func (v *View) showThreads() {
	if v.p == nil {
		return
	}
	v.PopToRoot()
	t := viewer.NewTable(&threadList{v: v}, viewer.TableOptions{Title: "Threads", Scope: scopeThreads, NoFilter: true})
	t.Select(v.thread + 1)
	v.Push(t)
}
