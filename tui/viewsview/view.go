// Package viewsview is the layout inspector's pane: an app's windows, the
// selected window's view tree (expand, collapse, filter with `/`), the
// selected view's properties by category, and a wireframe of the window
// drawn from the views' bounds (GONE views left out, INVISIBLE ones dimmed,
// the selection highlighted) — or the selected view's capture drawn with
// half-block cells, saved as PNG on a key. Keys invalidate the view,
// request a layout or toggle its visibility, and the tree is dumped again
// after each; R dumps again, nothing polls (a dump costs the app's UI
// thread).
//
// View is a tview.Primitive the dashboard embeds. It asks the VM through
// a Source, off the UI goroutine, through the Go function its embedding
// gives (which owns the goroutine and hands the result back to the UI
// goroutine). Strings from the app go through safetext before tview.
package viewsview

import (
	"context"
	"fmt"
	"image"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
	"github.com/ddmtui/ddmtui/viewtree"
)

// Source is what the pane asks of the VM (the engine's session, or a
// replay's recorded dumps).
type Source interface {
	Windows(ctx context.Context) ([]string, error)
	Dump(ctx context.Context, window string) (*viewtree.Tree, error)
	Capture(ctx context.Context, window, view string) ([]byte, error)
	Invoke(ctx context.Context, window, view, method string, args []ddm.ViewArg) (*viewtree.Return, error)
	Profile(ctx context.Context, window, view string) ([]viewtree.Timing, error)
}

// Options configure a View.
type Options struct {
	Palette style.Palette
	// Quit is called by q.
	Quit func()
	// Go runs work off the UI goroutine; the function work returns is run
	// on the UI goroutine. name says which job (a newer one replaces it).
	Go func(name string, work func(ctx context.Context) func())
	// Save stores a capture's PNG under a name made of the title and the
	// view, and returns where (nil: s is not offered); it runs through Go,
	// off the UI goroutine.
	Save func(ctx context.Context, name string, data []byte) (string, error)
}

// minPicture is the smallest area a capture is drawn in (cells).
const (
	minPictureW = 16
	minPictureH = 6
)

// View is the layout inspector pane.
type View struct {
	*tview.Flex
	opt    Options
	header *tview.TextView
	pages  *tview.Pages
	tree   *treeBox
	pic    *picBox
	props  *tview.TextView
	body   *tview.Flex
	shape  [3]int // the body's layout: width, height, wireframe columns
	help   *tview.TextView
	footer *viewer.Footer
	keys   *keymap.Map

	title    string
	src      Source
	windows  []string
	win      int
	t        *viewtree.Tree
	treeErr  string
	filter   string
	closed   map[string]bool // collapsed views, by class@hash, kept across dumps
	rows     []int32         // the nodes listed, in order
	sel, top int

	capture     image.Image
	captureOf   string
	capturePNG  []byte
	showCapture bool
	profile     []viewtree.Timing
	profileOf   string
	message     string
	helpShown   bool
}

// New returns an empty pane; Open points it at a VM.
func New(opt Options) *View {
	v := &View{opt: opt, closed: map[string]bool{}}
	v.header = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	v.header.SetTextColor(opt.Palette.Accent())
	v.footer = viewer.NewFooter(v.applyFilter).DynamicColors()
	v.tree = &treeBox{Box: tview.NewBox(), v: v}
	v.tree.SetBorder(true).SetBorderColor(opt.Palette.Accent()).SetTitle(" Views ")
	v.pic = &picBox{Box: tview.NewBox(), v: v}
	v.pic.SetBorder(true).SetBorderColor(opt.Palette.Accent())
	v.props = tview.NewTextView().SetDynamicColors(true).SetWrap(false).SetScrollable(true)
	v.props.SetBorder(true).SetBorderColor(opt.Palette.Accent()).SetTitle(" Properties ")
	v.body = tview.NewFlex()
	v.keys = v.keyTable()
	v.help = viewer.HelpView("Views keys (press ? or Esc to close)", v.keys)
	v.pages = tview.NewPages().AddPage("body", v.body, true, true).AddPage("help", v.help, true, false)
	v.Flex = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.header, 1, 0, false).AddItem(v.pages, 0, 1, false).AddItem(v.footer, 1, 0, false)
	v.update()
	return v
}

