package viewer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// FrameOptions configure a Frame.
type FrameOptions struct {
	Palette style.Palette
	// HelpTitle heads the help page, e.g. "Thread dump keys".
	HelpTitle string
	// Item names what the movement keys move, in help ("next "+Item).
	Item string
	// HomeEndOnly leaves g and G to the view: Home and End go to the ends.
	HomeEndOnly bool
	// FilterHelp describes the / filter in help.
	FilterHelp string
	// Quit is called by q; nil leaves q without effect (an embedding
	// decides itself when to leave).
	Quit func()
	// QuitHelp is what q says in help: "quit" when empty; a view the
	// dashboard shows over its panes, where q goes back to them, says so
	// (BackToDashboard, or SetQuitHelp from the embedding).
	QuitHelp string
	// Copy, when set, is what y copies: a description and the text.
	Copy func() (what, text string)
	// CopyHelp describes y in help.
	CopyHelp string
}

// Frame is the base every table viewer embeds: a header line, a tab bar
// when there are several tabs, the pages, and a footer with key hints,
// messages, background progress and the / prompt. It owns the input: the
// prompt, the generated help page (?), the movement keys, back
// (Backspace/Esc), the filter, copy (y), quit (q), and the keys its pages
// and the view register; a view adds only its pages and its actions.
type Frame struct {
	*tview.Flex
	opt    FrameOptions
	header *tview.TextView
	tabBar *tview.TextView
	body   *tview.Pages
	help   *tview.TextView
	footer *Footer
	keys   *keymap.Map

	viewKeys []keymap.Binding
	pageKeys []keymap.Binding
	scopes   map[string]bool

	tabs      []*tab
	cur       int
	names     map[Page]string
	nextName  int
	helpShown bool
	filtering Filterable // the page the open prompt filters

	hints, status, message, notice, progress string

	setFocus func(tview.Primitive)
	runner   Runner
}

type tab struct{ stack []Page }

// NewFrame returns a frame without pages; AddTab gives it its first.
func NewFrame(opt FrameOptions) *Frame {
	f := &Frame{opt: opt, scopes: map[string]bool{}, names: map[Page]string{}}
	if f.opt.Item == "" {
		f.opt.Item = "row"
	}
	if f.opt.FilterHelp == "" {
		f.opt.FilterHelp = "filter the rows (!text excludes)"
	}
	f.header = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	f.header.SetTextColor(opt.Palette.Accent())
	f.tabBar = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	f.footer = NewFooter(func(s string) {
		if f.filtering != nil {
			f.filtering.SetFilter(s)
		}
	}).DynamicColors()
	f.help = tview.NewTextView().SetDynamicColors(false).SetWrap(false).SetScrollable(true)
	f.body = tview.NewPages().AddPage("help", f.help, true, false)
	f.keys = keymap.New()
	f.Flex = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(f.header, 1, 0, false).
		AddItem(f.tabBar, 0, 0, false).
		AddItem(f.body, 0, 1, false).
		AddItem(f.footer, 1, 0, false)
	f.rebuildKeys()
	return f
}

// Palette returns the frame's colours.
func (f *Frame) Palette() style.Palette { return f.opt.Palette }

// Keys returns the frame's key table: the frame's own keys, the view's,
// and its pages'. Help is generated from it.
func (f *Frame) Keys() *keymap.Map { return f.keys }

// AddKeys adds the view's bindings (scoped ones act only on pages of that
// scope), listed in help after the movement keys.
func (f *Frame) AddKeys(b ...keymap.Binding) {
	f.viewKeys = append(f.viewKeys, b...)
	f.rebuildKeys()
}

// Footer returns the footer (its prompt field gets the focus while a
// filter is typed).
func (f *Frame) Footer() *Footer { return f.footer }

// SetHeader sets the header line (tview tags; escape peer strings).
func (f *Frame) SetHeader(text string) { f.header.SetText(text) }

// Header returns the header line's widget.
func (f *Frame) Header() *tview.TextView { return f.header }

// AddBar adds a line (or lines) between the header and the pages: a
// banner, a selector. The view sizes it with ResizeItem in its Draw.
func (f *Frame) AddBar(p tview.Primitive, height int) {
	f.RemoveItem(f.body)
	f.RemoveItem(f.footer)
	f.AddItem(p, height, 0, false).AddItem(f.body, 0, 1, false).AddItem(f.footer, 1, 0, false)
}

// Register makes page p known to the frame (its keys join the key table)
// before it is first shown, as pages pushed later must be for help and
// the configuration's key checks to see their keys.
func (f *Frame) Register(p Page) {
	if _, ok := f.names[p]; ok {
		return
	}
	f.nextName++
	name := "p" + strconv.Itoa(f.nextName)
	f.names[p] = name
	f.body.AddPage(name, p, true, false)
	if k, ok := p.(keyed); ok && !f.scopes[p.Scope()] {
		f.scopes[p.Scope()] = true
		f.pageKeys = append(f.pageKeys, k.pageKeys(f)...)
		f.rebuildKeys()
	}
	if t, ok := p.(*Table); ok {
		t.frame = f
		t.SetDetailFocus(t.detailFocus) // in the frame's colours
	}
}

// AddTab adds a tab whose first page is root and returns its index; the
// first tab added is shown.
func (f *Frame) AddTab(root Page) int {
	f.Register(root)
	f.tabs = append(f.tabs, &tab{stack: []Page{root}})
	if len(f.tabs) == 2 {
		f.rebuildKeys() // the tab keys
	}
	if len(f.tabs) == 1 {
		f.show()
	}
	f.updateTabBar()
	return len(f.tabs) - 1
}

