package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/allocview"
	"github.com/ddmtui/ddmtui/tui/dumpview"
	"github.com/ddmtui/ddmtui/tui/heapview"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/profileview"
	"github.com/ddmtui/ddmtui/tui/spyview"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
	"github.com/ddmtui/ddmtui/tui/viewsview"
)

// overlays are what covers the panes: the help, the message history, the
// / prompt, and the viewers the VM actions open (profile, thread dump,
// allocations, JDWP traffic). They implement viewers for the panes.
type overlays struct {
	env      paneEnv // nav and views unused
	sh       shell
	pages    *tview.Pages
	history  func() string // the status line's message history (M)
	help     *tview.TextView
	helpBox  *tview.Flex
	helpSecs []string // the help's sections, one per key group
	messages *tview.TextView
	prompt   *tview.InputField
	target   Filterable // what the prompt filters
	// promptLabel is the prompt's label; promptStyle the field's own style,
	// which a half-typed query that does not compile replaces (checkPrompt).
	promptLabel string
	promptStyle tcell.Style
	asking      bool
	// The same prompt is the `:` command prompt (command.go) while
	// command is set: hint shows the completions beside it, history the
	// lines run (Up/Down), tab* the Tab cycle.
	command bool
	bar     *tview.Flex
	hint    *tview.TextView
	lines   []string // the command prompt's history
	histAt  int
	tabBase string
	tabLast string
	tabNext int

	profView *profileview.View
	dumpView *dumpview.View
	spyView  *spyview.View
	allocV   *allocview.View
	allocKey string // VM whose allocations the allocation view shows
	timeline *timelineView
	viewsV   *viewsview.View
	heapV    *heapview.View    // the heap dump viewer, while open (heapviewer.go)
	lastHeap map[string]string // app -> its last dump saved in this session
}

// shell is what the overlays ask of the dashboard that holds them: the
// screen's size, the layout and the focus, the pane the / prompt filters,
// and the : prompt's commands. The Dashboard implements it.
type shell interface {
	size() (w, h int)
	relayout()
	applyFocus()
	// focusOn gives the keyboard focus to p (an overlay's widget).
	focusOn(p tview.Primitive)
	// filterTarget focuses the pane the / prompt filters (the focused one,
	// or the threads or VM list when it has no list) and returns it.
	filterTarget() (f Filterable, title string)
	completions(text string) []string
	sortColumns() []string
	runCommand(line string)
}

func newOverlays(env paneEnv, pages *tview.Pages, sh shell, history func() string) *overlays {
	o := &overlays{env: env, sh: sh, pages: pages, history: history}
	pal := env.pal
	o.prompt = tview.NewInputField()
	o.prompt.SetDoneFunc(func(key tcell.Key) {
		if o.command {
			o.commandDone(key)
			return
		}
		o.promptDone(key)
	})
	o.prompt.SetChangedFunc(func(text string) {
		switch {
		case o.asking && o.command:
			o.showHint(text)
		case o.asking && o.target != nil && o.checkPrompt(text):
			o.target.SetFilter(text)
		}
	})
	o.promptStyle = o.prompt.GetFieldStyle()
	o.prompt.SetInputCapture(o.commandKey)
	o.hint = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	o.bar = tview.NewFlex().AddItem(o.prompt, 0, 1, true).AddItem(o.hint, 0, 1, false)
	o.help = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	o.help.SetBorder(true).SetTitle(" Keys ")
	o.helpBox = tview.NewFlex()
	pages.AddPage("help", o.helpBox, true, false)
	o.messages = tview.NewTextView().SetDynamicColors(true).SetWrap(true)
	o.messages.SetBorder(true).SetTitle(" Messages (M or Esc: back) ")
	pages.AddPage("messages", o.messages, true, false)
	o.profView = profileview.New(profileview.Options{Palette: pal, Quit: func() { o.close("profile") }})
	pages.AddPage("profile", o.profView, true, false)
	o.dumpView = dumpview.New(dumpview.Options{Palette: pal, Quit: func() { o.close("dump") }})
	pages.AddPage("dump", o.dumpView, true, false)
	o.spyView = spyview.New(spyview.Options{Palette: pal, Quit: func() { o.close("spy") }})
	pages.AddPage("spy", o.spyView, true, false)
	o.allocV = allocview.New(allocview.Options{Palette: pal, Quit: o.closeAllocs, Refresh: o.refreshAllocs, Track: o.trackAllocs})
	pages.AddPage("allocs", o.allocV, true, false)
	// Over the dashboard, q goes back to it: their help says so.
	for _, v := range []interface{ SetQuitHelp(string) }{o.profView, o.dumpView, o.allocV} {
		v.SetQuitHelp(viewer.BackToDashboard)
	}
	o.timeline = newTimelineView(env, o.openTimeline, func() { o.close("timeline") })
	pages.AddPage("timeline", o.timeline, true, false)
	o.viewsV = newViewsPane(env, func() { o.close("views") })
	pages.AddPage("views", o.viewsV, true, false)
	return o
}

