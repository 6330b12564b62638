package viewsview

import (
	"image"
	"image/color"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/viewtree"
)

// Canvas is a block of terminal cells drawn off screen: the wireframe and
// the capture are computed here (pure, tested and benchmarked) and copied
// to the screen by the widget.
type Canvas struct {
	W, H  int
	Cells []Cell
}

// Cell is one terminal cell.
type Cell struct {
	Rune  rune
	Style tcell.Style
}

// NewCanvas returns a blank w×h canvas.
func NewCanvas(w, h int) *Canvas {
	c := &Canvas{W: max(w, 0), H: max(h, 0)}
	c.Cells = make([]Cell, c.W*c.H)
	for i := range c.Cells {
		c.Cells[i].Rune = ' '
	}
	return c
}

func (c *Canvas) set(x, y int, r rune, st tcell.Style) {
	if x >= 0 && y >= 0 && x < c.W && y < c.H {
		c.Cells[y*c.W+x] = Cell{r, st}
	}
}

// Row is row y as text (for tests).
func (c *Canvas) Row(y int) string {
	rs := make([]rune, c.W)
	for x := range rs {
		rs[x] = c.Cells[y*c.W+x].Rune
	}
	return string(rs)
}

// At is the cell at x, y.
func (c *Canvas) At(x, y int) Cell { return c.Cells[y*c.W+x] }

// Draw copies the canvas to the screen at x, y.
func (c *Canvas) Draw(s tcell.Screen, x, y int) {
	for j := 0; j < c.H; j++ {
		for i := 0; i < c.W; i++ {
			cell := c.Cells[j*c.W+i]
			s.SetContent(x+i, y+j, cell.Rune, nil, cell.Style)
		}
	}
}

// frameScale maps a window of ww×wh pixels into w×h cells, keeping its
// shape: a cell is about twice as tall as it is wide.
type frameScale struct {
	px         float64 // pixels per cell column; rows take 2*px
	x0, y0     int     // where the window's top-left cell lands
	left, top  int32   // the window's own origin on screen
	cols, rows int
}

func newFrameScale(left, top, ww, wh int32, w, h int) frameScale {
	if ww <= 0 || wh <= 0 || w <= 0 || h <= 0 {
		return frameScale{px: 1}
	}
	px := max(float64(ww)/float64(w), float64(wh)/float64(2*h))
	cols, rows := int(float64(ww)/px+0.5), int(float64(wh)/(2*px)+0.5)
	return frameScale{px: px, x0: (w - cols) / 2, y0: (h - rows) / 2, left: left, top: top, cols: cols, rows: rows}
}

func (f frameScale) cell(x, y int32) (int, int) {
	return f.x0 + int(float64(x-f.left)/f.px+0.5), f.y0 + int(float64(y-f.top)/(2*f.px)+0.5)
}

// Wireframe draws a window's views as boxes from their bounds, scaled to
// w×h cells: GONE views (or under a GONE parent) are left out, INVISIBLE
// ones dimmed, the selected one (sel, -1 for none) highlighted on top.
func Wireframe(t *viewtree.Tree, sel, w, h int, pal style.Palette) *Canvas {
	c := NewCanvas(w, h)
	if t == nil || len(t.Nodes) == 0 || w < 2 || h < 2 {
		return c
	}
	root := &t.Nodes[0]
	f := newFrameScale(root.ScreenLeft, root.ScreenTop, root.Width, root.Height, w, h)
	normal := tcell.StyleDefault
	dim := tcell.StyleDefault.Dim(true)
	if !pal.NoColor {
		dim = dim.Foreground(tcell.ColorGray)
	}
	hi := tcell.StyleDefault.Bold(true).Foreground(pal.Accent())
	if pal.NoColor {
		hi = tcell.StyleDefault.Bold(true).Reverse(true)
	}
	vis := make([]viewtree.Visibility, len(t.Nodes))
	for i := range t.Nodes {
		n := &t.Nodes[i]
		v := n.Visibility
		if n.Parent >= 0 {
			switch pv := vis[n.Parent]; {
			case pv == viewtree.Gone:
				v = viewtree.Gone
			case pv == viewtree.Invisible && v != viewtree.Gone:
				v = viewtree.Invisible
			}
		}
		vis[i] = v
		if v == viewtree.Gone || i == sel {
			continue
		}
		st := normal
		if v == viewtree.Invisible {
			st = dim
		}
		box(c, f, n, st, false)
	}
	if sel >= 0 && sel < len(t.Nodes) && vis[sel] != viewtree.Gone {
		box(c, f, &t.Nodes[sel], hi, true)
	}
	return c
}