// SetRoot replaces tab i's pages with root (e.g. a table once its data
// has loaded, or a message saying why there is none).
func (f *Frame) SetRoot(i int, root Page) {
	if i < 0 || i >= len(f.tabs) {
		return
	}
	old := f.tabs[i].stack
	f.Register(root)
	f.tabs[i].stack = []Page{root}
	f.forget(old...)
	if i == f.cur {
		f.show()
	}
	f.updateTabBar()
}

// Current returns the page shown (nil before AddTab).
func (f *Frame) Current() Page {
	if f.cur >= len(f.tabs) {
		return nil
	}
	st := f.tabs[f.cur].stack
	return st[len(st)-1]
}

// Depth is the number of pages on the current tab's stack.
func (f *Frame) Depth() int {
	if f.cur >= len(f.tabs) {
		return 0
	}
	return len(f.tabs[f.cur].stack)
}

// Push shows p on top of the current tab's pages (Enter on a row drills
// in); Back returns from it.
func (f *Frame) Push(p Page) {
	if f.cur >= len(f.tabs) {
		f.AddTab(p)
		return
	}
	f.Register(p)
	f.tabs[f.cur].stack = append(f.tabs[f.cur].stack, p)
	f.show()
}

// Pop leaves the page on top of the current tab, if it is not the root,
// and reports whether it did.
func (f *Frame) Pop() bool {
	if f.Depth() < 2 {
		return false
	}
	t := f.tabs[f.cur]
	top := t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	f.forget(top)
	f.show()
	return true
}

// PopToRoot leaves every page above the current tab's root.
func (f *Frame) PopToRoot() {
	for f.Pop() {
	}
}

// forget drops pages no tab shows any more from the body (their scope's
// keys stay declared; Register adds a page back); a page that holds
// something until it is left (a picture charged to the memory budget) is
// told: Release.
func (f *Frame) forget(pages ...Page) {
	for _, p := range pages {
		if f.inUse(p) {
			continue
		}
		if r, ok := p.(interface{ Release() }); ok {
			r.Release()
		}
		if name, ok := f.names[p]; ok {
			f.body.RemovePage(name)
			delete(f.names, p)
		}
	}
}

// ReleasePages tells every page of every tab that holds something until
// it is left (Release) that it is: the view closes.
func (f *Frame) ReleasePages() {
	for _, t := range f.tabs {
		for _, p := range t.stack {
			if r, ok := p.(interface{ Release() }); ok {
				r.Release()
			}
		}
	}
}

func (f *Frame) inUse(p Page) bool {
	for _, t := range f.tabs {
		for _, q := range t.stack {
			if q == p {
				return true
			}
		}
	}
	return false
}

// Stack returns the current tab's pages, its root first.
func (f *Frame) Stack() []Page {
	if f.cur >= len(f.tabs) {
		return nil
	}
	return append([]Page(nil), f.tabs[f.cur].stack...)
}

// Tab returns the index of the tab shown.
func (f *Frame) Tab() int { return f.cur }

// SelectTab shows tab i.
func (f *Frame) SelectTab(i int) {
	if i < 0 || i >= len(f.tabs) || f.helpShown {
		return
	}
	f.cur = i
	f.show()
}

// show switches the body to the current page and refreshes the bars.
func (f *Frame) show() {
	p := f.Current()
	if p == nil {
		return
	}
	if !f.helpShown {
		f.body.SwitchToPage(f.names[p])
	}
	f.updateTabBar()
	f.updateFooter()
}

func (f *Frame) updateTabBar() {
	if len(f.tabs) < 2 {
		f.ResizeItem(f.tabBar, 0, 0)
		return
	}
	f.ResizeItem(f.tabBar, 1, 0)
	parts := make([]string, len(f.tabs))
	for i, t := range f.tabs {
		titles := make([]string, len(t.stack))
		for j, p := range t.stack {
			titles[j] = style.Escape(p.Title())
		}
		s := fmt.Sprintf(" %d %s ", i+1, strings.Join(titles, " › "))
		if i == f.cur {
			s = "[::r]" + s + "[::-]"
		}
		parts[i] = s
	}
	f.tabBar.SetText(strings.Join(parts, "│"))
}

// SetHints sets the footer's key hints (plain text).
func (f *Frame) SetHints(s string) { f.hints = s; f.updateFooter() }

// SetStatus sets the footer's detail of the selection (tview tags; escape
// peer strings), shown before the hints.
func (f *Frame) SetStatus(s string) { f.status = s; f.updateFooter() }

// SetMessage shows msg (plain text: an error, "fetching…") in the footer
// until it is replaced; "" clears it.
func (f *Frame) SetMessage(msg string) { f.message = msg; f.updateFooter() }

// Notify shows msg (plain text) in the footer until the next key.
func (f *Frame) Notify(msg string) { f.notice = msg; f.updateFooter() }

// SetProgress shows the progress of background work (plain text); ""
// clears it. Work sets it itself.
func (f *Frame) SetProgress(s string) { f.progress = s; f.updateFooter() }

// Progress returns the progress shown ("" when none).
func (f *Frame) Progress() string { return f.progress }

func (f *Frame) updateFooter() {
	if f.helpShown {
		f.footer.SetStatus("Esc or ? closes the help")
		return
	}
	hints := f.hints
	if h, ok := f.Current().(Hinted); ok && h.Hints() != "" {
		hints = h.Hints()
	}
	var parts []string
	for _, s := range []string{f.progress, f.notice, f.message} {
		if s != "" {
			parts = append(parts, style.Escape(s))
		}
	}
	if f.status != "" {
		parts = append(parts, f.status)
	}
	if hints != "" {
		parts = append(parts, style.EscapeTags(hints))
	}
	f.footer.SetStatus(strings.Join(parts, "  │  "))
}
