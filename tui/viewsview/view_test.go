package viewsview

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/internal/pixbound"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/viewtree"
)

// fakeView is one view of the fake app.
type fakeView struct {
	class      string
	hash       uint32
	id, text   string
	l, t, w, h int32
	vis        int32
	kids       []*fakeView
}

func encode(e *viewtree.Encoder, v *fakeView) {
	e.BeginObject(v.class, v.hash)
	if v.id != "" {
		e.String("id", v.id)
	} else {
		e.Int("id", -1)
	}
	e.Int("layout:left", v.l)
	e.Int("layout:top", v.t)
	e.Int("layout:width", v.w)
	e.Int("layout:height", v.h)
	e.Int("misc:visibility", v.vis)
	e.Float("drawing:alpha", 1)
	if v.text != "" {
		e.String("text:text", v.text)
	}
	e.Short("meta:__childCount__", int16(len(v.kids)))
	for i, k := range v.kids {
		e.Key("meta:__child__" + string(rune('0'+i)))
		encode(e, k)
	}
	e.EndObject()
}

// fakeApp is a Source over an in-memory window.
type fakeApp struct {
	root     *fakeView
	windows  []string
	winErr   error
	invoked  []string
	captures int
	picture  []byte // the capture's PNG, when set
}

func (a *fakeApp) find(v *fakeView, name string) *fakeView {
	if cls, h, _ := viewtree.SplitName(name); cls == v.class && h == v.hash {
		return v
	}
	for _, k := range v.kids {
		if f := a.find(k, name); f != nil {
			return f
		}
	}
	return nil
}

func (a *fakeApp) Windows(context.Context) ([]string, error) { return a.windows, a.winErr }

func (a *fakeApp) Dump(_ context.Context, w string) (*viewtree.Tree, error) {
	if w != a.windows[0] {
		return nil, viewtree.ErrNoSuchWindow
	}
	e := viewtree.NewEncoder()
	encode(e, a.root)
	return viewtree.DecodeV2(e.EndStream())
}