// box draws a view's outline (a point or a line when it is smaller than a
// cell); the selected view (sel) is drawn with double lines.
func box(c *Canvas, f frameScale, n *viewtree.Node, st tcell.Style, sel bool) {
	x0, y0 := f.cell(n.ScreenLeft, n.ScreenTop)
	x1, y1 := f.cell(n.ScreenLeft+n.Width, n.ScreenTop+n.Height)
	x1, y1 = max(x1-1, x0), max(y1-1, y0)
	h, v, tl, tr, bl, br := '─', '│', '┌', '┐', '└', '┘'
	if sel {
		h, v, tl, tr, bl, br = '═', '║', '╔', '╗', '╚', '╝'
	}
	switch {
	case x0 == x1 && y0 == y1:
		c.set(x0, y0, '·', st)
		if sel {
			c.set(x0, y0, '◆', st)
		}
		return
	case y0 == y1:
		for x := x0; x <= x1; x++ {
			c.set(x, y0, h, st)
		}
		return
	case x0 == x1:
		for y := y0; y <= y1; y++ {
			c.set(x0, y, v, st)
		}
		return
	}
	for x := x0 + 1; x < x1; x++ {
		c.set(x, y0, h, st)
		c.set(x, y1, h, st)
	}
	for y := y0 + 1; y < y1; y++ {
		c.set(x0, y, v, st)
		c.set(x1, y, v, st)
	}
	c.set(x0, y0, tl, st)
	c.set(x1, y0, tr, st)
	c.set(x0, y1, bl, st)
	c.set(x1, y1, br, st)
}

// shades are the cells of a capture under NO_COLOR, darkest first.
var shades = []rune{'█', '▓', '▒', '░', ' '}

// Picture draws an image into w×h cells with half blocks: each cell is two
// pixels stacked (▀ in the top pixel's colour over the bottom pixel's),
// scaled to fit, keeping its shape. Under NO_COLOR a cell is a shade of
// its brightness instead.
func Picture(img image.Image, w, h int, pal style.Palette) *Canvas {
	c := NewCanvas(w, h)
	if img == nil || w <= 0 || h <= 0 {
		return c
	}
	b := img.Bounds()
	iw, ih := b.Dx(), b.Dy()
	if iw <= 0 || ih <= 0 {
		return c
	}
	px := max(float64(iw)/float64(w), float64(ih)/float64(2*h))
	cols, rows := min(w, int(float64(iw)/px+0.5)), min(h, int(float64(ih)/(2*px)+0.5))
	x0, y0 := (w-cols)/2, (h-rows)/2
	sample := func(x, y int) color.RGBA {
		sx := b.Min.X + min(iw-1, int((float64(x)+0.5)*px))
		sy := b.Min.Y + min(ih-1, int((float64(y)+0.5)*px))
		r, g, bl, a := img.At(sx, sy).RGBA()
		// Over black, as a terminal's dark background.
		return color.RGBA{uint8(r * 255 / 0xffff * a / 0xffff), uint8(g * 255 / 0xffff * a / 0xffff), uint8(bl * 255 / 0xffff * a / 0xffff), 255}
	}
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			top, bot := sample(x, 2*y), sample(x, 2*y+1)
			if pal.NoColor {
				lum := (int(top.R)+int(top.G)+int(top.B)+int(bot.R)+int(bot.G)+int(bot.B))/6 + 1
				c.set(x0+x, y0+y, shades[len(shades)-1-min(len(shades)-1, lum*len(shades)/256)], tcell.StyleDefault)
				continue
			}
			st := tcell.StyleDefault.Foreground(tcell.NewRGBColor(int32(top.R), int32(top.G), int32(top.B))).
				Background(tcell.NewRGBColor(int32(bot.R), int32(bot.G), int32(bot.B)))
			c.set(x0+x, y0+y, '▀', st)
		}
	}
	return c
}
