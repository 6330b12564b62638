package profileview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/calltreeview"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// Options configure a View.
type Options struct {
	Title   string        // shown in the header, e.g. the file name
	Palette style.Palette // colours; style.FromEnv() honours NO_COLOR
	// Quit is called by the quit key; nil leaves q unbound in effect (a
	// dashboard decides itself when to leave).
	Quit func()
}

// RunOptions configure Run.
type RunOptions = viewer.RunOptions

// Page scopes: the keys of each kind of page.
const (
	scopeMethods = "" // the method table's keys are the view's own
	scopeCalls   = "calls"
	scopeThreads = "threads"
)

// View shows a trace profile on the viewer base: the method table as the
// root page, the callers/callees of a method and the per-thread summary
// pushed on it. It is a tview.Primitive: add it to a layout, give it
// focus, and call SetProfile whenever a profile is ready.
type View struct {
	*viewer.Frame
	opt     Options
	empty   *viewer.Text
	methods *viewer.Table
	mrows   *methodList

	p      *trace.Profile
	full   *trace.Profile // the profile SetProfile was given (p is its Java-only projection when javaOnly)
	java   bool           // a sampled profile shown with its Java frames only
	thread int            // index in p.Threads, -1 for all threads
	clock  trace.Clock
	trees  *calltreeview.Tabs // the call-tree tabs, once a profile had trees
	// treeStatus is the trees' state (thread, clock, range, records not
	// placed), shown in the header on their tabs; headerTab the tab the
	// header was last made for.
	treeStatus string
	headerTab  int
}

// New returns an empty view; SetProfile fills it.
func New(opt Options) *View {
	v := &View{opt: opt, thread: -1}
	v.Frame = viewer.NewFrame(viewer.FrameOptions{
		Palette: opt.Palette, HelpTitle: "Method profile keys", Item: "row", Quit: opt.Quit,
		FilterHelp: "filter methods by substring (a leading ! keeps the others)",
		Copy:       v.CopyText, CopyHelp: "copy the method's signature to the clipboard (OSC 52)",
	})
	v.mrows = &methodList{v: v}
	sorts := make([]viewer.Sort, 0, 4)
	for _, s := range []struct {
		key  rune
		k    SortKey
		help string
	}{{'i', SortInclusive, "sort by inclusive time"}, {'e', SortExclusive, "sort by exclusive time"},
		{'c', SortCalls, "sort by calls"}, {'n', SortName, "sort by name"}} {
		sorts = append(sorts, viewer.Sort{Key: s.key, Name: s.k.String(), Help: s.help})
	}
	v.methods = viewer.NewTable(v.mrows, viewer.TableOptions{Title: "Methods", Scope: scopeMethods, Sorts: sorts,
		RepeatReverses: true, FixedColumns: 1})
	v.methods.OnSelect(func(int) { v.updateStatus() })
	v.methods.OnChange(v.updateHeader)
	v.empty = viewer.NewText("Methods", "")
	v.empty.SetText("no profile loaded")
	v.Register(v.methods)
	v.AddTab(v.empty)

	view, b, hidden := "View", keymap.Bind, keymap.Alias
	v.AddKeys(
		b(tcell.KeyRune, 'h', "h/←", "scroll columns left", "Move", func() { v.scrollColumns(-1) }),
		hidden(tcell.KeyLeft, 0, func() { v.scrollColumns(-1) }),
		b(tcell.KeyRune, 'l', "l/→", "scroll columns right", "Move", func() { v.scrollColumns(1) }),
		hidden(tcell.KeyRight, 0, func() { v.scrollColumns(1) }),
		b(tcell.KeyEnter, 0, "Enter", "callers and callees of the method; choose the thread", "Move", v.enter),
		b(tcell.KeyRune, 'w', "w", "switch the clock used to sort (thread CPU / wall)", "Sort", v.toggleClock),
		b(tcell.KeyRune, 't', "t", "threads: per-thread summary, Enter filters by thread", view, v.showThreads),
		b(tcell.KeyRune, 'a', "a", "all threads (clear the thread filter)", view, func() { v.setThread(-1) }),
		b(tcell.KeyRune, 'J', "J", "a sampled profile: Java frames only / all frames", view, v.toggleJava),
	)
	v.updateHeader()
	v.updateStatus()
	return v
}

// NewShell returns the shell Run runs: a View showing p full screen,
// quitting on q and Ctrl-C.
func NewShell(p *trace.Profile, opt RunOptions) (*viewer.Shell, *View) {
	return viewer.NewRun(opt, func(h viewer.Host) *View {
		v := New(Options{Title: h.Title, Palette: h.Palette, Quit: h.Quit})
		v.SetProfile(p)
		return v
	})
}