func (a *fakeApp) Capture(_ context.Context, _, view string) ([]byte, error) {
	a.captures++
	if a.picture != nil {
		return a.picture, nil
	}
	img := image.NewNRGBA(image.Rect(0, 0, 40, 20))
	for y := 0; y < 20; y++ {
		for x := 0; x < 40; x++ {
			img.SetNRGBA(x, y, color.NRGBA{255, 0, 0, 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes(), nil
}

func (a *fakeApp) Invoke(_ context.Context, _, view, method string, args []ddm.ViewArg) (*viewtree.Return, error) {
	v := a.find(a.root, view)
	if v == nil {
		return nil, viewtree.ErrNoSuchView
	}
	a.invoked = append(a.invoked, method)
	if method == "setVisibility" {
		v.vis = int32(args[0].Value)
	}
	return nil, nil
}

func (a *fakeApp) Profile(_ context.Context, _, view string) ([]viewtree.Timing, error) {
	return []viewtree.Timing{{Measure: 1_500_000, Layout: 250_000, Draw: -1}}, nil
}

func newApp() *fakeApp {
	clock := &fakeView{class: "android.widget.TextView", hash: 0xc10c, id: "id/clock", text: "12:00", l: 10, t: 10, w: 40, h: 20}
	gone := &fakeView{class: "android.widget.ImageView", hash: 0x60e, id: "id/gone", l: 50, t: 60, w: 40, h: 30, vis: 8}
	hidden := &fakeView{class: "android.widget.TextView", hash: 0x41d, id: "id/hidden", text: "[red]boom\x1b[2J", l: 0, t: 100, w: 100, h: 40, vis: 4}
	bar := &fakeView{class: "android.widget.LinearLayout", hash: 0xba7, id: "id/bar", w: 100, h: 50, kids: []*fakeView{clock}}
	root := &fakeView{class: "com.android.internal.policy.DecorView", hash: 0x1, w: 100, h: 200, kids: []*fakeView{bar, gone, hidden}}
	return &fakeApp{root: root, windows: []string{"com.example/com.example.Main/android.view.ViewRootImpl@1"}}
}

type harness struct {
	t      *testing.T
	v      *View
	app    *fakeApp
	screen tcell.SimulationScreen
	saved  map[string][]byte
	quits  int
}

func newHarness(t *testing.T, w, h int) *harness {
	hs := &harness{t: t, app: newApp(), screen: tcell.NewSimulationScreen("UTF-8"), saved: map[string][]byte{}}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.screen.Fini)
	t.Cleanup(func() { hs.v.clearPicture() }) // a kept capture leaves the memory budget
	hs.screen.SetSize(w, h)
	hs.v = New(Options{Palette: style.Palette{}, Quit: func() { hs.quits++ },
		Go: func(_ string, work func(context.Context) func()) {
			if apply := work(context.Background()); apply != nil {
				apply()
			}
		},
		Save: func(_ context.Context, view string, data []byte) (string, error) {
			hs.saved[view] = data
			return "/tmp/x.png", nil
		},
	})
	hs.v.SetRect(0, 0, w, h)
	hs.v.Open("com.example", hs.app)
	hs.draw()
	return hs
}

func (hs *harness) draw() {
	hs.screen.Clear()
	hs.v.Draw(hs.screen)
	hs.screen.Show()
}

func (hs *harness) key(k tcell.Key, r rune) {
	hs.v.InputHandler()(tcell.NewEventKey(k, r, 0), func(tview.Primitive) {})
	hs.draw()
}

func (hs *harness) keys(s string) {
	for _, r := range s {
		hs.key(tcell.KeyRune, r)
	}
}

func (hs *harness) text() string {
	cells, w, h := hs.screen.GetContents()
	var b strings.Builder
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteRune(c.Runes[0])
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (hs *harness) has(want ...string) {
	hs.t.Helper()
	text := hs.text()
	for _, w := range want {
		if !strings.Contains(text, w) {
			hs.t.Fatalf("screen lacks %q:\n%s", w, text)
		}
	}
}

func (hs *harness) lacks(bad ...string) {
	hs.t.Helper()
	text := hs.text()
	for _, w := range bad {
		if strings.Contains(text, w) {
			hs.t.Fatalf("screen has %q:\n%s", w, text)
		}
	}
}

func TestViewsPaneShowsTreeAndProperties(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.has("5 views, v2 dump │ window 1/1 com.example/com.example.Main/android.view.ViewRootImpl@1",
		"▾ DecorView", "▾ LinearLayout bar", `TextView clock "12:00"`, "ImageView gone (gone)", "Views 5/5",
		"com.android.internal.policy.DecorView@1", "bounds 0,0 100x200", "layout", "left = 0")
	// App strings are escaped: the tag shows as text, the escape sequence as its code.
	hs.has(`TextView hidden "[red]boom\x1b[2J"`)
	hs.keys("jj")
	hs.has("android.widget.TextView@c10c", "id id/clock  VISIBLE", "bounds 10,10 40x20 in parent", `text "12:00"`)
	hs.keys("]")
	if row, _ := hs.v.props.GetScrollOffset(); row == 0 {
		t.Error("] did not scroll the properties")
	}
	hs.keys("[[")
	if row, _ := hs.v.props.GetScrollOffset(); row != 0 {
		t.Error("[ did not scroll back")
	}
	hs.has(`text "12:00"`)
	hs.key(tcell.KeyEnter, 0) // a leaf: nothing to fold
	hs.keys("k")
	hs.key(tcell.KeyEnter, 0)
	hs.has("▸ LinearLayout bar", "Views 4/5")
	hs.lacks(`TextView clock`)
	hs.keys("*")
	hs.has(`TextView clock`)
	hs.keys("-")
	hs.has("▸ LinearLayout bar", "Views 4/5")
	hs.keys("*")
	// Filter: the match and its parents; Esc clears.
	hs.keys("/")
	for _, r := range "clock" {
		hs.key(tcell.KeyRune, r)
	}
	hs.key(tcell.KeyEnter, 0)
	hs.has("Views 3/5", `TextView clock`, "android.widget.TextView@c10c") // the match is selected
	hs.lacks("ImageView gone")
	hs.key(tcell.KeyEscape, 0)
	hs.has("Views 5/5", "ImageView gone")
	hs.keys("q")
	if hs.quits != 1 {
		t.Error("q did not quit")
	}
}

// Acting on a view invokes its method and dumps again; the capture is
// drawn with half blocks and saved.
func TestViewsPaneActions(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.keys("jj") // the clock
	hs.keys("v")
	if got := strings.Join(hs.app.invoked, ","); got != "setVisibility" {
		t.Fatalf("invoked %q", got)
	}
	hs.has(`TextView clock "12:00" (invisible)`, "setVisibility done on android.widget.TextView@c10c")
	hs.keys("v")
	hs.has(`TextView clock "12:00"`)
	hs.lacks(`"12:00" (invisible)`)
	hs.keys("iL")
	if got := strings.Join(hs.app.invoked, ","); got != "setVisibility,setVisibility,invalidate,requestLayout" {
		t.Fatalf("invoked %q", got)
	}
	hs.keys("c")
	hs.has("Capture: TextView@c10c", "▀")
	hs.keys("s")
	if len(hs.saved["com.example-android.widget.TextView@c10c"]) == 0 || hs.app.captures != 1 {
		t.Fatalf("saved %v after %d captures", hs.saved, hs.app.captures)
	}
	hs.has("capture saved to /tmp/x.png")
	hs.keys("c")
	hs.has("Wireframe")
	// Another view selected: the capture gives way to the wireframe, its
	// title with it (issue 38 #22: the old capture's title stayed).
	hs.keys("c")
	hs.has("Capture: TextView@c10c")
	hs.keys("k")
	hs.has("Wireframe")
	hs.lacks("Capture: TextView@c10c")
	hs.keys("j")
	hs.keys("P")
	hs.has("profile", "1.500 0.250 timeout")
}

func TestViewsPaneErrors(t *testing.T) {
	hs := newHarness(t, 100, 24)
	hs.app.winErr = viewtree.ErrNoWindows
	hs.keys("R")
	hs.has("no windows")
	hs.app.winErr = errors.New("VM is gone")
	hs.keys("R")
	hs.has("VM is gone")
	hs.keys("w")
}

// The wireframe at 80x24 and a tiny size: nothing panics, the capture
// says when it has no room.
func TestViewsPaneSmall(t *testing.T) {
	hs := newHarness(t, 80, 24)
	hs.has("Wireframe", "DecorView")
	hs.keys("c")
	hs.has("▀")
	hs.screen.SetSize(30, 10)
	hs.v.SetRect(0, 0, 30, 10)
	hs.draw()
	hs.keys("jjjc")
}

func TestWireframe(t *testing.T) {
	tr, _ := newApp().Dump(context.Background(), newApp().windows[0])
	// Root 100x200 into 20x20 cells: 5 px per column, 10 per row.
	c := Wireframe(tr, 2, 20, 20, style.Palette{})
	if c.Row(0) != "┌──────────────────┐" || c.Row(19) != "└──────────────────┘" {
		t.Fatalf("root outline:\n%s\n%s", c.Row(0), c.Row(19))
	}
	// The clock (selected): cells 2..9, rows 1..3, double lines on top.
	if got := c.Row(1)[:0] + string([]rune(c.Row(1))[2:10]); got != "╔══════╗" {
		t.Errorf("selected view: %q", got)
	}
	if c.At(2, 1).Style == tcell.StyleDefault {
		t.Error("selection not highlighted")
	}
	// The GONE image (cells 10..17, rows 6..8) is left out.
	if got := string([]rune(c.Row(6))[10:18]); strings.TrimSpace(got) != "" {
		t.Errorf("GONE view drawn: %q", got)
	}
	// The INVISIBLE text (rows 10..13) is dimmed.
	if r := c.At(0, 10); r.Rune != '┌' {
		t.Errorf("invisible view at row 10: %q", r.Rune)
	} else if _, _, attr := r.Style.Decompose(); attr&tcell.AttrDim == 0 {
		t.Error("INVISIBLE view not dimmed")
	}
	// NO_COLOR: the selection is reverse video, no colour.
	nc := Wireframe(tr, 2, 20, 20, style.Palette{NoColor: true})
	if fg, _, attr := nc.At(2, 1).Style.Decompose(); attr&tcell.AttrReverse == 0 || fg != tcell.ColorDefault {
		t.Error("NO_COLOR selection")
	}
}

func TestPicture(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 255})
	img.SetNRGBA(1, 0, color.NRGBA{255, 0, 0, 255})
	img.SetNRGBA(0, 1, color.NRGBA{0, 0, 255, 255})
	img.SetNRGBA(1, 1, color.NRGBA{0, 0, 255, 255})
	c := Picture(img, 2, 1, style.Palette{})
	cell := c.At(0, 0)
	fg, bg, _ := cell.Style.Decompose()
	if cell.Rune != '▀' || fg != tcell.NewRGBColor(255, 0, 0) || bg != tcell.NewRGBColor(0, 0, 255) {
		t.Fatalf("cell %q fg %v bg %v", cell.Rune, fg, bg)
	}
	nc := Picture(img, 2, 1, style.Palette{NoColor: true})
	if r := nc.At(0, 0).Rune; r == '▀' || r == ' ' {
		t.Errorf("NO_COLOR cell %q", r)
	}
}

// Issue 37 #6: a capture whose header claims more pixels than the bound
// (8000×8000 RGBA: 256 MiB decoded, from a few KB of PNG) is refused
// before it is decoded; one within it is kept at the pane's size, not the
// picture's.
func TestViewsPaneCaptureBounded(t *testing.T) {
	hs := newHarness(t, 120, 30)
	hs.keys("jj")
	hs.app.picture = hostile.PNG(8000, 8000, 8, 6, false, 4)
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	hs.keys("c")
	runtime.ReadMemStats(&b)
	if got := b.TotalAlloc - a.TotalAlloc; got > 8<<20 {
		t.Errorf("refusing the capture allocated %d MiB", got>>20)
	}
	hs.has("capture: png: 8000×8000 pixels need 245 MiB to decode")
	if hs.v.capture != nil {
		t.Fatal("the capture was kept")
	}

	hs.app.picture = hostile.PNG(3000, 2000, 8, 6, false, 2000)
	hs.keys("c")
	hs.has("Capture: TextView@c10c")
	_, _, pw, ph := hs.v.pic.GetInnerRect()
	if bd := hs.v.capture.Image().Bounds(); bd.Dx() > max(pw, 320) || bd.Dy() > max(2*ph, 200) || bd.Dx() < 100 {
		t.Errorf("kept the capture at %v for a %d×%d pane", bd, pw, ph)
	}
}

// A capture kept for drawing is charged to the memory budget (its fitted
// pixels and its PNG), let go when the budget must make room (the pane
// says so; s fetches it again), and given back when the pane opens another
// VM.
func TestViewsCaptureChargedAndLetGo(t *testing.T) {
	p := budget.Process
	defer p.SetLimit(p.Limit())
	hs := newHarness(t, 120, 30)
	base := p.Used()
	hs.keys("jj")
	hs.app.picture = hostile.PNG(600, 400, 8, 6, false, 2000)
	hs.keys("c")
	hs.has("Capture: TextView@c10c")
	held := hs.v.capture.Held()
	if img := hs.v.capture.Image(); held != pixbound.ImageBytes(img)+int64(len(hs.app.picture)) || p.Used()-base != held {
		t.Fatalf("kept %d bytes, the budget counts %d", held, p.Used()-base)
	}
	p.SetLimit(p.Used() + 1000)
	if !p.Take(held) {
		t.Fatal("no room made although the capture could go")
	}
	hs.draw()
	hs.has("let go to make room", "captures again")
	if d := p.LastDrop(); d.What != "the capture of android.widget.TextView@c10c" || d.Bytes != held {
		t.Fatalf("last drop %+v", d)
	}
	p.Give(held)
	p.SetLimit(0)
	hs.keys("s") // its PNG went too: captured again to be saved
	if hs.app.captures != 2 || len(hs.saved["com.example-android.widget.TextView@c10c"]) == 0 {
		t.Fatalf("%d captures, saved %d views", hs.app.captures, len(hs.saved))
	}
	hs.v.Open("com.example", hs.app)
	if p.Used() != base {
		t.Fatalf("after Open: the budget counts %d bytes more", p.Used()-base)
	}
}

// The views pane lives in the dashboard, where q goes back to it: its help
// says so, as its footer does (issue 38 #19: the help said "q quit").
func TestViewsHelpSaysQGoesBack(t *testing.T) {
	v := New(Options{Palette: style.Palette{}, Quit: func() {}})
	help := v.Keys().HelpText()
	if !regexp.MustCompile(`(?m)^  q +back to the dashboard$`).MatchString(help) || regexp.MustCompile(`(?m)^  q +quit$`).MatchString(help) {
		t.Errorf("help of q:\n%s", help)
	}
}
