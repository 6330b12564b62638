// Package allocview is the terminal pane of the allocation tracker: a VM's
// recent allocations (allocs.Table, from DDM REAL) grouped by class (the
// default), by allocation site, by whole stack or by thread, or listed one by
// one; sortable; filtered with `/` (`!` inverts); Enter shows the stacks of
// the selected row's allocations. A header tells whether the VM is tracking
// and how many allocations and bytes are shown.
//
// View is built on the viewer base (tui/viewer): the table is its root page
// and the stacks a page pushed on it; the base owns the filter, the sort
// keys, movement, help and the footer. View fits into a larger layout (the
// dashboard embeds it); Run shows a table full screen, optionally
// refreshing it and turning tracking on and off through callbacks. Every
// string from the VM goes through style.Escape before it reaches tview.
package allocview

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/savefile"
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

// Key scopes of the two pages: the table's keys are the view's own (no
// scope), so the configuration's checks see them beside q and ?.
const (
	scopeTable  = ""
	scopeStacks = "stacks"
)

// View shows an allocation table.
type View struct {
	*viewer.Frame
	opt    Options
	tbl    *viewer.Table
	table  *tview.Table // the rows' widget
	stacks *viewer.Text

	tab           *allocs.Table
	tracking      bool
	trackingKnown bool
	message       string
	by            allocs.GroupBy

	rows   []int          // entries passing the filter; sorted in Flat
	groups []allocs.Group // sorted groups, unless Flat
	bytes  uint64         // total size of rows
}

// New returns an empty view; SetTable fills it.
func New(opt Options) *View {
	v := &View{opt: opt, tab: allocs.New(nil, allocs.NewestFirst)}
	v.Frame = viewer.NewFrame(viewer.FrameOptions{
		Palette: opt.Palette, HelpTitle: "Allocation tracker keys", Item: "row (or stack line)", HomeEndOnly: true,
		Quit: opt.Quit, FilterHelp: "filter by class, method or file (!text excludes; tid=N)",
		Copy: v.CopyText, CopyHelp: "copy the allocation site to the clipboard (OSC 52)",
	})
	var sorts []viewer.Sort
	for _, s := range []struct {
		key  rune
		help string
	}{{'c', "sort by number of allocations"}, {'b', "sort by bytes (size when not grouped)"}, {'m', "sort by mean size"},
		{'n', "sort by name (class when not grouped)"}, {'s', "sort by allocation site"}, {'o', "sort by allocation order, newest first"}} {
		sorts = append(sorts, viewer.Sort{Key: s.key, Name: allocs.SortKey(len(sorts)).String(), Help: s.help})
	}
	v.tbl = viewer.NewTable(&allocRows{v: v}, viewer.TableOptions{Title: "Allocations", Scope: scopeTable, Sorts: sorts})
	v.table = v.tbl.Widget()
	v.table.SetBorder(true).SetBorderColor(opt.Palette.Accent())
	v.tbl.OnChange(v.changed)
	v.stacks = viewer.NewText("Stacks", scopeStacks).SetHints("j/k scroll  Enter/Esc back")
	v.stacks.SetBorder(true).SetBorderColor(opt.Palette.Accent())
	v.AddTab(v.tbl)
	v.Register(v.stacks)

	view, tracker, b := "View", "Tracker", keymap.Bind
	keys := []keymap.Binding{
		b(tcell.KeyEnter, 0, "Enter", "show the stacks of the selected row's allocations (Enter or Esc: back)", view, v.toggleStacks),
		keymap.Alias(tcell.KeyRune, 'q', func() { v.Pop() }).In(scopeStacks),
		b(tcell.KeyRune, 'g', "g", "group by class → site → stack → thread → none", view, v.cycleGrouping),
	}
	if opt.Track != nil {
		keys = append(keys, b(tcell.KeyRune, 't', "t", "turn allocation tracking on / off", tracker, func() { opt.Track(!v.tracking) }))
	}
	if opt.Refresh != nil {
		keys = append(keys, b(tcell.KeyRune, 'R', "R", "fetch the recent allocations again", tracker, opt.Refresh))
	}
	v.AddKeys(keys...)
	v.SetTable(nil)
	return v
}

// RunOptions configure Run.
type RunOptions struct {
	Title string // shown in the header, e.g. the app name
	// Screen replaces the terminal (tests pass a tcell.SimulationScreen).
	Screen tcell.Screen
	// Palette defaults to style.FromEnv() (NO_COLOR).
	Palette *style.Palette
	// Tracking is the VM's tracking state when known.
	Tracking *bool
	// Context bounds Fetch and Track; Run also ends when it is done.
	Context context.Context
	// Fetch, when set, lets R fetch the table again.
	Fetch func(ctx context.Context) (*allocs.Table, error)
	// Track, when set, lets t turn tracking on or off; it returns the
	// state the VM is in afterwards.
	Track func(ctx context.Context, on bool) (bool, error)
}

