package viewer

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/tui/clip"
	"github.com/ddmtui/ddmtui/tui/keymap"
)

// The frame's input: its key table, the routing of keys, help, back, the
// filter prompt and copy.

// rebuildKeys assembles the key table: movement and back, the view's
// keys, the pages' keys, the filter, the tabs, then copy, help and quit.
func (f *Frame) rebuildKeys() {
	nav, find, gen := "Move", "Find", "General"
	b := keymap.Bind
	bs := keymap.MoveKeys(nav, f.opt.Item, !f.opt.HomeEndOnly, f.move, f.pageSize)
	bs = append(bs,
		b(tcell.KeyBackspace2, 0, "Backspace/Esc", "back: close help, leave the page, or clear the filter", nav, f.Back).As("back"),
		keymap.Alias(tcell.KeyBackspace, 0, f.Back).As("back"),
		keymap.Alias(tcell.KeyEscape, 0, f.Back).As("back"))
	bs = append(bs, f.viewKeys...)
	bs = append(bs, f.pageKeys...)
	bs = append(bs, b(tcell.KeyRune, '/', "/", f.opt.FilterHelp, find, f.StartFilter).As("filter"))
	if len(f.tabs) > 1 {
		for i := 1; i <= 9; i++ {
			i := i
			bs = append(bs, keymap.Alias(tcell.KeyRune, rune('0'+i), func() { f.SelectTab(i - 1) }))
		}
		bs = append(bs,
			b(tcell.KeyRune, '1', "1…9", "show tab 1 … 9", nav, func() { f.SelectTab(0) }).As("tab-1"),
			b(tcell.KeyCtrlN, 0, "Ctrl-N/Ctrl-P", "next / previous tab", nav, func() { f.SelectTab((f.cur + 1) % len(f.tabs)) }).As("next-tab"),
			keymap.Alias(tcell.KeyCtrlP, 0, func() { f.SelectTab((f.cur + len(f.tabs) - 1) % len(f.tabs)) }).As("previous-tab"))
	}
	if f.opt.Copy != nil {
		help := f.opt.CopyHelp
		if help == "" {
			help = "copy the selection to the clipboard (OSC 52)"
		}
		bs = append(bs, b(tcell.KeyRune, 'y', "y", help, gen, f.copy).As("copy"))
	}
	bs = append(bs,
		b(tcell.KeyRune, '?', "?", "this help", gen, f.ToggleHelp).As("help"),
		b(tcell.KeyRune, 'q', "q", f.quitHelp(), gen, f.quit).As("quit"))
	f.keys.Set(bs...)
}

// BackToDashboard is the help of q in a view the dashboard shows over its
// panes.
const BackToDashboard = "back to the dashboard"

func (f *Frame) quitHelp() string {
	if f.opt.QuitHelp == "" {
		return "quit"
	}
	return f.opt.QuitHelp
}

// SetQuitHelp sets what q says in help (FrameOptions.QuitHelp): the
// dashboard, which embeds the viewers the standalone commands also run,
// says that q goes back to it.
func (f *Frame) SetQuitHelp(help string) {
	f.opt.QuitHelp = help
	f.rebuildKeys()
}

// QuitHint is q's word in a footer's key hints: "q quit", or "q back" when
// q leaves the view for the one beneath.
func (f *Frame) QuitHint() string {
	if f.opt.QuitHelp == "" || f.opt.QuitHelp == "quit" {
		return "q quit"
	}
	return "q back"
}

func (f *Frame) move(delta int) {
	if p := f.Current(); p != nil {
		p.Move(delta)
	}
}

func (f *Frame) pageSize() int {
	if p := f.Current(); p != nil {
		return p.PageSize()
	}
	return 1
}

func (f *Frame) quit() {
	if f.opt.Quit != nil {
		f.opt.Quit()
	}
}

// copy copies what opt.Copy returns through OSC 52, each line made safe
// for the terminal, and says so in the footer.
func (f *Frame) copy() {
	what, text := f.opt.Copy()
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = safetext.Terminal(l)
	}
	f.Notify(clip.Do(what, strings.Join(lines, "\n")))
}

// HelpShown reports whether the help page is shown.
func (f *Frame) HelpShown() bool { return f.helpShown }