// setHelp generates the help from the key table.
func (o *overlays) setHelp(keys *keymap.Map) {
	o.helpSecs = append(keys.HelpSections(), "Esc or ? closes this help; j/k scroll.\n")
	o.fit(o.sh.size())
}

// fit sizes the help to its text: one column, or two side by side when one
// would be taller than the terminal and two fit its width; never wider
// than the terminal (a small one scrolls).
func (o *overlays) fit(w, h int) {
	if w <= 0 {
		w, h = 120, 40
	}
	var lines []string
	colW := 0
	for _, sec := range o.helpSecs {
		for _, l := range strings.Split(strings.TrimSuffix(sec, "\n"), "\n") {
			colW = max(colW, uniseg.StringWidth(l))
		}
	}
	one := strings.Join(o.helpSecs, "\n")
	total := strings.Count(one, "\n") + 1
	text, width := one, colW
	if total+2 > h && 2*colW+3+4 > w {
		// One column, too tall: drop the blank lines between sections
		// before resorting to scrolling.
		text = strings.Join(o.helpSecs, "")
	}
	if total+2 > h && 2*colW+3+4 <= w {
		// Split the sections where the left column passes half the lines.
		var left, right []string
		n := 0
		for _, sec := range o.helpSecs {
			if n < total/2 {
				left = append(left, sec)
				n += strings.Count(sec, "\n") + 1
			} else {
				right = append(right, sec)
			}
		}
		l := strings.Split(strings.Join(left, "\n"), "\n")
		r := strings.Split(strings.Join(right, "\n"), "\n")
		for i := 0; i < max(len(l), len(r)); i++ {
			var a, b string
			if i < len(l) {
				a = l[i]
			}
			if i < len(r) {
				b = r[i]
			}
			lines = append(lines, a+strings.Repeat(" ", colW-uniseg.StringWidth(a)+3)+b)
		}
		text, width = strings.Join(lines, "\n"), 2*colW+3
	}
	// The help text is ours (no VM strings): only tview's tag syntax needs escaping.
	o.help.SetText(style.EscapeTags(text))
	o.helpBox.Clear().
		AddItem(nil, 0, 1, false).
		AddItem(o.help, min(width+4, w), 0, true).
		AddItem(nil, 0, 1, false)
}

func (o *overlays) frontName() string {
	name, _ := o.pages.GetFrontPage()
	return name
}

// front reports whether an overlay covers the panes.
func (o *overlays) front() bool {
	name := o.frontName()
	return name != "main" && name != ""
}

func (o *overlays) prompting() bool { return o.asking }

// capture routes keys while an overlay is up: pass says to hand the key to
// the focused widget, handled that the dashboard's keys must not see it.
func (o *overlays) capture(ev *tcell.EventKey) (pass, handled bool) {
	if o.asking {
		return true, true // the prompt takes every key; Enter/Esc end it
	}
	switch o.frontName() {
	case "profile", "dump", "allocs", "spy", "views", "heap":
		return true, true // the viewer has its own keys; q or Esc returns here
	case "timeline":
		o.env.keys().HandleScope(ev, TimelineScope)
		return false, true
	case "help", "messages":
		switch {
		case ev.Key() == tcell.KeyEscape || ev.Rune() == 'q' ||
			(ev.Rune() == '?' && o.frontName() == "help") || (ev.Rune() == 'M' && o.frontName() == "messages"):
			o.close(o.frontName())
		case ev.Key() == tcell.KeyUp || ev.Key() == tcell.KeyDown || ev.Key() == tcell.KeyPgUp ||
			ev.Key() == tcell.KeyPgDn || ev.Rune() == 'j' || ev.Rune() == 'k':
			return true, true // taller than the terminal: it scrolls
		}
		return false, true
	}
	return false, false
}

func (o *overlays) show(name string, p tview.Primitive) {
	o.pages.ShowPage(name)
	o.sh.focusOn(p)
}

func (o *overlays) close(name string) {
	o.pages.HidePage(name)
	o.sh.applyFocus()
}

func (o *overlays) toggleHelp() {
	if o.frontName() == "help" {
		o.close("help")
		return
	}
	o.fit(o.sh.size())
	o.show("help", o.help)
}

func (o *overlays) showMessages() {
	o.messages.SetText(o.history())
	o.messages.ScrollToEnd()
	o.show("messages", o.messages)
}

