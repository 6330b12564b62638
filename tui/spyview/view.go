// Package spyview is the debugger-traffic pane (jdwpspy built in): a tview
// primitive listing the debugger proxy's decoded records (proxy.Record),
// newest at the bottom, coloured by direction — debugger to VM, VM to
// debugger, session events, errors — and following new traffic until the
// user moves the selection up; the selected record's decoded detail (event
// request modifiers, composite events, latency, errors) shows under the list.
//
// View is what a dashboard embeds; Follow feeds it from a proxy.Inspector
// through the application's QueueUpdateDraw, at most about 30 times a
// second. Every string that came from a VM is escaped for tview.
package spyview

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/proxy"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// DefaultMaxRecords bounds the records a View keeps.
const DefaultMaxRecords = 2000

// Options configure a View.
type Options struct {
	Palette    style.Palette
	MaxRecords int // 0: DefaultMaxRecords
	// Quit, when set, is bound to q and Esc (the dashboard returns to its
	// panes).
	Quit func()
}

// View lists inspector records with the selected one's detail.
type View struct {
	*tview.Box
	pal  style.Palette
	max  int
	keys *keymap.Map

	recs    []proxy.Record
	sel     int  // index of the selected record; -1 when there is none
	follow  bool // keep the newest record selected and in view
	top     int  // first record shown
	dropped uint64
	listH   int // rows of the list at the last draw (for paging)
	help    bool
}

// New returns an empty view that follows new records.
func New(opts Options) *View {
	if opts.MaxRecords <= 0 {
		opts.MaxRecords = DefaultMaxRecords
	}
	v := &View{Box: tview.NewBox(), pal: opts.Palette, max: opts.MaxRecords, sel: -1, follow: true}
	v.SetTitle(" debugger traffic ")
	const grp = "Debugger traffic"
	b, a := keymap.Bind, keymap.Alias
	v.keys = keymap.New(
		b(tcell.KeyRune, 'k', "k/↑", "previous record (stops following)", grp, func() { v.move(-1) }).As("up"),
		a(tcell.KeyUp, 0, func() { v.move(-1) }).As("up"),
		b(tcell.KeyRune, 'j', "j/↓", "next record", grp, func() { v.move(1) }).As("down"),
		a(tcell.KeyDown, 0, func() { v.move(1) }).As("down"),
		b(tcell.KeyPgUp, 0, "PgUp", "page up", grp, func() { v.move(-v.page()) }).As("page-up"),
		b(tcell.KeyPgDn, 0, "PgDn", "page down", grp, func() { v.move(v.page()) }).As("page-down"),
		b(tcell.KeyRune, 'g', "g/Home", "oldest record", grp, func() { v.move(-len(v.recs)) }).As("first"),
		a(tcell.KeyHome, 0, func() { v.move(-len(v.recs)) }).As("first"),
		b(tcell.KeyRune, 'G', "G/End", "newest record, follow new traffic", grp, v.Follow).As("follow"),
		a(tcell.KeyEnd, 0, v.Follow).As("follow"),
		b(tcell.KeyRune, 'c', "c", "clear the list", grp, v.Clear).As("clear"),
		b(tcell.KeyRune, '?', "?", "show or hide this help", grp, func() { v.help = !v.help }).As("help"),
	)
	if opts.Quit != nil {
		quit := func() {
			if v.help {
				v.help = false
				return
			}
			opts.Quit()
		}
		v.keys.Add(b(tcell.KeyRune, 'q', "q/Esc/J", "back", grp, quit).As("quit"), a(tcell.KeyEscape, 0, quit).As("quit"),
			a(tcell.KeyRune, 'J', quit).As("quit"))
	}
	return v
}

// Keys is the view's key table (for the dashboard's help screen).
func (v *View) Keys() *keymap.Map { return v.keys }

// Add appends records (oldest first), dropping the oldest beyond the limit.
// Call it on the UI goroutine.
func (v *View) Add(recs ...proxy.Record) {
	v.recs = append(v.recs, recs...)
	if over := len(v.recs) - v.max; over > 0 {
		v.recs = append(v.recs[:0:0], v.recs[over:]...)
		v.sel -= over
		v.top -= over
		if v.sel < 0 && !v.follow {
			v.sel = 0
		}
		v.top = max(v.top, 0)
	}
	if v.follow {
		v.sel = len(v.recs) - 1
	}
}

// SetRecords replaces the records (e.g. with proxy.Inspector.Records).
func (v *View) SetRecords(recs []proxy.Record) {
	v.recs, v.top = nil, 0
	if !v.follow {
		v.sel = 0
	}
	v.Add(recs...)
}

// SetDropped sets how many records the feed lost (shown in the title).
func (v *View) SetDropped(n uint64) { v.dropped = n }

// Clear empties the list and follows again.
func (v *View) Clear() {
	v.recs, v.top, v.sel, v.follow = nil, 0, -1, true
}

// Follow selects the newest record and keeps following new traffic.
func (v *View) Follow() {
	v.follow = true
	v.sel = len(v.recs) - 1
}