// ToggleHelp shows or hides the help page, generated from the key table
// as it is bound now.
func (f *Frame) ToggleHelp() {
	f.helpShown = !f.helpShown
	if f.helpShown {
		title := f.opt.HelpTitle
		if title == "" {
			title = "Keys"
		}
		f.help.SetText(title + " (press ? or Esc to close; arrows scroll)\n\n" + f.keys.HelpText())
		f.help.ScrollToBeginning()
		f.body.SwitchToPage("help")
	} else if p := f.Current(); p != nil {
		f.body.SwitchToPage(f.names[p])
	}
	f.updateFooter()
}

// Back closes help, else leaves the page drilled into, else clears the
// root page's filter.
func (f *Frame) Back() {
	switch {
	case f.helpShown:
		f.ToggleHelp()
	case f.Pop():
	default:
		if fp, ok := filterable(f.Current()); ok && fp.Filter() != "" {
			fp.SetFilter("")
		}
	}
}

// filterable returns p as a Filterable, unless it is not one or says it
// does not filter.
func filterable(p Page) (Filterable, bool) {
	fp, ok := p.(Filterable)
	if o, can := p.(interface{ Filterable() bool }); ok && can && !o.Filterable() {
		return nil, false
	}
	return fp, ok
}

// StartFilter opens the / prompt on the page shown, or on its tab's root
// when the page shown cannot be filtered (leaving the pages above it).
func (f *Frame) StartFilter() {
	fp, ok := filterable(f.Current())
	if !ok {
		if f.Depth() == 0 {
			return
		}
		root, isF := filterable(f.tabs[f.cur].stack[0])
		if !isF {
			return
		}
		f.PopToRoot()
		fp = root
	}
	f.filtering = fp
	f.footer.Ask(fp.Filter(), func() {
		f.filtering = nil
		if f.setFocus != nil {
			f.setFocus(f)
		}
		f.updateFooter()
	})
	if f.setFocus != nil {
		f.setFocus(f.footer.Field())
	}
}

// InputHandler routes keys: to the prompt while it is open; to closing
// and scrolling while help is shown; else through the page's scoped
// keys, then the frame's table; what is left goes to a custom page.
func (f *Frame) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return f.WrapInputHandler(func(ev *tcell.EventKey, setFocus func(p tview.Primitive)) {
		f.setFocus = setFocus
		if f.footer.Prompting() {
			if h := f.footer.Input(); h != nil {
				h(ev, setFocus)
			}
			return
		}
		if f.notice != "" {
			f.notice = ""
			f.updateFooter()
		}
		if f.helpShown {
			f.helpInput(ev, setFocus)
			return
		}
		p := f.Current()
		if p != nil && p.Scope() != "" && f.keys.HandleScope(ev, p.Scope()) {
			return
		}
		if f.keys.Handle(ev) {
			return
		}
		if p != nil {
			passKey(p, ev, setFocus)
		}
	})
}

// helpInput: Esc, ? and q close help; the movement keys scroll it.
func (f *Frame) helpInput(ev *tcell.EventKey, setFocus func(tview.Primitive)) {
	k := f.keys
	scroll := func(d int) {
		row, col := f.help.GetScrollOffset()
		f.help.ScrollTo(max(0, row+d), col)
	}
	_, _, _, h := f.help.GetInnerRect()
	switch {
	case ev.Key() == tcell.KeyEscape || k.Matches(ev, "help") || k.Matches(ev, "quit") || k.Matches(ev, "back"):
		f.ToggleHelp()
	case k.Matches(ev, "down"):
		scroll(1)
	case k.Matches(ev, "up"):
		scroll(-1)
	case k.Matches(ev, "page-down"):
		scroll(max(1, h-1))
	case k.Matches(ev, "page-up"):
		scroll(-max(1, h-1))
	case k.Matches(ev, "first"):
		f.help.ScrollToBeginning()
	case k.Matches(ev, "last"):
		f.help.ScrollToEnd()
	case ev.Key() != tcell.KeyRune:
		f.help.InputHandler()(ev, setFocus)
	}
}

// Focus gives the focus to the prompt while it is open.
func (f *Frame) Focus(delegate func(p tview.Primitive)) {
	if f.footer.Prompting() {
		delegate(f.footer.Field())
		return
	}
	f.Flex.Focus(delegate)
}
