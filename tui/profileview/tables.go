package profileview

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
)

// methodNameWidth bounds the method column so the numbers stay on screen.
const methodNameWidth = 56

// methodTable is the virtual content of the method table: cells are made
// when drawn, so a trace with a hundred thousand methods costs nothing
// until scrolled to.
type methodTable struct {
	tview.TableContentReadOnly
	v *View
}

func (mt *methodTable) clocks() []trace.Clock {
	if mt.v.p == nil {
		return nil
	}
	return mt.v.p.Clocks.List()
}

func (mt *methodTable) GetRowCount() int { return len(mt.v.rows) + 1 }

func (mt *methodTable) GetColumnCount() int { return 2 + 4*len(mt.clocks()) }

func (mt *methodTable) GetCell(row, col int) *tview.TableCell {
	v := mt.v
	if v.p == nil {
		return nil
	}
	clocks := mt.clocks()
	if row == 0 {
		return headerCell(mt.headerText(col, clocks), col > 0)
	}
	if row-1 >= len(v.rows) {
		return nil
	}
	m := v.rows[row-1]
	s := v.graph().Stats(m)
	if col == 0 {
		return tview.NewTableCell(style.Escape(v.p.Name(m))).SetMaxWidth(methodNameWidth).SetExpansion(1)
	}
	if col == 1 {
		return numberCell(callsText(s))
	}
	k := col - 2
	c := clocks[k/4]
	total := v.graph().Total()[c]
	switch k % 4 {
	case 0:
		return numberCell(millis(s.Inclusive[c]))
	case 1:
		return numberCell(percent(s.Inclusive[c], total))
	case 2:
		return numberCell(millis(s.Exclusive[c]))
	default:
		return numberCell(percent(s.Exclusive[c], total))
	}
}

func (mt *methodTable) headerText(col int, clocks []trace.Clock) string {
	v := mt.v
	mark := func(text string, key SortKey, c trace.Clock, isTime bool) string {
		if v.sortKey != key || (isTime && c != v.clock) {
			return text
		}
		if v.reverse {
			return text + " ▲"
		}
		return text + " ▼"
	}
	switch {
	case col == 0:
		return mark("Method", SortName, 0, false)
	case col == 1:
		return mark("Calls", SortCalls, 0, false)
	}
	k := col - 2
	c := clocks[k/4]
	switch k % 4 {
	case 0:
		return mark("Incl "+clockLabel(c)+" ms", SortInclusive, c, true)
	case 1:
		return "%"
	case 2:
		return mark("Excl "+clockLabel(c)+" ms", SortExclusive, c, true)
	}
	return "%"
}

func headerCell(text string, right bool) *tview.TableCell {
	c := tview.NewTableCell(text).SetSelectable(false).SetAttributes(tcell.AttrBold)
	if right {
		c.SetAlign(tview.AlignRight)
	}
	return c
}

func numberCell(text string) *tview.TableCell {
	return tview.NewTableCell(text).SetAlign(tview.AlignRight)
}

func labelCell(text string) *tview.TableCell {
	return tview.NewTableCell(text).SetSelectable(false).SetAttributes(tcell.AttrBold)
}