func (v *View) keyTable() *keymap.Map {
	nav, tree, view, act, gen := "Move", "Tree", "View", "Act on the view", "General"
	b := keymap.Bind
	m := keymap.New(keymap.MoveKeys(nav, "view", true, v.move, v.pageSize)...)
	m.Add(
		b(tcell.KeyEnter, 0, "Enter", "expand / collapse the selected view", tree, v.toggle).As("toggle"),
		b(tcell.KeyRune, '*', "*", "expand every view", tree, func() { v.setAll(false) }).As("expand-all"),
		b(tcell.KeyRune, '-', "-", "collapse every view below the root", tree, func() { v.setAll(true) }).As("collapse-all"),
		b(tcell.KeyRune, '/', "/", "filter by class, id or text (!text excludes)", tree, v.startFilter).As("filter"),
		b(tcell.KeyEscape, 0, "Esc", "clear the filter, or back to the wireframe", tree, v.escape),
		b(tcell.KeyRune, 'w', "w", "next window", view, func() { v.nextWindow(1) }).As("next-window"),
		b(tcell.KeyRune, 'W', "W", "previous window", view, func() { v.nextWindow(-1) }).As("previous-window"),
		b(tcell.KeyRune, 'R', "R", "dump the window again (costs the app's UI thread)", view, v.Refresh).As("refresh"),
		b(tcell.KeyRune, 'c', "c", "capture the selected view and draw it (c again: the wireframe)", view, v.toggleCapture).As("capture"),
		b(tcell.KeyRune, 'P', "P", "profile the selected subtree (measure, layout, draw)", view, v.doProfile).As("profile"),
		b(tcell.KeyRune, 'i', "i", "invalidate the selected view, then dump again", act, func() { v.invoke("invalidate") }).As("invalidate"),
		b(tcell.KeyRune, 'L', "L", "request a layout of the selected view, then dump again", act, func() { v.invoke("requestLayout") }).As("request-layout"),
		b(tcell.KeyRune, 'v', "v", "toggle the selected view VISIBLE / INVISIBLE, then dump again", act, v.toggleVisibility).As("toggle-visibility"),
	)
	if v.opt.Save != nil {
		m.Add(b(tcell.KeyRune, 's', "s", "save the selected view's capture as PNG", view, v.save).As("save-capture"))
	}
	m.Add(
		b(tcell.KeyRune, '?', "?", "this help", gen, v.toggleHelp).As("help"),
		b(tcell.KeyRune, 'q', "q", "back to the dashboard", gen, v.quit).As("quit"),
	)
	return m
}

// wideLayout is the width from which the wireframe gets a column of its
// own between the tree and the properties.
const wideLayout = 110

// Draw lays the body out for the screen's size, then draws.
func (v *View) Draw(s tcell.Screen) {
	_, _, w, h := v.GetRect()
	v.layout(w, h)
	v.Flex.Draw(s)
}

// layout puts the tree, the wireframe and the properties side by side
// when the terminal is wide (the wireframe as wide as the window's shape
// needs at that height), else the wireframe over the properties.
func (v *View) layout(w, h int) {
	ww, wh := int32(9), int32(20) // a phone, until a dump says
	if v.t != nil && len(v.t.Nodes) > 0 && v.t.Nodes[0].Width > 0 && v.t.Nodes[0].Height > 0 {
		ww, wh = v.t.Nodes[0].Width, v.t.Nodes[0].Height
	}
	cols := 0
	if w >= wideLayout {
		inner := max(h-4, 1) // header, footer, borders
		cols = min(w/3, max(minPictureW, int(int64(inner)*2*int64(ww)/int64(wh))+2))
	}
	if shape := [3]int{w, h, cols}; shape == v.shape {
		return
	} else {
		v.shape = shape
	}
	v.body.Clear()
	if cols > 0 {
		v.body.AddItem(v.tree, 0, 1, false).AddItem(v.pic, cols, 0, false).AddItem(v.props, 0, 1, false)
		return
	}
	pic, props := 3, 2
	if h < 30 {
		pic, props = 2, 1 // a small terminal: the wireframe needs the rows
	}
	right := tview.NewFlex().SetDirection(tview.FlexRow).AddItem(v.pic, 0, pic, false).AddItem(v.props, 0, props, false)
	v.body.AddItem(v.tree, 0, 1, false).AddItem(right, 0, 1, false)
}

// Keys returns the pane's key table.
func (v *View) Keys() *keymap.Map { return v.keys }

// InputHandler routes keys: to the prompt while filtering, to help while
// shown, else through the key table.
func (v *View) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return v.WrapInputHandler(func(ev *tcell.EventKey, setFocus func(p tview.Primitive)) {
		switch {
		case v.footer.Prompting():
			if h := v.footer.Input(); h != nil {
				h(ev, setFocus)
			}
		case v.helpShown:
			if ev.Key() == tcell.KeyEscape || ev.Rune() == '?' || ev.Rune() == 'q' {
				v.toggleHelp()
			} else if ev.Key() != tcell.KeyRune {
				v.help.InputHandler()(ev, setFocus)
			}
		default:
			v.keys.Handle(ev)
		}
	})
}

// Open shows the VM title's windows through src and dumps the first.
func (v *View) Open(title string, src Source) {
	v.title, v.src = title, src
	v.windows, v.win, v.t, v.treeErr = nil, 0, nil, ""
	v.rows, v.sel, v.top = nil, 0, 0
	v.clearPicture()
	v.message = "listing the windows…"
	v.update()
	v.Refresh()
}