// Run shows p full screen until the user quits.
func Run(p *trace.Profile, opt RunOptions) error {
	sh, _ := NewShell(p, opt)
	return sh.Run()
}

// SetProfile shows p (nil clears the view). Sorting, clock and the filter
// are kept; the thread filter and drill-down are reset.
func (v *View) SetProfile(p *trace.Profile) {
	v.full, v.java = p, false
	v.show(p)
}

// toggleJava shows a sampled profile's Java frames only (native frames
// count to their Java caller), or all its frames again.
func (v *View) toggleJava() {
	if v.full == nil || v.full.Sampling == nil {
		return
	}
	v.java = !v.java
	if !v.java {
		v.show(v.full)
		return
	}
	java := v.full.Sampling.JavaMethods
	v.show(v.full.Projected(func(m int32) bool { return int(m) < len(java) && java[m] }))
}

func (v *View) show(p *trace.Profile) {
	v.p = p
	v.thread = -1
	if p == nil {
		v.SetRoot(0, v.empty)
		v.updateHeader()
		v.updateStatus()
		return
	}
	if !p.Clocks.Has(v.clock) {
		v.clock = p.Clocks.First()
	}
	v.SetRoot(0, v.methods)
	v.methods.Reset()
	v.setCallTrees(p)
}

// setCallTrees shows p's call trees in the tabs beside the method table
// (Top Down, Bottom Up, Flame Chart, Call Chart), added the first time a
// profile has them.
func (v *View) setCallTrees(p *trace.Profile) {
	m := calltreeview.NewModel(p, p.Clocks.First())
	switch {
	case v.trees != nil:
		v.trees.SetProfile(p, p.Clocks.First())
	case m.HasTrees():
		v.trees = calltreeview.AddTabs(v.Frame, m, v.opt.Palette)
		m.OnChange(func() { // a time range narrows the method table too
			v.methods.Refresh()
			v.updateHeader()
		})
		v.treeStatus = m.Status()
		v.trees.OnStatus = func(status string) {
			v.treeStatus = status
			v.updateHeader()
		}
	}
}

// Draw keeps the header to the tab shown: the method table's view state,
// or on the call-tree tabs the trees' own.
func (v *View) Draw(screen tcell.Screen) {
	if t := v.Tab(); t != v.headerTab {
		v.headerTab = t
		v.updateHeader()
	}
	v.Frame.Draw(screen)
}

// Profile returns the profile shown.
func (v *View) Profile() *trace.Profile { return v.p }

// methodGraph is what the method table shows: the flat profile of the
// thread shown, narrowed to the call trees' time range when one is in
// force (`m` in the call chart narrows every tab), with the clock its
// times are on (a range has only its own clock).
func (v *View) methodGraph() (*trace.Graph, trace.Clock) {
	if g, c, ok := v.rangeGraph(); ok {
		return g, c
	}
	return v.graph(), v.clock
}

// rangeGraph is the flat profile of the trees' time range, when there is
// one.
func (v *View) rangeGraph() (*trace.Graph, trace.Clock, bool) {
	if v.p == nil || v.trees == nil {
		return nil, 0, false
	}
	c, _, _, ok := v.trees.M.Range()
	if !ok {
		return nil, 0, false
	}
	return v.trees.M.RangeFlat(v.thread), c, true
}

// graph is the whole trace's flat profile of the thread shown (the
// callers and callees pages use its edges).
func (v *View) graph() *trace.Graph {
	if v.p == nil {
		return nil
	}
	if v.thread >= 0 && v.thread < len(v.p.Threads) {
		return &v.p.Threads[v.thread].Graph
	}
	return &v.p.All
}

// sortKey is the method table's order.
func (v *View) sortKey() SortKey { return SortKey(v.methods.Query().Sort) }

// selectedMethod is the method of the selected row of the page shown, or
// -1.
func (v *View) selectedMethod() int32 {
	if v.p == nil {
		return -1
	}
	switch pg := v.Current().(type) {
	case *viewer.Table:
		if pg == v.methods {
			if i := pg.Selected(); i >= 0 && i < len(v.mrows.rows) {
				return v.mrows.rows[i]
			}
		} else if c := callsOf(pg); c != nil {
			return c.method(pg.Selected())
		}
	}
	return -1
}

// SetTitle names what the view shows (e.g. the saved file's name).
func (v *View) SetTitle(title string) {
	v.opt.Title = title
	v.updateHeader()
}