// showCalls fills the drill-down page for method m, like Traceview's
// profile panel: the callers (with the calls and time they account for),
// the method itself with its exclusive time, then the callees.
func (v *View) showCalls(m int32) {
	if v.p == nil || m < 0 || int(m) >= len(v.p.Methods) {
		return
	}
	v.current = m
	g := v.graph()
	c := v.clock
	s := g.Stats(m)
	t := v.calls
	t.Clear()
	v.callRows = v.callRows[:0]
	for col, h := range []string{"", "Calls", "Incl " + clockLabel(c) + " ms", "% of method", "Method"} {
		t.SetCell(0, col, headerCell(h, col > 0 && col < 4))
	}
	v.callRows = append(v.callRows, -1)
	row := 1
	add := func(cells []*tview.TableCell, method int32) {
		for col, cell := range cells {
			t.SetCell(row, col, cell)
		}
		v.callRows = append(v.callRows, method)
		row++
	}
	heading := func(text string) {
		add([]*tview.TableCell{labelCell(text), labelCell(""), labelCell(""), labelCell(""), labelCell("")}, -1)
	}
	edgeRow := func(e trace.Edge, other int32, otherCalls int64) {
		add([]*tview.TableCell{
			tview.NewTableCell("  "),
			numberCell(strconv.FormatInt(e.Calls, 10) + "/" + strconv.FormatInt(otherCalls, 10)),
			numberCell(millis(e.Inclusive[c])),
			numberCell(percent(e.Inclusive[c], s.Inclusive[c])),
			tview.NewTableCell(style.Escape(v.p.Name(other))),
		}, other)
	}
	callers := edgeRows(v.p, g.Callers(m), func(e trace.Edge) int32 { return e.Caller }, c)
	heading("Callers (" + strconv.Itoa(len(callers)) + ")")
	for _, e := range callers {
		edgeRow(e, e.Caller, s.Calls)
	}
	self := row
	add([]*tview.TableCell{
		tview.NewTableCell("▶").SetAttributes(tcell.AttrBold),
		numberCell(callsText(s)).SetAttributes(tcell.AttrBold),
		numberCell(millis(s.Inclusive[c])).SetAttributes(tcell.AttrBold),
		numberCell(percent(s.Inclusive[c], g.Total()[c]) + " of all").SetAttributes(tcell.AttrBold),
		tview.NewTableCell(style.Escape(v.p.Name(m) + " " + v.p.Methods[m].Signature)).SetAttributes(tcell.AttrBold),
	}, m)
	add([]*tview.TableCell{
		tview.NewTableCell("  "), tview.NewTableCell(""),
		numberCell(millis(s.Exclusive[c])), numberCell(percent(s.Exclusive[c], s.Inclusive[c])),
		tview.NewTableCell("(self: exclusive time)"),
	}, -1)
	t.GetCell(row-1, 0).SetSelectable(false)
	callees := edgeRows(v.p, g.Callees(m), func(e trace.Edge) int32 { return e.Callee }, c)
	heading("Callees (" + strconv.Itoa(len(callees)) + ")")
	for _, e := range callees {
		edgeRow(e, e.Callee, g.Stats(e.Callee).Calls)
	}
	// Select the first callee when there is one, else the method row.
	sel := self
	if len(callees) > 0 {
		sel = self + 3
	}
	t.Select(sel, 0)
	t.SetOffset(0, 0)
	v.switchTo(pageCalls)
}

// showThreads fills the per-thread summary: records and traced time on each
// clock, with the share of all threads; Enter on a row filters by it.
func (v *View) showThreads() {
	if v.p == nil {
		return
	}
	t := v.threads
	t.Clear()
	clocks := v.p.Clocks.List()
	head := []string{"Thread", "Records"}
	for _, c := range clocks {
		head = append(head, clockLabel(c)+" ms", "%")
	}
	for col, h := range head {
		t.SetCell(0, col, headerCell(h, col > 0))
	}
	all := v.p.All.Total()
	addRow := func(row int, name string, records int64, total [2]uint64) {
		t.SetCell(row, 0, tview.NewTableCell(name))
		t.SetCell(row, 1, numberCell(strconv.FormatInt(records, 10)))
		for k, c := range clocks {
			t.SetCell(row, 2+2*k, numberCell(millis(total[c])))
			t.SetCell(row, 3+2*k, numberCell(percent(total[c], all[c])))
		}
	}
	addRow(1, "All threads", v.p.Records, all)
	for i := range v.p.Threads {
		tp := &v.p.Threads[i]
		addRow(i+2, style.Escape(threadName(tp)), tp.Records, tp.Total())
	}
	t.Select(v.thread+2, 0)
	t.SetOffset(0, 0)
	v.switchTo(pageThreads)
}