// openPrompt filters the focused pane (the thread table when the focused
// pane has no list).
func (o *overlays) openPrompt() {
	f, title := o.sh.filterTarget()
	o.target, o.command = f, false
	o.hint.SetText("")
	o.bar.ResizeItem(o.hint, 0, 0)
	o.promptLabel = fmt.Sprintf("filter %s (Enter keeps, Esc clears): ", title)
	o.prompt.SetLabel(o.promptLabel)
	o.prompt.SetText(f.Filter())
	o.checkPrompt(f.Filter())
	o.asking = true
	o.sh.relayout()
	o.sh.focusOn(o.prompt)
}

func (o *overlays) promptDone(key tcell.Key) {
	switch {
	case key == tcell.KeyEscape && o.target != nil:
		o.target.SetFilter("")
	case key == tcell.KeyEnter && o.target != nil && !o.checkPrompt(o.prompt.GetText()):
		o.target.SetFilter(o.prompt.GetText()) // says why, once, and keeps the last good filter
	}
	o.markPrompt(false)
	o.asking = false
	o.sh.relayout()
}

func (o *overlays) showProfile(p *trace.Profile, path string) {
	o.profView.SetTitle(filepath.Base(path))
	o.profView.SetProfile(p)
	o.show("profile", o.profView)
}

func (o *overlays) showDump(d *threaddump.Dump) {
	o.dumpView.SetDump(d)
	o.show("dump", o.dumpView)
}

func (o *overlays) openSpy() {
	if o.env.cfg.Inspector == nil {
		o.env.flash("no debugger proxy runs")
		return
	}
	o.show("spy", o.spyView)
}

func (o *overlays) openAllocs() {
	vm, ok := o.env.selectedDDM("the allocation tracker")
	if !ok || o.env.unable(vm, monitor.FeatAllocations, "allocation tracker") {
		return
	}
	o.allocKey = vm.Key
	o.allocV.SetTable(nil)
	o.allocV.SetMessage(fmt.Sprintf("asking %s for its allocations…", appLabel(vm)))
	o.show("allocs", o.allocV)
	o.refreshAllocs()
}

// refreshAllocs fetches REAQ and REAL off the UI goroutine.
func (o *overlays) refreshAllocs() {
	e, key := o.env, o.allocKey
	vm, ok := e.m.selected()
	if key == "" || !ok {
		return
	}
	ctrl := e.cfg.Controller
	e.work.job("allocs", jobReplace, 10*time.Second, func(ctx context.Context) {
		on, terr := ctrl.VM(key).AllocTracking(ctx)
		a, err := ctrl.VM(key).Allocations(ctx)
		e.work.post(func() {
			if key != o.allocKey {
				return
			}
			if terr == nil {
				o.allocV.SetTracking(on)
			}
			if err != nil {
				o.allocV.SetMessage("allocations: " + err.Error())
				return
			}
			apply.Allocations(e.cfg.Mappings.forApp(vm.App), a)
			o.allocV.SetTable(allocs.New(a, allocs.OrderOfFamily(vm.Family)))
			if terr == nil && !on && len(a.Entries) == 0 {
				o.allocV.SetMessage("tracking is off: t turns it on, R refreshes")
			} else {
				o.allocV.SetMessage("")
			}
		})
	})
}

func (o *overlays) trackAllocs(on bool) {
	e, key := o.env, o.allocKey
	if key == "" {
		return
	}
	ctrl := e.cfg.Controller
	e.work.job("alloc-tracking", jobQueue, 5*time.Second, func(ctx context.Context) {
		err := ctrl.VM(key).SetAllocTracking(ctx, on)
		e.work.post(func() {
			if err != nil {
				o.allocV.SetMessage("tracking: " + err.Error())
				return
			}
			o.allocV.SetTracking(on)
		})
	})
}

func (o *overlays) closeAllocs() {
	o.allocKey = ""
	o.close("allocs")
}

// FilterChecker is a Filterable whose filter can be wrong (the log pane's
// query language): while it is typed, a text that does not compile only
// marks the prompt; Enter says why.
type FilterChecker interface {
	CheckFilter(string) error
}

// checkPrompt says whether text is a filter the target takes, marking the
// prompt when it is not.
func (o *overlays) checkPrompt(text string) bool {
	c, ok := o.target.(FilterChecker)
	bad := ok && c.CheckFilter(text) != nil
	o.markPrompt(bad)
	return !bad
}

// markPrompt marks the prompt's field as holding a filter that does not
// compile: "✗" in the label (seen without colour too), the field in red
// and underlined.
func (o *overlays) markPrompt(bad bool) {
	if !bad {
		o.prompt.SetLabel(o.promptLabel)
		o.prompt.SetFieldStyle(o.promptStyle)
		return
	}
	o.prompt.SetLabel(o.promptLabel + "✗ ")
	st := o.promptStyle.Underline(true)
	if !o.env.pal.NoColor {
		st = st.Foreground(tcell.ColorRed)
	}
	o.prompt.SetFieldStyle(st)
}
