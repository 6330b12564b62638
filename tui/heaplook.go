package tui

// How the heap pane draws a heap cell: glyphs and colours by kind or by
// solidity, the shades of partly used cells, and the legend.

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
)

// kindGlyphs stand in for colours under NO_COLOR.
var kindGlyphs = [8]rune{'o', 'c', '1', '2', '4', '8', '?', 'n'}

var kindLabels = [8]string{"object", "class", "1-byte[]", "2-byte[]", "4-byte[]", "8-byte[]", "unknown", "native"}

// solidColors are the solidity view's colours: ordinary ones that read on
// a light background as on a dark one (no bright yellow, aqua or white);
// the kind view's colours are the palette's heap-* roles.
var solidColors = [8]tcell.Color{
	ddm.SolidityHard: tcell.ColorGreen, ddm.SoliditySoft: tcell.ColorTeal, ddm.SolidityWeak: tcell.ColorOlive,
	ddm.SolidityPhantom: tcell.ColorPurple, ddm.SolidityFinalizable: tcell.ColorRed, ddm.SoliditySweep: tcell.ColorGray,
	7: tcell.ColorDefault,
}

var solidGlyphs = [8]rune{'·', 'H', 'S', 'W', 'P', 'F', 'x', '7'}

var solidLabels = [8]string{"free", "hard", "soft", "weak", "phantom", "finalizable", "sweep", "7"}

// fitParts joins as many of parts, in order, as fit in w cells.
func fitParts(parts []string, sep string, w int) string {
	out, used := "", 0
	for _, part := range parts {
		n := tview.TaggedStringWidth(part)
		if out != "" {
			n += len(sep)
		}
		if used+n > w {
			break
		}
		if out != "" {
			out += sep
		}
		out += part
		used += n
	}
	return out
}

// packParts is fitParts over up to lines lines: parts go in order, a part
// that does not fit starts the next line, and what fits on none is left
// out (the least useful parts come last).
func packParts(parts []string, sep string, w, lines int) []string {
	var out []string
	for len(parts) > 0 && len(out) < lines {
		line := fitParts(parts, sep, w)
		n := 0
		if line != "" {
			n = strings.Count(line, sep) + 1
		}
		if n == 0 {
			break // a part wider than a line
		}
		out = append(out, line)
		parts = parts[n:]
	}
	return out
}

func (p *heapMap) drawLegend(screen tcell.Screen, x, y, w int) {
	cx := x
	put := func(r rune, st tcell.Style, label string) {
		n := tview.TaggedStringWidth(label)
		if cx+n+3 > x+w {
			return
		}
		screen.SetContent(cx, y, r, nil, st)
		cx += 2
		tview.Print(screen, label, cx, y, w-(cx-x), tview.AlignLeft, tcell.ColorDefault)
		cx += n + 2
	}
	put('·', tcell.StyleDefault.Foreground(p.freeColor()), "free")
	if p.native {
		ch, st := p.look(ddm.NewState(ddm.KindNative, ddm.SolidityHard))
		put(ch, st, "native")
		return
	}
	if p.bySolid {
		p.putShades(put)
		for s := ddm.SolidityHard; s <= ddm.SoliditySweep; s++ {
			ch, st := p.look(ddm.NewState(0, s))
			put(ch, st, solidLabels[s])
		}
		return
	}
	p.putShades(put)
	for k := ddm.Kind(0); k < 8; k++ {
		ch, st := p.look(ddm.NewState(k, ddm.SolidityHard))
		put(ch, st, kindLabels[k])
	}
}

// putShades explains the shades of mostly free cells in the legend.
func (p *heapMap) putShades(put func(rune, tcell.Style, string)) {
	put('░', tcell.StyleDefault, "<¼")
	put('▒', tcell.StyleDefault, "<½ used")
}

func (p *heapMap) freeColor() tcell.Color {
	if p.pal.NoColor {
		return tcell.ColorDefault
	}
	return tcell.ColorGray
}

// look returns the glyph and style of one state.
func (p *heapMap) look(s ddm.State) (rune, tcell.Style) {
	if s.Solidity() == ddm.SolidityFree {
		return '·', tcell.StyleDefault.Foreground(p.freeColor())
	}
	if p.pal.NoColor {
		if p.bySolid {
			return solidGlyphs[s.Solidity()], tcell.StyleDefault
		}
		return kindGlyphs[s.Kind()], tcell.StyleDefault
	}
	col := p.pal.HeapKind(int(s.Kind()))
	if p.bySolid {
		col = solidColors[s.Solidity()]
	}
	// A full block in the kind's colour: it survives copy-paste and screen
	// captures as a shape, and keeps the terminal's own background.
	return '█', tcell.StyleDefault.Foreground(col)
}

// cellLook draws a cell: its dominant state, or — for a mostly free cell
// that holds some objects — a light or medium shade in the colour of the
// objects it holds, so scattered live data shows at any zoom.
func (p *heapMap) cellLook(c heap.Cell) (rune, tcell.Style) {
	if c.State.Solidity() != ddm.SolidityFree || c.Used == 0 {
		return p.look(c.State)
	}
	_, st := p.look(c.UsedState)
	ch := '░'
	if c.Units > 0 && uint64(c.Used)*4 >= uint64(c.Units) {
		ch = '▒'
	}
	if p.pal.NoColor {
		return ch, tcell.StyleDefault
	}
	fg, _, _ := st.Decompose()
	return ch, tcell.StyleDefault.Foreground(fg)
}
