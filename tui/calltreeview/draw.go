package calltreeview

import (
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/style"
)

// barColors are the fills of bars: warm colours for a flame chart, picked
// per method so that a method keeps its colour everywhere.
var barColors = []tcell.Color{
	tcell.NewRGBColor(0xd8, 0x6a, 0x3c), tcell.NewRGBColor(0xe0, 0x98, 0x3a),
	tcell.NewRGBColor(0xc9, 0x4f, 0x4f), tcell.NewRGBColor(0xd9, 0xb4, 0x4a),
	tcell.NewRGBColor(0xb8, 0x5c, 0x38), tcell.NewRGBColor(0xe3, 0x7f, 0x5a),
}

// barPainter styles bars: a colour per method (or reverse video without
// colours), bold and underlined for the selected method, the accent colour
// (or bold reverse video) for the selected bar.
type barPainter struct {
	colour   bool
	selected tcell.Style
}

func newBarPainter(pal style.Palette) barPainter {
	b := barPainter{colour: pal.Role("accent") != tcell.ColorDefault} // NO_COLOR: ColorDefault
	b.selected = tcell.StyleDefault.Reverse(true).Bold(true)
	if b.colour {
		b.selected = tcell.StyleDefault.Background(pal.Accent()).Foreground(tcell.ColorBlack).Bold(true)
	}
	return b
}

func (b barPainter) style(method int32, highlighted, selected bool) tcell.Style {
	if selected {
		return b.selected
	}
	st := tcell.StyleDefault.Reverse(true)
	if b.colour {
		st = tcell.StyleDefault.Background(barColors[uint32(method)*2654435761>>29%uint32(len(barColors))]).Foreground(tcell.ColorBlack)
	}
	if highlighted {
		st = st.Bold(true).Underline(true)
	}
	return st
}

// drawBar fills columns [x0, x1) of row y with st and writes name in it,
// cut with '…' when it does not fit; a bar two columns wide or less shows
// only its fill (a block edge marks its start).
func drawBar(s tcell.Screen, x0, x1, y int, name string, st tcell.Style) {
	w := x1 - x0
	if w <= 0 {
		return
	}
	for x := x0; x < x1; x++ {
		s.SetContent(x, y, ' ', nil, st)
	}
	if w <= 2 {
		s.SetContent(x0, y, '▏', nil, st)
		return
	}
	drawText(s, x0+1, x1-1, y, name, st)
}

// drawText writes text into columns [x0, x1) of row y, cut with '…'.
func drawText(s tcell.Screen, x0, x1, y int, text string, st tcell.Style) {
	w := x1 - x0
	if w <= 0 {
		return
	}
	n := utf8.RuneCountInString(text)
	x := x0
	i := 0
	for _, r := range text {
		if x >= x1 {
			break
		}
		if n > w && i == w-1 {
			r = '…'
		}
		s.SetContent(x, y, r, nil, st)
		x++
		i++
	}
}
