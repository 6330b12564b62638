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
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/pixbound"
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

// View is the layout inspector pane: a viewer.Frame (header, footer with
// the / prompt and messages, generated help, movement, back, quit) around
// one page the pane draws itself (the tree, the wireframe or capture, the
// properties).
type View struct {
	*viewer.Frame
	opt   Options
	page  *bodyPage
	tree  *treeBox
	pic   *picBox
	props *tview.TextView
	body  *tview.Flex
	shape [3]int // the body's layout: width, height, wireframe columns

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

	capture     *pixbound.Kept // the picture and its PNG, charged to the memory budget while kept
	captureOf   string
	showCapture bool
	profile     []viewtree.Timing
	profileOf   string
	message     string
}

// bodyPage is the frame's one page: the pane's own drawing, moved and
// filtered by the frame's keys.
type bodyPage struct {
	*tview.Flex
	v *View
}

func (p *bodyPage) Title() string       { return "Views" }
func (p *bodyPage) Scope() string       { return "" }
func (p *bodyPage) Move(delta int)      { p.v.move(delta) }
func (p *bodyPage) PageSize() int       { return p.v.pageSize() }
func (p *bodyPage) Filter() string      { return p.v.filter }
func (p *bodyPage) SetFilter(s string)  { p.v.applyFilter(s) }
func (p *bodyPage) Draw(s tcell.Screen) { p.v.layout(); p.Flex.Draw(s) }

// New returns an empty pane; Open points it at a VM.
func New(opt Options) *View {
	v := &View{opt: opt, closed: map[string]bool{}}
	v.Frame = viewer.NewFrame(viewer.FrameOptions{Palette: opt.Palette, HelpTitle: "Views keys", Item: "view",
		FilterHelp: "filter the tree by class, id, text or hash (!text excludes)", Quit: opt.Quit, QuitHelp: viewer.BackToDashboard})
	v.tree = &treeBox{Box: tview.NewBox(), v: v}
	v.tree.SetBorder(true).SetBorderColor(opt.Palette.Accent()).SetTitle(" Views ")
	v.pic = &picBox{Box: tview.NewBox(), v: v}
	v.pic.SetBorder(true).SetBorderColor(opt.Palette.Accent())
	v.props = tview.NewTextView().SetDynamicColors(true).SetWrap(false).SetScrollable(true)
	v.props.SetBorder(true).SetBorderColor(opt.Palette.Accent()).SetTitle(" Properties ")
	v.body = tview.NewFlex()
	v.page = &bodyPage{Flex: v.body, v: v}
	v.AddTab(v.page)
	v.AddKeys(v.keyBindings()...)
	v.SetHints("Enter fold  / filter  w window  c capture  i/L/v act  R dump  ? help  q back")
	v.update()
	return v
}

func (v *View) keyBindings() []keymap.Binding {
	tree, view, act := "Tree", "View", "Act on the view"
	b := keymap.Bind
	bs := []keymap.Binding{
		b(tcell.KeyEnter, 0, "Enter", "expand / collapse the selected view", tree, v.toggle).As("toggle"),
		b(tcell.KeyRune, '*', "*", "expand every view", tree, func() { v.setAll(false) }).As("expand-all"),
		b(tcell.KeyRune, '-', "-", "collapse every view below the root", tree, func() { v.setAll(true) }).As("collapse-all"),
		b(tcell.KeyRune, 'w', "w", "next window", view, func() { v.nextWindow(1) }).As("next-window"),
		b(tcell.KeyRune, 'W', "W", "previous window", view, func() { v.nextWindow(-1) }).As("previous-window"),
		b(tcell.KeyRune, 'R', "R", "dump the window again (costs the app's UI thread)", view, v.Refresh).As("refresh"),
		b(tcell.KeyRune, 'c', "c", "capture the selected view and draw it (c again: the wireframe)", view, v.toggleCapture).As("capture"),
		b(tcell.KeyRune, 'P', "P", "profile the selected subtree (measure, layout, draw)", view, v.doProfile).As("profile"),
		b(tcell.KeyRune, ']', "]/[", "scroll the properties down / up", view, func() { v.scrollProps(1) }).As("properties-down"),
		keymap.Alias(tcell.KeyRune, '[', func() { v.scrollProps(-1) }).As("properties-up"),
		b(tcell.KeyRune, 'i', "i", "invalidate the selected view, then dump again", act, func() { v.invoke("invalidate") }).As("invalidate"),
		b(tcell.KeyRune, 'L', "L", "request a layout of the selected view, then dump again", act, func() { v.invoke("requestLayout") }).As("request-layout"),
		b(tcell.KeyRune, 'v', "v", "toggle the selected view VISIBLE / INVISIBLE, then dump again", act, v.toggleVisibility).As("toggle-visibility"),
	}
	if v.opt.Save != nil {
		bs = append(bs, b(tcell.KeyRune, 's', "s", "save the selected view's capture as PNG", view, v.save).As("save-capture"))
	}
	return bs
}

