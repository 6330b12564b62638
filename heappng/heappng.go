// Package heappng draws a heap snapshot as a PNG picture for bug reports: the
// allocation-unit map in DDMS's heap colours (one pixel per N units, row by
// row), a title, and a legend with each kind's share. It reads heap.Snapshot,
// like the dashboard, so the picture and the terminal agree.
package heappng

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
)

// Palette: DDMS's heap colours (spec/ddm-chunks.md §7.5, HeapPanel), free
// memory black.
var (
	freeColor  = color.RGBA{0, 0, 0, 255}
	kindColors = [8]color.RGBA{
		ddm.KindObject:  {0, 0, 255, 255},
		ddm.KindClass:   {0, 255, 0, 255},
		ddm.KindArray1:  {255, 0, 0, 255},
		ddm.KindArray2:  {255, 128, 0, 255},
		ddm.KindArray4:  {255, 255, 0, 255},
		ddm.KindArray8:  {255, 128, 128, 255},
		ddm.KindUnknown: {255, 0, 255, 255},
		ddm.KindNative:  {64, 64, 64, 255},
	}
	kindNames  = [8]string{"data object", "class object", "1-byte array", "2-byte array", "4-byte array", "8-byte array", "unknown", "native"}
	background = color.RGBA{255, 255, 255, 255}
	ink        = color.RGBA{0, 0, 0, 255}
)

// Color is the colour a state is drawn in.
func Color(s ddm.State) color.RGBA {
	if s.Solidity() == ddm.SolidityFree {
		return freeColor
	}
	return kindColors[s.Kind()]
}

// Options shape the picture.
type Options struct {
	Title string // first line, e.g. "com.example.mail (pid 1234), managed heap"
	Width int    // pixels per map row (default 512)
	// MaxRows bounds the map's height: larger heaps get more units per
	// pixel (default 512).
	MaxRows int
}

// Layout gives the map's geometry for a snapshot: units per pixel and rows.
func Layout(s *heap.Snapshot, o Options) (width, rows int, per uint64) {
	width, maxRows := o.Width, o.MaxRows
	if width <= 0 {
		width = 512
	}
	if maxRows <= 0 {
		maxRows = 512
	}
	units := s.Units()
	per = (units + uint64(width*maxRows) - 1) / uint64(width*maxRows)
	if per == 0 {
		per = 1
	}
	cells := (units + per - 1) / per
	rows = int((cells + uint64(width) - 1) / uint64(width))
	return width, rows, per
}

const (
	margin  = 8
	lineH   = 16
	swatchW = 12
)

// Render writes the PNG.
func Render(w io.Writer, s *heap.Snapshot, o Options) error {
	img := Image(s, o)
	return png.Encode(w, img)
}

// Image draws the picture.
func Image(s *heap.Snapshot, o Options) *image.RGBA {
	width, rows, per := Layout(s, o)
	st := s.Stats
	legend := legendRows(st)
	textLines := 2 + len(legend)
	h := margin + textLines*lineH + margin + rows + margin
	title := o.Title
	if title == "" {
		title = "heap"
	}
	info := fmt.Sprintf("%d units of %d bytes in %d segments; 1 pixel = %d units; %s",
		st.TotalUnits, st.UnitSize, st.Segments, per, st.FragmentationLabel())
	// The canvas is wide enough for the text (7 pixels a character).
	canvasW := max(width, 7*len([]rune(title)), 7*len(info)) + 2*margin
	img := image.NewRGBA(image.Rect(0, 0, canvasW, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{background}, image.Point{}, draw.Src)

	face := basicfont.Face7x13
	text := func(x, y int, s string) {
		d := font.Drawer{Dst: img, Src: image.NewUniform(ink), Face: face, Dot: fixed.P(x, y+11)}
		d.DrawString(s)
	}
	y := margin
	text(margin, y, title)
	y += lineH
	text(margin, y, info)
	y += lineH
	for _, l := range legend {
		draw.Draw(img, image.Rect(margin, y+2, margin+swatchW, y+2+swatchW), &image.Uniform{l.color}, image.Point{}, draw.Src)
		drawBorder(img, image.Rect(margin, y+2, margin+swatchW, y+2+swatchW))
		text(margin+swatchW+6, y, l.label)
		y += lineH
	}
	y += margin
	// The map: row by row, one pixel per `per` units.
	cells := s.Cells(nil, 0, per, width*rows)
	for i, c := range cells {
		col := Color(c.State)
		if c.State.Solidity() == ddm.SolidityFree && c.Used > 0 {
			// Mostly free with some objects: a dim version of what it holds.
			u := Color(c.UsedState)
			col = color.RGBA{u.R / 3, u.G / 3, u.B / 3, 255}
		}
		img.SetRGBA(margin+i%width, y+i/width, col)
	}
	return img
}

type legendRow struct {
	color color.RGBA
	label string
}

func legendRows(st heap.Stats) []legendRow {
	unit := uint64(st.UnitSize)
	total := st.TotalUnits
	pct := func(u uint64) float64 {
		if total == 0 {
			return 0
		}
		return 100 * float64(u) / float64(total)
	}
	rows := []legendRow{{freeColor, fmt.Sprintf("free         %12d bytes  %5.1f%%", st.FreeUnits()*unit, pct(st.FreeUnits()))}}
	for k := ddm.Kind(0); k < 8; k++ {
		u := st.UnitsByKind[k]
		if u == 0 {
			continue
		}
		rows = append(rows, legendRow{kindColors[k], fmt.Sprintf("%-12s %12d bytes  %5.1f%%", kindNames[k], u*unit, pct(u))})
	}
	return rows
}

func drawBorder(img *image.RGBA, r image.Rectangle) {
	for x := r.Min.X; x < r.Max.X; x++ {
		img.SetRGBA(x, r.Min.Y, ink)
		img.SetRGBA(x, r.Max.Y-1, ink)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		img.SetRGBA(r.Min.X, y, ink)
		img.SetRGBA(r.Max.X-1, y, ink)
	}
}