// Following reports whether the view follows new traffic.
func (v *View) Following() bool { return v.follow }

// Selected returns the selected record.
func (v *View) Selected() (proxy.Record, bool) {
	if v.sel < 0 || v.sel >= len(v.recs) {
		return proxy.Record{}, false
	}
	return v.recs[v.sel], true
}

// Len is the number of records kept.
func (v *View) Len() int { return len(v.recs) }

func (v *View) page() int { return max(v.listH-1, 1) }

func (v *View) move(d int) {
	if len(v.recs) == 0 {
		return
	}
	if v.sel < 0 {
		v.sel = len(v.recs) - 1
	}
	v.sel = min(max(v.sel+d, 0), len(v.recs)-1)
	// Moving onto the newest record resumes following; moving up stops.
	v.follow = v.sel == len(v.recs)-1 && d > 0
}

// InputHandler handles the keys of Keys.
func (v *View) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return v.WrapInputHandler(func(ev *tcell.EventKey, _ func(p tview.Primitive)) {
		v.keys.Handle(ev)
	})
}

func (v *View) colour(c tcell.Color) tcell.Color {
	if v.pal.NoColor {
		return tcell.ColorDefault
	}
	return c
}

// recordColour: debugger → VM green, VM → debugger aqua, session events
// yellow, errors red.
func (v *View) recordColour(r *proxy.Record) tcell.Color {
	switch {
	case r.Error != "" || r.DecodeError != "":
		return v.colour(tcell.ColorRed)
	case r.Dir == proxy.ToVM:
		return v.colour(tcell.ColorGreen)
	case r.Dir == proxy.FromVM:
		return v.colour(tcell.ColorAqua)
	}
	return v.colour(tcell.ColorYellow)
}

// hints is the footer line.
func (v *View) hints() string {
	s := "j/k move  G follow  c clear  ? help"
	if _, ok := v.keys.Lookup("quit"); ok {
		s += "  q back"
	}
	return s
}

// Draw draws the list and, under it, the selected record's detail.
func (v *View) Draw(screen tcell.Screen) {
	title := fmt.Sprintf(" debugger traffic: %d ", len(v.recs))
	if !v.follow {
		title += "(paused: G follows) "
	}
	if v.dropped > 0 {
		title += fmt.Sprintf("(%d not shown: too fast) ", v.dropped)
	}
	v.SetTitle(title)
	v.DrawForSubclass(screen, v)
	x, y, w, h := v.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	if v.help {
		for i, line := range strings.Split(v.keys.HelpText()+"\n? or q closes this help", "\n") {
			if i < h {
				tview.Print(screen, style.Escape(line), x, y+i, w, tview.AlignLeft, tview.Styles.PrimaryTextColor)
			}
		}
		return
	}
	if h >= 4 { // the footer: key hints
		h--
		tview.Print(screen, v.hints(), x, y+h, w, tview.AlignLeft, v.colour(tcell.ColorGray))
	}
	if len(v.recs) == 0 {
		tview.Print(screen, "no debugger traffic yet: attach a debugger to a VM's port", x, y, w, tview.AlignLeft, v.colour(tcell.ColorGray))
		v.listH = h
		return
	}

	var detail []string
	if rec, ok := v.Selected(); ok && h >= 6 {
		detail = rec.Detail()
		if n := h / 3; len(detail) > n {
			detail = detail[:n]
		}
	}
	listH := h
	if len(detail) > 0 {
		listH = h - len(detail) - 1
	}
	v.listH = listH

	// Keep the selection in view; when following, the newest at the bottom.
	if v.follow {
		v.top = len(v.recs) - listH
	}
	if v.sel >= 0 {
		if v.sel < v.top {
			v.top = v.sel
		}
		if v.sel >= v.top+listH {
			v.top = v.sel - listH + 1
		}
	}
	v.top = min(max(v.top, 0), max(len(v.recs)-listH, 0))

	accent := v.pal.Accent()
	for row := 0; row < listH && v.top+row < len(v.recs); row++ {
		i := v.top + row
		rec := &v.recs[i]
		marker := "  "
		if i == v.sel {
			marker = "▶ "
			if accent != tcell.ColorDefault {
				bg := tcell.StyleDefault.Background(v.colour(tcell.ColorNavy))
				for cx := x; cx < x+w; cx++ {
					screen.SetContent(cx, y+row, ' ', nil, bg)
				}
			}
		}
		tview.Print(screen, marker+style.Escape(rec.Text()), x, y+row, w, tview.AlignLeft, v.recordColour(rec))
	}
	if len(detail) == 0 {
		return
	}
	sep := y + listH
	for cx := x; cx < x+w; cx++ {
		screen.SetContent(cx, sep, tview.BoxDrawingsLightHorizontal, nil, tcell.StyleDefault.Foreground(v.colour(tcell.ColorGray)))
	}
	for i, line := range detail {
		// Detail lines are escaped for the terminal; escape tview tags too.
		tview.Print(screen, style.Escape(line), x, sep+1+i, w, tview.AlignLeft, tview.Styles.PrimaryTextColor)
	}
}