// scrollProps scrolls the properties by most of their height.
func (v *View) scrollProps(dir int) {
	_, _, _, h := v.props.GetInnerRect()
	row, _ := v.props.GetScrollOffset()
	v.props.ScrollTo(max(0, row+dir*max(1, h-2)), 0)
}

// wideLayout is the width from which the wireframe gets a column of its
// own between the tree and the properties.
const wideLayout = 110

// layout puts the tree, the wireframe and the properties side by side
// when the terminal is wide (the wireframe as wide as the window's shape
// needs at that height), else the wireframe over the properties.
func (v *View) layout() {
	_, _, w, h := v.page.GetRect()
	ww, wh := int32(9), int32(20) // a phone, until a dump says
	if v.t != nil && len(v.t.Nodes) > 0 && v.t.Nodes[0].Width > 0 && v.t.Nodes[0].Height > 0 {
		ww, wh = v.t.Nodes[0].Width, v.t.Nodes[0].Height
	}
	cols := 0
	if w >= wideLayout {
		inner := max(h-2, 1) // the borders
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
	if h < 28 {
		pic, props = 2, 1 // a small terminal: the wireframe needs the rows
	}
	right := tview.NewFlex().SetDirection(tview.FlexRow).AddItem(v.pic, 0, pic, false).AddItem(v.props, 0, props, false)
	v.body.AddItem(v.tree, 0, 1, false).AddItem(right, 0, 1, false)
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
	v.capture.Release()
	v.capture, v.captureOf, v.showCapture = nil, "", false
	v.profile, v.profileOf = nil, ""
}

func (v *View) flash(msg string) {
	v.message = msg
	v.update()
}

func (v *View) applyFilter(s string) {
	keep := v.selected()
	v.filter = s
	v.relist()
	v.sel = 0
	if keep >= 0 {
		v.reveal(keep)
	}
	if s != "" && v.t != nil && (v.selected() < 0 || !v.matches(v.selected())) {
		for r, n := range v.rows { // the first match, not the parent shown for it
			if v.matches(int(n)) {
				v.sel = r
				break
			}
		}
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
		if v.t.NamesCut > 0 {
			s += fmt.Sprintf(", [::b]%d property names not kept[::-] (past %d MiB of names)", v.t.NamesCut, viewtree.MaxNameBytes>>20)
		}
		parts = append(parts, s)
	}
	if w := v.window(); w != "" {
		parts = append(parts, fmt.Sprintf("window %d/%d %s", v.win+1, len(v.windows), style.Escape(w)))
	}
	v.SetHeader(strings.Join(parts, " │ "))
	v.props.SetText(v.propsText())
	v.props.ScrollToBeginning()
	if v.showCapture && v.captureOf != v.selectedName() {
		// The picture follows the selection: another view selected (or
		// the captured one gone with a new dump) shows the wireframe
		// again, not a capture titled with a view no longer selected.
		v.showCapture = false
	}
	title := " Wireframe "
	if v.showCapture {
		cls, hash, _ := viewtree.SplitName(v.captureOf)
		title = fmt.Sprintf(" Capture: %s@%x ", style.Escape(viewtree.SimpleClass(cls)), hash)
	}
	v.pic.SetTitle(title)
	v.tree.SetTitle(fmt.Sprintf(" Views %d/%d ", len(v.rows), v.count()))
	v.SetMessage(v.message) // the frame escapes it
}

func (v *View) count() int {
	if v.t == nil {
		return 0
	}
	return v.t.Count()
}