// Refresh lists the windows again and dumps the current one.
func (v *View) Refresh() {
	src := v.src
	if src == nil || v.opt.Go == nil {
		return
	}
	want := v.window()
	v.message = "dumping…"
	v.update()
	v.opt.Go("views-dump", func(ctx context.Context) func() {
		names, err := src.Windows(ctx)
		if err != nil {
			return func() {
				if v.src == src {
					v.windows, v.t, v.rows, v.treeErr, v.message = nil, nil, nil, err.Error(), ""
					v.update()
				}
			}
		}
		win := 0
		for i, n := range names {
			if n == want {
				win = i
			}
		}
		t, derr := src.Dump(ctx, names[win])
		return func() {
			if v.src == src {
				v.windows, v.win = names, win
				v.SetTree(t, derr)
			}
		}
	})
}

// SetTree shows a window's dump (or why there is none), keeping the
// selected view when it is still there.
func (v *View) SetTree(t *viewtree.Tree, err error) {
	keep := v.selectedName()
	v.message = ""
	if err != nil {
		v.t, v.rows, v.treeErr = nil, nil, err.Error()
		v.update()
		return
	}
	v.t, v.treeErr = t, ""
	v.relist()
	v.sel = 0
	if keep != "" {
		if i := t.Find(keep); i >= 0 {
			v.reveal(i)
		}
	}
	v.update()
}

// Tree is the tree shown.
func (v *View) Tree() *viewtree.Tree { return v.t }

func (v *View) window() string {
	if v.win < len(v.windows) {
		return v.windows[v.win]
	}
	return ""
}

// selected is the selected node's index, -1 when none.
func (v *View) selected() int {
	if v.t == nil || v.sel < 0 || v.sel >= len(v.rows) {
		return -1
	}
	return int(v.rows[v.sel])
}

func (v *View) selectedName() string {
	if i := v.selected(); i >= 0 {
		return v.t.Nodes[i].Name()
	}
	return ""
}

func (v *View) nextWindow(d int) {
	if len(v.windows) < 2 {
		v.flash("this app has one window")
		return
	}
	v.win = (v.win + d + len(v.windows)) % len(v.windows)
	v.clearPicture()
	name, src := v.window(), v.src
	v.message = "dumping…"
	v.update()
	v.opt.Go("views-dump", func(ctx context.Context) func() {
		t, err := src.Dump(ctx, name)
		return func() {
			if v.window() == name && v.src == src {
				v.SetTree(t, err)
			}
		}
	})
}

func (v *View) clearPicture() {
	v.capture, v.captureOf, v.capturePNG, v.showCapture = nil, "", nil, false
	v.profile, v.profileOf = nil, ""
}

func (v *View) flash(msg string) {
	v.message = msg
	v.update()
}

func (v *View) toggleHelp() {
	v.helpShown = !v.helpShown
	if v.helpShown {
		v.pages.SwitchToPage("help")
	} else {
		v.pages.SwitchToPage("body")
	}
}

func (v *View) quit() {
	if v.opt.Quit != nil {
		v.opt.Quit()
	}
}

func (v *View) escape() {
	switch {
	case v.showCapture:
		v.showCapture = false
		v.update()
	case v.filter != "":
		v.footer.SetFilter("")
		v.applyFilter("")
	}
}

func (v *View) startFilter() { v.footer.Ask(v.filter, nil) }

func (v *View) applyFilter(s string) {
	keep := v.selected()
	v.filter = s
	v.relist()
	v.sel = 0
	if keep >= 0 {
		v.reveal(keep)
	}
	v.update()
}

// update redraws the header, the properties and the footer.
func (v *View) update() {
	parts := []string{"ddmtui views"}
	if v.title != "" {
		parts = append(parts, style.Escape(v.title))
	}
	if v.t != nil {
		s := fmt.Sprintf("%d views, %s dump", v.t.Count(), v.t.Format)
		if v.t.Truncated {
			s += ", [::b]cut short[::-] (UI thread busy)"
		}
		parts = append(parts, s)
	}
	if w := v.window(); w != "" {
		parts = append(parts, fmt.Sprintf("window %d/%d %s", v.win+1, len(v.windows), style.Escape(w)))
	}
	v.header.SetText(strings.Join(parts, " │ "))
	v.props.SetText(v.propsText())
	v.props.ScrollToBeginning()
	title := " Wireframe "
	if v.showCapture {
		cls, hash, _ := viewtree.SplitName(v.captureOf)
		if d := strings.LastIndexByte(cls, '.'); d >= 0 {
			cls = cls[d+1:]
		}
		title = fmt.Sprintf(" Capture: %s@%x ", style.Escape(cls), hash)
	}
	v.pic.SetTitle(title)
	v.tree.SetTitle(fmt.Sprintf(" Views %d/%d ", len(v.rows), v.count()))
	keys := "? help  Enter fold  / filter  w window  c capture  i/L/v act  R dump  q back"
	if v.message != "" {
		v.footer.SetStatus(style.Escape(v.message) + "  │  " + keys)
		return
	}
	v.footer.SetStatus(keys)
}

func (v *View) count() int {
	if v.t == nil {
		return 0
	}
	return v.t.Count()
}
