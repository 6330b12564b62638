// Package spyview is the debugger-traffic pane (jdwpspy built in): the
// debugger proxy's decoded records (jdwpspy.Record) as a table, newest at
// the bottom, coloured by direction — debugger to VM, VM to debugger,
// session events, errors — following new traffic until the user moves the
// selection up; the selected record's decoded detail (event request
// modifiers, composite events, latency, errors) shows under the table.
//
// View is built on the viewer base (tui/viewer): the table is its only
// page, with the base's / filter, movement, generated help, copy (y) and
// footer. A dashboard embeds it as an overlay; Follow feeds it from a
// jdwpspy.Inspector through the application's QueueUpdateDraw, at most
// about 30 times a second. Every string that came from a VM is escaped for
// tview.
package spyview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// DefaultMaxRecords bounds the records a View keeps.
const DefaultMaxRecords = 2000

// Options configure a View.
type Options struct {
	Palette    style.Palette
	MaxRecords int // 0: DefaultMaxRecords
	// Quit, when set, is bound to q and J, and to Esc when there is
	// nothing to go back from (the dashboard returns to its panes).
	Quit func()
}

// View lists inspector records with the selected one's detail.
type View struct {
	*viewer.Frame
	opt    Options
	max    int
	tbl    *viewer.Table
	table  *tview.Table // the rows' widget
	detail *tview.TextView

	recs    []entry
	next    uint64 // the number the next record added gets
	shown   []int  // indices in recs of the rows, oldest first
	follow  bool   // keep the newest row selected and in view
	dropped uint64
}

// New returns an empty view that follows new records.
func New(opts Options) *View {
	if opts.MaxRecords <= 0 {
		opts.MaxRecords = DefaultMaxRecords
	}
	v := &View{opt: opts, max: opts.MaxRecords, follow: true}
	v.Frame = viewer.NewFrame(viewer.FrameOptions{
		Palette: opts.Palette, HelpTitle: "Debugger traffic keys", Item: "record", HomeEndOnly: true, Quit: opts.Quit, QuitHelp: viewer.BackToDashboard,
		FilterHelp: "filter the records by any text of their line: name, VM, port, error (!text excludes)",
		Copy:       v.copyText, CopyHelp: "copy the selected record and its detail to the clipboard (OSC 52)",
	})
	v.SetHeader("JDWP traffic through the debugger ports")
	v.tbl = viewer.NewTable(&recordRows{v: v}, viewer.TableOptions{
		Title: "Traffic", Empty: noTraffic, SideBySide: 1 << 30, // the lines are long: the detail goes under them
		DetailHelp: "switch the movement keys between the records and the detail",
	})
	v.table = v.tbl.Widget()
	v.table.SetBorder(true)
	v.detail = tview.NewTextView().SetDynamicColors(true).SetWrap(true).SetScrollable(true)
	v.detail.SetBorder(true).SetTitle(" Packet ")
	v.tbl.SetDetail(v.detail)
	v.tbl.OnSelect(func(int) { v.showDetail() })
	v.tbl.OnChange(func() {
		if v.follow {
			v.tbl.Move(1 << 30)
		}
	})
	v.AddTab(v.tbl)

	const grp = "Debugger traffic"
	b := keymap.Bind
	keys := []keymap.Binding{
		b(tcell.KeyRune, 'g', "g", "oldest record (stops following)", "Move", v.first).As("first"),
		b(tcell.KeyRune, 'G', "G", "newest record, follow new traffic", grp, v.Follow).As("follow"),
		b(tcell.KeyRune, 'c', "c", "clear the list", grp, v.Clear).As("clear"),
	}
	if opts.Quit != nil {
		keys = append(keys, keymap.Alias(tcell.KeyRune, 'J', opts.Quit).As("quit"))
	}
	v.AddKeys(keys...)
	hints := "j/k move  G follow  / filter  Tab detail  c clear  y copy  ? help"
	if opts.Quit != nil {
		hints += "  q back"
	}
	v.SetHints(hints)
	v.tbl.Refresh()
	return v
}

// noTraffic is what the empty table says.
const noTraffic = "no debugger traffic yet: attach a debugger to a VM's port"

// entry is a record with what the table asks of it often, made once.
type entry struct {
	rec   jdwpspy.Record
	key   string   // the row's key: the record's number in this view
	lower string   // its line in lower case, for the filter
	cells []string // its cells' text, escaped, once the row is drawn
}

