package heapview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/internal/pixbound"
	"github.com/ddmtui/ddmtui/tui/style"
)

// openHero opens the bitmaps tab on the scene's large bitmap.
func openHero(t *testing.T, opts scene.Options, pal style.Palette) (*harness, *scene.Expect) {
	t.Helper()
	file, e := writeScene(t, opts)
	hs := open(t, file, "", 120, 40, pal)
	hs.keys("5")
	hero := e.Bitmaps[0]
	if !strings.Contains(hs.selected(), hex(hero.ID)) {
		t.Fatalf("selected %q, want the hero bitmap %s first\n%s", hs.selected(), hex(hero.ID), hs.text())
	}
	return hs, e
}

// cellColours returns the foreground and background of a cell.
func (hs *harness) cellColours(x, y int) (rune, tcell.Color, tcell.Color) {
	str, st, _ := hs.screen.Get(x, y)
	fg, bg, _ := st.Decompose()
	r := ' '
	for _, c := range str {
		r = c
		break
	}
	return r, fg, bg
}

func rgb(c interface{ RGBA() (r, g, b, a uint32) }) tcell.Color {
	r, g, b, _ := c.RGBA()
	return tcell.NewRGBColor(int32(r>>8), int32(g>>8), int32(b>>8))
}

// API 35 with -b png: the dumpData PNG is drawn 1:1, two pixels a cell,
// each cell's colours the image's; s saves the PNG beside the dump.
func TestBitmapFromDumpDataDrawnAndSaved(t *testing.T) {
	hs, e := openHero(t, scene.Options{API: 35, BitmapFormat: "png"}, style.Palette{})
	want, err := png.Decode(bytes.NewReader(e.PNG))
	if err != nil {
		t.Fatal(err)
	}
	hs.must(fmt.Sprintf("png, %s in dumpData", size(e.Bitmaps[0].PixelBytes)), "Enter draws it")
	hs.enter()
	b := want.Bounds()
	y0 := hs.row(fmt.Sprintf("%d × %d pixels", b.Dx(), b.Dy()))
	if y0 < 0 {
		t.Fatalf("no caption:\n%s", hs.text())
	}
	for _, p := range []image.Point{{0, 0}, {b.Dx() - 1, 0}, {b.Dx() / 2, b.Dy()/2 - 2}, {0, b.Dy() - 2}} {
		r, fg, bg := hs.cellColours(p.X, y0+1+p.Y/2)
		if r != '▀' || fg != rgb(want.At(p.X, p.Y&^1)) || bg != rgb(want.At(p.X, p.Y|1)) {
			t.Errorf("cell for pixel %v: %q fg %v bg %v, want ▀ %v over %v", p, r, fg, bg, rgb(want.At(p.X, p.Y&^1)), rgb(want.At(p.X, p.Y|1)))
		}
	}
	if r, _, _ := hs.cellColours(b.Dx(), y0+1); r == '▀' {
		t.Error("drawn past the image's width")
	}
	hs.keys("s")
	saved := filepath.Join(hs.v.opt.SaveDir, "app-bitmap-"+hex(e.Bitmaps[0].ID)+".png")
	hs.must("saved " + saved)
	f, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != b || rgb(got.At(5, 7)) != rgb(want.At(5, 7)) {
		t.Errorf("saved %v %v, want %v %v", got.Bounds(), got.At(5, 7), b, want.At(5, 7))
	}
	if left, _ := filepath.Glob(filepath.Join(hs.v.opt.SaveDir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	hs.back()
	hs.must("BITMAP", "PIXELS")
}

// Below API 26 the raw ARGB_8888 pixels of mBuffer are drawn, scaled to
// the page: 256 × 192 into 120 × 36 cells is 96 × 72 pixels.
func TestBitmapFromMBufferScaled(t *testing.T) {
	const seed = 7
	hs, e := openHero(t, scene.Options{API: 24, Seed: seed}, style.Palette{})
	hero := e.Bitmaps[0]
	hs.must("raw, "+size(hero.PixelBytes)+" in mBuffer", fmt.Sprintf("%d×%d", hero.Width, hero.Height))
	hs.enter()
	y0 := hs.row("256 × 192 pixels (drawn at 96 × 72)")
	if y0 < 0 {
		t.Fatalf("no caption:\n%s", hs.text())
	}
	// The scene's pixel k is grey byte(k)+seed, opaque; cell (cx, cy)
	// samples pixels (cx*256/96, 2cy*192/72) and the one below.
	grey := func(px, py int) tcell.Color {
		v := int32(byte(py*256+px) + seed)
		return tcell.NewRGBColor(v, v, v)
	}
	for _, c := range []image.Point{{0, 0}, {1, 0}, {50, 10}, {95, 35}} {
		x, top, bot := c.X*256/96, 2*c.Y*192/72, (2*c.Y+1)*192/72
		r, fg, bg := hs.cellColours(c.X, y0+1+c.Y)
		if r != '▀' || fg != grey(x, top) || bg != grey(x, bot) {
			t.Errorf("cell %v: %q fg %v bg %v, want %v over %v", c, r, fg, bg, grey(x, top), grey(x, bot))
		}
	}
}

// Under NO_COLOR the image is not drawn, and the page says so.
func TestBitmapUnderNoColor(t *testing.T) {
	hs, _ := openHero(t, scene.Options{API: 24}, style.Palette{NoColor: true})
	hs.enter()
	hs.must("NO_COLOR is set, so the image cannot be drawn; s saves it as PNG")
	if hs.row("▀") >= 0 {
		t.Error("half blocks drawn under NO_COLOR")
	}
}

// API 26–34 keep the pixels native: the viewer says why, and how to get them.
func TestBitmapWithoutPixelsSaysWhy(t *testing.T) {
	hs, _ := openHero(t, scene.Options{API: 34}, style.Palette{})
	hs.must("not in the dump", "API 26", "am dumpheap -b png")
	hs.enter()
	hs.must("Bitmap Bitmap@", "am dumpheap -b png")
	hs.back()
	hs.keys("s")
	hs.must("this bitmap's pixels are not in the dump")
}

// decodeRaw refuses what is no pixel format, and reads RGB_565.
func TestDecodeRaw(t *testing.T) {
	if _, err := decodeRaw(make([]byte, 12), 2, 2); err == nil {
		t.Error("3 bytes a pixel decoded")
	}
	if _, err := decodeRaw(nil, 1<<20, 1<<20); err == nil {
		t.Error("a terapixel bitmap decoded")
	}
	img, err := decodeRaw([]byte{0x00, 0xf8, 0xe0, 0x07, 0x1f, 0x00, 0xff, 0xff}, 2, 2) // red, green, blue, white
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []tcell.Color{tcell.NewRGBColor(255, 0, 0), tcell.NewRGBColor(0, 255, 0), tcell.NewRGBColor(0, 0, 255), tcell.NewRGBColor(255, 255, 255)} {
		if got := rgb(img.At(i%2, i/2)); got != want {
			t.Errorf("565 pixel %d = %v, want %v", i, got, want)
		}
	}
	if _, err := decodeCompressed(context.Background(), []byte("not a png"), "png"); err == nil {
		t.Error("garbage decoded as png")
	}
}

// API 35 with -b jpg: the JPEG in dumpData is drawn too.
func TestBitmapFromDumpDataJPEG(t *testing.T) {
	hs, e := openHero(t, scene.Options{API: 35, BitmapFormat: "jpg"}, style.Palette{})
	hs.must(fmt.Sprintf("jpeg, %s in dumpData", size(e.Bitmaps[0].PixelBytes)))
	hs.enter()
	hs.must("64 × 48 pixels")
	y := hs.row("64 × 48 pixels")
	// The scene's gradient: red grows to the right, green down; JPEG is
	// lossy, so compare the ends, not values.
	_, left, _ := hs.cellColours(0, y+1)
	_, right, _ := hs.cellColours(63, y+1)
	lr, _, _ := left.RGB()
	rr, _, _ := right.RGB()
	if r, _, _ := hs.cellColours(63, y+1); r != '▀' || rr < lr+150 {
		t.Errorf("left %v right %v: no gradient to the right", left, right)
	}
}

// A bitmap drawn is charged to the memory budget while its page is shown
// and given back when the page is left or the viewer closes; let go to make
// room, its page says so.
func TestBitmapChargedWhileShown(t *testing.T) {
	p := budget.Process
	defer p.SetLimit(p.Limit())
	hs, _ := openHero(t, scene.Options{API: 24, Seed: 7}, style.Palette{})
	base := p.Used()
	hs.enter()
	hs.must("256 × 192 pixels")
	if got := p.Used() - base; got != 256*192*4 {
		t.Fatalf("the bitmap shown holds %d bytes of the budget, want %d", got, 256*192*4)
	}
	hs.back()
	if p.Used() != base {
		t.Fatalf("left, the page still holds %d bytes", p.Used()-base)
	}
	hs.enter()
	p.SetLimit(p.Used())
	if !p.Take(1) {
		t.Fatal("no room made although the bitmap could go")
	}
	hs.draw()
	hs.must("let go to make room (memory budget)")
	if hs.row("▀") >= 0 || !strings.Contains(p.LastDrop().What, "the heap viewer's Bitmap") {
		t.Fatalf("drawn after it was let go; last drop %+v", p.LastDrop())
	}
	p.Give(1)
	p.SetLimit(0)
	hs.back()
	hs.enter()
	hs.v.Close()
	if p.Used() != base {
		t.Fatalf("closed, the viewer still holds %d bytes", p.Used()-base)
	}
}

// Raw pixels draw their decoded size on the memory budget while decoded,
// as pictures do: past what it has left they are refused before the image
// is allocated.
func TestDecodeRawDrawsOnTheBudget(t *testing.T) {
	p := budget.Process
	defer p.SetLimit(p.Limit())
	base := p.Used()
	p.SetLimit(base + 100_000)
	_, err := decodeRaw(make([]byte, 256*192*4), 256, 192)
	if !errors.Is(err, pixbound.ErrTooLarge) || !strings.Contains(err.Error(), "more than the memory budget has left") {
		t.Fatalf("a 192 KiB decode within 100 KB of budget: %v", err)
	}
	if _, err := decodeRaw(make([]byte, 100*100*4), 100, 100); err != nil || p.Used() != base {
		t.Fatalf("within the budget: %v; %d bytes left held", err, p.Used()-base)
	}
}