// Run shows t full screen until the user quits (q or Ctrl-C) or
// opt.Context ends. Fetch and Track run off the UI goroutine, one at a
// time; Run returns only after they have.
func Run(t *allocs.Table, opt RunOptions) error {
	_, _, run := newRun(t, opt)
	return run()
}

// newRun builds Run's shell and view; run runs it.
func newRun(t *allocs.Table, opt RunOptions) (*tview.Application, *View, func() error) {
	sh, v := viewer.NewRun(viewer.RunOptions{Title: opt.Title, Screen: opt.Screen, Palette: opt.Palette, Context: opt.Context},
		func(h viewer.Host) *View {
			var v *View
			o := Options{Title: h.Title, Palette: h.Palette, Quit: h.Quit}
			if opt.Fetch != nil {
				o.Refresh = func() {
					v.Work("fetching the allocations", func(ctx context.Context, _ func(string)) func() {
						tab, err := opt.Fetch(ctx)
						return func() {
							if err != nil {
								v.SetMessage("fetch: " + err.Error())
								return
							}
							v.SetMessage("")
							v.SetTable(tab)
						}
					})
				}
			}
			if opt.Track != nil {
				o.Track = func(on bool) {
					v.Work("asking the VM", func(ctx context.Context, _ func(string)) func() {
						now, err := opt.Track(ctx, on)
						return func() {
							if err != nil {
								v.SetMessage("tracking: " + err.Error())
								return
							}
							v.SetMessage("")
							v.SetTracking(now)
						}
					})
				}
			}
			v = New(o)
			v.SetRunner(h.Runner)
			v.SetTable(t)
			if opt.Tracking != nil {
				v.SetTracking(*opt.Tracking)
			}
			return v
		})
	return sh.App(), v, sh.Run
}

// SetTable shows t (nil shows an empty table), keeping the grouping, sort,
// filter and, when it is still listed, the selected row.
func (v *View) SetTable(t *allocs.Table) {
	if t == nil {
		t = allocs.New(nil, allocs.NewestFirst)
	}
	v.tab = t
	v.tbl.Refresh()
	if v.Current() == viewer.Page(v.stacks) {
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
	v.regroup()
}

// Grouping returns the grouping shown.
func (v *View) Grouping() allocs.GroupBy { return v.by }

// SetSort chooses the order of the rows.
func (v *View) SetSort(key allocs.SortKey, reverse bool) {
	v.tbl.SetSort(int(key))
	v.tbl.SetReverse(reverse)
}

// SetFilter filters the allocations (see allocs.Table.Filter).
func (v *View) SetFilter(s string) { v.tbl.SetFilter(s) }

// Filter returns the filter in effect.
func (v *View) Filter() string { return v.tbl.Filter() }

// regroup lays the rows out for a new grouping, the first row selected.
func (v *View) regroup() {
	v.tbl.Reset()
}

func (v *View) cycleGrouping() {
	for i, g := range allocs.Groupings {
		if g == v.by {
			v.by = allocs.Groupings[(i+1)%len(allocs.Groupings)]
			break
		}
	}
	v.regroup()
}

// changed follows a new layout of the rows: title, header, status.
func (v *View) changed() {
	if v.by == allocs.Flat {
		v.table.SetTitle(fmt.Sprintf(" Allocations: %d ", v.tbl.Len()))
	} else {
		v.table.SetTitle(fmt.Sprintf(" Allocations by %s: %d ", v.by, v.tbl.Len()))
	}
	v.updateHeader()
	v.updateStatus()
}

// Selected returns the group of the selected row (nil when none or not
// grouped) and the entry positions it covers.
func (v *View) Selected() (*allocs.Group, []int) {
	i := v.tbl.Selected()
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
	q := v.tbl.Query()
	if q.Filter != "" {
		parts = append(parts, fmt.Sprintf("filter %s: %d of %d allocations, %s", style.Escape(strconv.Quote(q.Filter)),
			len(v.rows), total, savefile.Size(v.bytes)))
	} else {
		parts = append(parts, fmt.Sprintf("%d allocations, %s", total, savefile.Size(v.bytes)))
	}
	if v.by == allocs.Flat {
		parts = append(parts, "not grouped")
	} else {
		parts = append(parts, fmt.Sprintf("by %s: %d", v.by, len(v.groups)))
	}
	s := "sort " + v.tbl.SortName()
	if q.Reverse {
		s += ", reversed"
	}
	parts = append(parts, s, "VM sent "+v.tab.Order.String())
	v.SetHeader(strings.Join(parts, " │ "))
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
		keys += "  " + v.QuitHint()
	}
	v.SetHints(keys)
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
	v.Frame.SetMessage(msg)
}