// Add appends records (oldest first), dropping the oldest beyond the limit.
// Call it on the UI goroutine.
func (v *View) Add(recs ...jdwpspy.Record) {
	if len(recs) > v.max {
		v.next += uint64(len(recs) - v.max)
		recs = recs[len(recs)-v.max:]
	}
	for _, r := range recs {
		v.next++
		v.recs = append(v.recs, entry{rec: r, key: strconv.FormatUint(v.next, 10), lower: strings.ToLower(r.Text())})
	}
	gone := 0 // rows shown that go with the oldest records
	if over := len(v.recs) - v.max; over > 0 {
		for _, i := range v.shown {
			if i >= over {
				break
			}
			gone++
		}
		// Dropped from the front: the next growth of the slice copies
		// only the records kept, so the array never holds more than
		// about twice the limit.
		clear(v.recs[:over])
		v.recs = v.recs[over:]
	}
	v.tbl.Refresh()
	if !v.follow && gone > 0 {
		// Paused, the rows on screen stay where they are.
		row, col := v.table.GetOffset()
		v.table.SetOffset(max(row-gone, 0), col)
	}
}

// SetRecords replaces the records (e.g. with jdwpspy.Inspector.Records).
func (v *View) SetRecords(recs []jdwpspy.Record) {
	v.recs = nil
	v.Add(recs...)
}

// SetDropped sets how many records the feed lost (shown in the title).
func (v *View) SetDropped(n uint64) { v.dropped = n }

// Clear empties the list and follows again.
func (v *View) Clear() {
	v.recs, v.follow = nil, true
	v.tbl.Refresh()
}

// Follow selects the newest record and keeps following new traffic.
func (v *View) Follow() {
	v.follow = true
	v.tbl.Move(1 << 30)
}

// first selects the oldest record and stops following.
func (v *View) first() {
	v.follow = false
	v.tbl.Move(-1 << 30)
}

// Following reports whether the view follows new traffic.
func (v *View) Following() bool { return v.follow }

// Selected returns the selected record.
func (v *View) Selected() (jdwpspy.Record, bool) {
	i := v.tbl.Selected()
	if i < 0 || i >= len(v.shown) {
		return jdwpspy.Record{}, false
	}
	return v.recs[v.shown[i]].rec, true
}

// Len is the number of records kept (filtered or not).
func (v *View) Len() int { return len(v.recs) }

// Table returns the records' page (its filter, its selection).
func (v *View) Table() *viewer.Table { return v.tbl }

// InputHandler is the frame's, and then: a movement up stops following, a
// movement down onto the newest row resumes it; Esc with nothing to go
// back from (no help, no filter) leaves, as q does.
func (v *View) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	inner := v.Frame.InputHandler()
	return func(ev *tcell.EventKey, setFocus func(p tview.Primitive)) {
		idle := !v.Footer().Prompting() && !v.HelpShown()
		if idle && v.opt.Quit != nil && ev.Key() == tcell.KeyEscape && v.tbl.Filter() == "" {
			v.opt.Quit()
			return
		}
		inner(ev, setFocus)
		if !idle {
			return
		}
		k := v.Keys()
		switch {
		case k.Matches(ev, "up") || k.Matches(ev, "page-up") || k.Matches(ev, "first"):
			v.follow = false
		case k.Matches(ev, "down") || k.Matches(ev, "page-down") || k.Matches(ev, "last"):
			v.follow = v.tbl.Selected() == len(v.shown)-1
		}
	}
}

// Draw titles the table with the count and the follow state, then draws.
func (v *View) Draw(screen tcell.Screen) {
	title := fmt.Sprintf(" debugger traffic: %d ", len(v.recs))
	if f := v.tbl.Filter(); f != "" {
		title = fmt.Sprintf(" debugger traffic: %d of %d, filter %s ", len(v.shown), len(v.recs), style.Escape(strconv.Quote(f)))
	}
	if !v.follow {
		title += "(paused: G follows) "
	}
	if v.dropped > 0 {
		title += fmt.Sprintf("(%d not shown: too fast) ", v.dropped)
	}
	v.table.SetTitle(title)
	v.Frame.Draw(screen)
}

// showDetail fills the detail pane with the selected record's decoded
// fields.
func (v *View) showDetail() {
	rec, ok := v.Selected()
	if !ok {
		v.detail.SetText("")
		return
	}
	lines := rec.Detail() // already safe for the terminal
	for i, l := range lines {
		lines[i] = style.EscapeTags(l)
	}
	v.detail.SetText(strings.Join(lines, "\n"))
	v.detail.ScrollToBeginning()
}

// copyText is what y copies: the selected record's line and its detail.
func (v *View) copyText() (what, text string) {
	rec, ok := v.Selected()
	if !ok {
		return "", ""
	}
	return "the record", rec.Line() + "\n" + strings.Join(rec.Detail(), "\n")
}