func (v *View) updateHeader() {
	if v.p == nil {
		v.SetHeader("ddmtui trace  " + style.Escape(v.opt.Title))
		return
	}
	p := v.p
	q := v.methods.Query()
	// View state first (what a narrow terminal must show), facts after.
	parts := []string{style.Escape(v.opt.Title)}
	switch {
	case v.trees != nil && v.Tab() > 0:
		parts = append(parts, "call trees: "+style.Escape(v.treeStatus))
	case v.thread >= 0:
		parts = append(parts, "thread "+style.Escape(threadName(&p.Threads[v.thread])))
	default:
		parts = append(parts, "all threads")
	}
	if v.trees == nil || v.Tab() == 0 {
		order := "▼"
		if q.Reverse {
			order = "▲"
		}
		_, mc := v.methodGraph()
		parts = append(parts, fmt.Sprintf("sort %s %s %s", v.sortKey(), clockLabel(p, mc), order))
		if q.Filter != "" {
			parts = append(parts, fmt.Sprintf("filter %s (%d)", style.Escape(strconv.Quote(q.Filter)), v.methods.Len()))
		}
	}
	if g, c, ok := v.rangeGraph(); ok && (v.trees == nil || v.Tab() == 0) {
		_, from, to, _ := v.trees.M.Range()
		if p.Sampling == nil {
			parts = append(parts, fmt.Sprintf("range %s–%s ms %s (R: whole trace): %s ms", millis(uint64(from)), millis(uint64(to)), clockLabel(p, c), millis(g.Total()[c])))
		} else {
			parts = append(parts, fmt.Sprintf("range %s–%s %s (R: whole trace): %s", p.FormatDuration(c, uint64(from)), p.FormatDuration(c, uint64(to)), clockLabel(p, c), p.FormatDuration(c, g.Total()[c])))
		}
	} else {
		total := v.graph().Total()
		for _, c := range p.Clocks.List() {
			parts = append(parts, clockLabel(p, c)+" "+p.FormatDuration(c, total[c]))
		}
	}
	if v.thread < 0 {
		// A sum over the threads (each from its first record to its
		// last), not the trace's length: say so, and give the length.
		parts[len(parts)-1] += fmt.Sprintf(" over %d threads", p.ThreadsWithRecords())
		if span, ok := p.Span(); ok && p.Sampling == nil {
			parts = append(parts, "span "+millis(span)+" ms wall")
		}
	}
	if s := p.Sampling; s != nil {
		frames := "all frames"
		if v.java {
			frames = "Java only"
		}
		parts = append(parts, fmt.Sprintf("%d samples of %s, %s (J)", s.Samples, s.Event, frames))
	} else {
		parts = append(parts, fmt.Sprintf("v%d %s, %d records", p.Header.Version, p.Clocks, p.Records))
	}
	if w := p.Warnings.Total(); w > 0 {
		parts = append(parts, fmt.Sprintf("%d warnings", w))
	}
	v.SetHeader(strings.Join(parts, " │ "))
}

func threadName(tp *trace.ThreadProfile) string {
	id := strconv.FormatUint(uint64(tp.ID), 10)
	if tp.Name == "" {
		return id
	}
	return tp.Name + " (" + id + ")"
}

// updateStatus shows the selected method's signature, or the key hints.
func (v *View) updateStatus() {
	m := v.selectedMethod()
	if m < 0 || v.p == nil {
		v.SetStatus("")
		v.SetHints("? help  / filter  Enter callers/callees  t threads  i/e/c/n sort  q quit")
		return
	}
	meth := &v.p.Methods[m]
	text := style.Escape(v.p.Name(m) + " " + meth.Signature)
	if meth.File != "" {
		text += "  (" + style.Escape(meth.File) + ")"
	}
	if m >= 2 {
		text += fmt.Sprintf("  id %#x", meth.ID)
	}
	v.SetStatus(text)
	v.SetHints("? help  / filter  q quit")
}

func (v *View) scrollColumns(delta int) {
	if t, ok := v.Current().(*viewer.Table); ok {
		t.ScrollColumns(delta)
	}
}

// enter drills into the selected method's callers and callees, or, on the
// thread summary, shows the selected thread's methods.
func (v *View) enter() {
	pg, ok := v.Current().(*viewer.Table)
	if !ok || v.p == nil {
		return
	}
	if pg.Scope() == scopeThreads {
		v.setThread(pg.Selected() - 1) // row 0 is "all threads"
		return
	}
	m := v.selectedMethod()
	if c := callsOf(pg); m < 0 || (c != nil && m == c.m) {
		return
	}
	v.showCalls(m)
}

func (v *View) toggleClock() {
	if v.p == nil || v.p.Clocks != trace.Dual {
		return
	}
	v.clock = 1 - v.clock
	v.methods.Refresh()
	for _, pg := range v.Stack() {
		if t, ok := pg.(*viewer.Table); ok && t != v.methods {
			t.Refresh()
		}
	}
}

func (v *View) setThread(i int) {
	if v.p == nil || i >= len(v.p.Threads) {
		return
	}
	if i < -1 {
		i = -1
	}
	v.thread = i
	v.PopToRoot()
	v.methods.Refresh()
}
