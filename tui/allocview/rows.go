package allocview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// maxStacksShown bounds the stacks listed for one row.
const maxStacksShown = 200

// allocRows is the table's rows: the groups of the grouping in force, or
// the entries one by one, filtered and sorted; cells are made as drawn.
type allocRows struct{ v *View }

// Columns returns the column titles for the grouping.
func (ar *allocRows) Columns() []viewer.Column {
	// The key column is bounded and the last one is cut to the width
	// left rather than left out: with class names of 50 columns or more
	// the dashboard's table dropped TOP SITE once data arrived.
	r := tview.AlignRight
	text := func(t string) viewer.Column { return viewer.Column{Title: t, MaxWidth: keyWidth} }
	last := func(t string) viewer.Column { return viewer.Column{Title: t, MaxWidth: 80, Clip: true} }
	num := func(t string) viewer.Column { return viewer.Column{Title: t, Align: r} }
	lead := []viewer.Column{num("COUNT"), num("BYTES"), num("MEAN"), num("%")}
	switch ar.v.by {
	case allocs.ByClass:
		return append(lead, text("CLASS"), last("TOP SITE"))
	case allocs.BySite:
		return append(lead, text("SITE"), last("TOP CLASS"))
	case allocs.ByStack:
		return append(lead, text("STACK"), last("TOP CLASS"))
	case allocs.ByThread:
		return append(lead, text("THREAD"), last("TOP CLASS"))
	}
	return []viewer.Column{num("#"), num("SIZE"), num("TID"), text("CLASS"), last("SITE")}
}

// keyWidth bounds a group's key column (a class, a site), so that the
// column after it keeps room at 120 columns.
const keyWidth = 48

// Update filters and sorts (see allocs.Table.Filter, Groups, SortGroups).
func (ar *allocRows) Update(q viewer.Query) int {
	v := ar.v
	v.rows = v.tab.Filter(q.Filter)
	_, v.bytes = v.tab.Sum(v.rows)
	v.groups = nil
	key := allocs.SortKey(q.Sort)
	if v.by == allocs.Flat {
		v.tab.SortEntries(v.rows, key, q.Reverse)
		return len(v.rows)
	}
	v.groups = v.tab.Groups(v.by, v.rows)
	allocs.SortGroups(v.groups, key, q.Reverse)
	return len(v.groups)
}

// Key identifies row i across refreshes.
func (ar *allocRows) Key(i int) string {
	v := ar.v
	if v.by == allocs.Flat {
		return "#" + strconv.Itoa(v.tab.Entries[v.rows[i]].Index)
	}
	return v.groups[i].Key
}

func (ar *allocRows) Cell(i, col int) *tview.TableCell {
	v := ar.v
	var text string
	if v.by == allocs.Flat {
		e := &v.tab.Entries[v.rows[i]]
		switch col {
		case 0:
			text = strconv.Itoa(e.Index)
		case 1:
			text = savefile.Size(uint64(e.Size))
		case 2:
			text = strconv.Itoa(int(e.ThreadID))
		case 3:
			text = style.Escape(e.Class)
		case 4:
			text = style.Escape(v.tab.Site(v.rows[i]))
		}
		return tview.NewTableCell(text)
	}
	g := &v.groups[i]
	switch col {
	case 0:
		text = strconv.Itoa(g.Count)
	case 1:
		text = savefile.Size(g.Bytes)
	case 2:
		text = savefile.MeanSize(g.Mean())
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
	return tview.NewTableCell(text)
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

// toggleStacks pushes the stacks of the selected row's allocations, or
// leaves them.
func (v *View) toggleStacks() {
	if v.Current() == viewer.Page(v.stacks) {
		v.Pop()
		return
	}
	if v.tbl.Selected() < 0 {
		return
	}
	v.showStacks()
	v.Push(v.stacks)
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
		fmt.Fprintf(&b, "[::b]%s[::-]: %s, %s, mean %s; %s\n",
			label, plural(g.Count, "allocation"), savefile.Size(g.Bytes), savefile.MeanSize(g.Mean()), plural(len(sts), "distinct stack"))
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
