package heapview

import (
	"fmt"
	"image"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/internal/pixbound"
)

// picture draws an image with half-block cells: each cell is two pixels,
// the upper one the foreground of ▀ and the lower one its background,
// scaled (nearest pixel) to fit the page, never enlarged past 1:1. Alpha
// is composed over black. Under NO_COLOR it says it cannot draw. A kept
// picture (the viewer's) is charged to the memory budget until its page
// is left (Release) and may be let go to make room: the page says so.
type picture struct {
	*tview.Box
	img     image.Image
	kept    *pixbound.Kept // when set, the image (img is nil)
	noColor bool
}

func newPicture(img image.Image, noColor bool) *picture {
	return &picture{Box: tview.NewBox(), img: img, noColor: noColor}
}

func newKeptPicture(k *pixbound.Kept, noColor bool) *picture {
	return &picture{Box: tview.NewBox(), kept: k, noColor: noColor}
}

// image is what is drawn: nil once a kept picture was let go.
func (p *picture) image() image.Image {
	if p.kept != nil {
		return p.kept.Image()
	}
	return p.img
}

// Release gives a kept picture back to the memory budget: the viewer's
// frame calls it when the page is left.
func (p *picture) Release() { p.kept.Release() }

// fit is the size the image is drawn at in pixels (2 a cell vertically)
// within w × h cells.
func (p *picture) fit(w, h int) (int, int) {
	img := p.image()
	if img == nil {
		return 0, 0
	}
	b := img.Bounds()
	iw, ih := b.Dx(), b.Dy()
	if iw <= 0 || ih <= 0 || w <= 0 || h <= 0 {
		return 0, 0
	}
	maxW, maxH := w, 2*h
	dw, dh := iw, ih
	if dw > maxW {
		dw, dh = maxW, max(1, ih*maxW/iw)
	}
	if dh > maxH {
		dw, dh = max(1, iw*maxH/ih), maxH
	}
	return dw, dh
}

func (p *picture) Draw(screen tcell.Screen) {
	p.Box.DrawForSubclass(screen, p)
	x, y, w, h := p.GetInnerRect()
	img := p.image()
	if img == nil {
		tview.Print(screen, "let go to make room (memory budget): Esc, then Enter draws it again", x, y, w, tview.AlignLeft, tcell.ColorDefault)
		return
	}
	b := img.Bounds()
	caption := fmt.Sprintf("%d × %d pixels", b.Dx(), b.Dy())
	if p.noColor {
		tview.Print(screen, caption+": NO_COLOR is set, so the image cannot be drawn; s saves it as PNG.", x, y, w, tview.AlignLeft, tcell.ColorDefault)
		return
	}
	if h < 2 {
		return
	}
	dw, dh := p.fit(w, h-1)
	if dw < b.Dx() {
		caption += fmt.Sprintf(" (drawn at %d × %d)", dw, dh)
	}
	tview.Print(screen, caption+"  s saves it as PNG", x, y, w, tview.AlignLeft, tcell.ColorDefault)
	pixel := func(px, py int) tcell.Color {
		sx := b.Min.X + px*b.Dx()/dw
		sy := b.Min.Y + py*b.Dy()/dh
		r, g, bl, _ := img.At(sx, sy).RGBA() // premultiplied: over black as is
		return tcell.NewRGBColor(int32(r>>8), int32(g>>8), int32(bl>>8))
	}
	for cy := 0; cy*2 < dh; cy++ {
		for cx := range dw {
			top := pixel(cx, 2*cy)
			st := tcell.StyleDefault.Foreground(top)
			if 2*cy+1 < dh {
				st = st.Background(pixel(cx, 2*cy+1))
			}
			screen.SetContent(x+cx, y+1+cy, '▀', nil, st)
		}
	}
}
