package spyview

import (
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/internal/textfilter"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// recordRows is the table's rows: the records passing the filter, oldest
// first; cells are made as they are drawn.
type recordRows struct{ v *View }

// Columns: time, VM, debugger port, direction, and the packet.
func (rr *recordRows) Columns() []viewer.Column {
	return []viewer.Column{
		{Title: "TIME"}, {Title: "VM", MaxWidth: 40}, {Title: "PORT", Align: tview.AlignRight}, {Title: ""},
		{Title: "PACKET", Expand: 1, Clip: true},
	}
}

// Update lays out the records that pass q's filter: a case-insensitive
// substring of the record's line; a leading "!" excludes.
func (rr *recordRows) Update(q viewer.Query) int {
	v := rr.v
	v.shown = v.shown[:0]
	for i := range v.recs {
		if passes(v.recs[i].lower, q.Filter) {
			v.shown = append(v.shown, i)
		}
	}
	if v.tbl != nil { // nil while NewTable lays the first rows out
		v.tbl.SetEmpty(noTraffic)
		if len(v.recs) > 0 {
			v.tbl.SetEmpty("no record matches the filter (Esc clears it)")
		}
	}
	return len(v.shown)
}

// passes applies a filter (textfilter) to a line already in lower case.
func passes(lower, filter string) bool { return textfilter.Parse(filter).MatchLower(lower) }

// Key is the record's number in the view: stable while it is kept.
func (rr *recordRows) Key(i int) string { return rr.v.recs[rr.v.shown[i]].key }

// Cell is row i's column c, in the colour of the record's direction.
func (rr *recordRows) Cell(i, c int) *tview.TableCell {
	e := &rr.v.recs[rr.v.shown[i]]
	if e.cells == nil { // drawn for the first time: asked for again on every draw
		r := &e.rec
		e.cells = []string{r.Time.Format("15:04:05.000"), style.Escape(r.VM), ":" + strconv.Itoa(r.Port), r.Arrow(), style.Escape(r.Body())}
	}
	if c < 0 || c >= len(e.cells) {
		return nil
	}
	// Selected, the row keeps its colour: reversed, as its background.
	fg := rr.v.recordColour(&e.rec)
	return tview.NewTableCell(e.cells[c]).SetTextColor(fg).SetSelectedStyle(tcell.StyleDefault.Foreground(fg).Reverse(true))
}

// recordColour: debugger → VM green, VM → debugger aqua, session events
// yellow, errors red; none with NO_COLOR.
func (v *View) recordColour(r *jdwpspy.Record) tcell.Color {
	switch {
	case v.opt.Palette.NoColor:
		return tcell.ColorDefault
	case r.Error != "" || r.DecodeError != "":
		return tcell.ColorRed
	case r.Dir == jdwpspy.ToVM:
		return tcell.ColorGreen
	case r.Dir == jdwpspy.FromVM:
		return tcell.ColorAqua
	}
	return tcell.ColorYellow
}
