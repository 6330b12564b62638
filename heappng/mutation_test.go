package heappng

import (
	"bytes"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
)

// These tests state the picture's exact geometry, colours and legend, so
// that a changed operator in heappng.go fails them (docs/TESTING.md,
// "Mutation testing").

// run is n units in state st.
type run struct {
	st ddm.State
	n  uint32
}

// snapshotOf builds a one-segment HPSG heap of 8-byte units from runs.
func snapshotOf(runs ...run) *heap.Snapshot {
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.Start(0x1000)
	for _, r := range runs {
		w.Append(r.st, r.n)
	}
	return heap.NewSnapshot(1, ddm.TypeHPSG, w.Segments())
}

func hard(k ddm.Kind) ddm.State { return ddm.NewState(k, ddm.SolidityHard) }

// unitsHeap has n object units.
func unitsHeap(n uint32) *heap.Snapshot { return snapshotOf(run{hard(ddm.KindObject), n}) }

func TestColorOfEveryState(t *testing.T) {
	want := map[ddm.Kind]color.RGBA{
		ddm.KindObject: {0, 0, 255, 255}, ddm.KindClass: {0, 255, 0, 255}, ddm.KindArray1: {255, 0, 0, 255},
		ddm.KindArray2: {255, 128, 0, 255}, ddm.KindArray4: {255, 255, 0, 255}, ddm.KindArray8: {255, 128, 128, 255},
		ddm.KindUnknown: {255, 0, 255, 255}, ddm.KindNative: {64, 64, 64, 255},
	}
	for k := ddm.Kind(0); k < 8; k++ {
		for _, s := range []ddm.Solidity{ddm.SolidityHard, ddm.SoliditySoft, ddm.SoliditySweep} {
			if got := Color(ddm.NewState(k, s)); got != want[k] {
				t.Errorf("%v %v: %v, want %v", k, s, got, want[k])
			}
		}
		if got := Color(ddm.NewState(k, ddm.SolidityFree)); got != (color.RGBA{0, 0, 0, 255}) {
			t.Errorf("free %v: %v, want black", k, got)
		}
	}
}

// TestLayoutExact: the default width and row bound, units per pixel the
// least that fits width × MaxRows, and rows enough for every cell.
func TestLayoutExact(t *testing.T) {
	for _, c := range []struct {
		units                 uint32
		o                     Options
		width, rows, perPixel int
	}{
		{12, Options{}, 512, 1, 1},
		{12, Options{Width: -1, MaxRows: -1}, 512, 1, 1},
		{12, Options{Width: 5}, 5, 3, 1},
		{12, Options{Width: 2, MaxRows: 2}, 2, 2, 3},
		{12, Options{Width: 4, MaxRows: 3}, 4, 3, 1}, // exactly width × MaxRows
		{13, Options{Width: 4, MaxRows: 3}, 4, 2, 2}, // one unit more: 7 cells
		{13, Options{Width: 3, MaxRows: 4}, 3, 3, 2}, // 7 cells on rows of 3
		{512*512 + 1, Options{}, 512, 257, 2},
	} {
		w, r, p := Layout(unitsHeap(c.units), c.o)
		if w != c.width || r != c.rows || p != uint64(c.perPixel) {
			t.Errorf("%d units, %+v: %d wide, %d rows, %d per pixel; want %d, %d, %d", c.units, c.o, w, r, p, c.width, c.rows, c.perPixel)
		}
	}
}

// mixedHeap: 12 units drawn 3 a pixel on 2 × 2 pixels: free with one
// object (dim blue), 1-byte arrays (red), free (black), classes with one
// free unit (green).
func mixedHeap() *heap.Snapshot {
	return snapshotOf(run{ddm.StateFree, 2}, run{hard(ddm.KindObject), 1}, run{hard(ddm.KindArray1), 3},
		run{ddm.StateFree, 3}, run{hard(ddm.KindClass), 2}, run{ddm.StateFree, 1})
}

func TestLegendExact(t *testing.T) {
	got := legendRows(mixedHeap().Stats)
	want := []legendRow{
		{color.RGBA{0, 0, 0, 255}, "free                   48 bytes   50.0%"},
		{color.RGBA{0, 0, 255, 255}, "data object             8 bytes    8.3%"},
		{color.RGBA{0, 255, 0, 255}, "class object           16 bytes   16.7%"},
		{color.RGBA{255, 0, 0, 255}, "1-byte array           24 bytes   25.0%"},
	}
	if len(got) != len(want) {
		t.Fatalf("legend %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("legend row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	empty := legendRows(heap.NewSnapshot(1, ddm.TypeHPSG, nil).Stats)
	if len(empty) != 1 || empty[0].label != "free                    0 bytes    0.0%" {
		t.Errorf("an empty heap's legend %+v", empty)
	}
}

func rgba(img *image.RGBA, x, y int) color.RGBA { return img.RGBAAt(x, y) }

var (
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{0, 0, 0, 255}
)

// TestImageExact draws mixedHeap and checks the canvas, the map's pixels,
// each legend swatch and its border pixel by pixel, and where the text
// lies.
func TestImageExact(t *testing.T) {
	s := mixedHeap()
	img := Image(s, Options{Title: "t", Width: 2, MaxRows: 2})
	info := "12 units of 8 bytes in 1 segments; 1 pixel = 3 units; fragmentation 50.0%"
	// 7 pixels a character of the longest line, a margin each side; the
	// title, the info line, 4 legend rows, margins, 2 map rows, a margin.
	if b := img.Bounds(); b.Dx() != 7*len(info)+16 || b.Dy() != 8+6*16+8+2+8 {
		t.Fatalf("canvas %v", b)
	}
	top := 8 + 6*16 + 8
	for i, want := range []color.RGBA{{0, 0, 85, 255}, {255, 0, 0, 255}, black, {0, 255, 0, 255}} {
		if got := rgba(img, 8+i%2, top+i/2); got != want {
			t.Errorf("map pixel %d: %v, want %v", i, got, want)
		}
	}
	for _, p := range []image.Point{{7, top}, {10, top}, {8, top - 1}, {8, top + 2}} {
		if got := rgba(img, p.X, p.Y); got != white {
			t.Errorf("around the map %v: %v", p, got)
		}
	}
	// Nothing in the top margin; the title's and the info line's ink in
	// their own bands, from the left margin on.
	for y := 0; y < 8; y++ {
		for x := 0; x < img.Bounds().Dx(); x++ {
			if got := rgba(img, x, y); got != white {
				t.Fatalf("top margin pixel %d,%d: %v", x, y, got)
			}
		}
	}
	ink := func(x0, x1, y0, y1 int) int {
		n := 0
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				if rgba(img, x, y) == black {
					n++
				}
			}
		}
		return n
	}
	if ink(0, 8, 0, top) != 0 || ink(8, 15, 8, 24) == 0 || ink(15, img.Bounds().Dx(), 8, 24) != 0 || ink(8, 8+7*len(info), 24, 40) == 0 {
		t.Errorf("title and info ink: left margin %d, title %d, past the title %d, info %d",
			ink(0, 8, 0, top), ink(8, 15, 8, 24), ink(15, img.Bounds().Dx(), 8, 24), ink(8, 8+7*len(info), 24, 40))
	}
	for j, l := range legendRows(s.Stats) {
		y := 8 + (2+j)*16
		for yy := y; yy < y+16; yy++ {
			for xx := 7; xx <= 20; xx++ {
				want := white
				switch {
				case xx < 8 || xx > 19 || yy < y+2 || yy > y+13:
				case xx == 8 || xx == 19 || yy == y+2 || yy == y+13:
					want = black
				default:
					want = l.color
				}
				if got := rgba(img, xx, yy); got != want {
					t.Fatalf("legend row %d swatch pixel %d,%d: %v, want %v", j, xx, yy, got, want)
				}
			}
		}
		// The label starts 6 pixels after the swatch.
		if ink(20, 26, y, y+16) != 0 || ink(26, 26+7*len(l.label), y, y+16) == 0 {
			t.Errorf("legend row %d label ink: %d before x=26, %d after", j, ink(20, 26, y, y+16), ink(26, 26+7*len(l.label), y, y+16))
		}
	}
}

// TestTitleDefaultAndWidth: no title draws "heap"; a title of many-byte
// runes widens the canvas by 7 pixels a rune, a wide map by its width.
func TestTitleDefaultAndWidth(t *testing.T) {
	s := mixedHeap()
	o := Options{Width: 2, MaxRows: 2}
	none := Image(s, o)
	o.Title = "heap"
	named := Image(s, o)
	o.Title = "hea"
	other := Image(s, o)
	if !bytes.Equal(none.Pix, named.Pix) || bytes.Equal(none.Pix, other.Pix) {
		t.Error(`no title is not drawn as "heap"`)
	}
	o.Title = strings.Repeat("é", 200)
	if w := Image(s, o).Bounds().Dx(); w != 7*200+16 {
		t.Errorf("canvas of a 200-rune title: %d wide", w)
	}
	if w := Image(s, Options{Width: 1000}).Bounds().Dx(); w != 1000+16 {
		t.Errorf("canvas of a 1000-pixel map: %d wide", w)
	}
}

// TestMostlyFreeCellsDim: a pixel of mostly free units with some in use is
// a third of the used kind's colour, each channel.
func TestMostlyFreeCellsDim(t *testing.T) {
	s := snapshotOf(run{ddm.StateFree, 2}, run{hard(ddm.KindArray2), 1}, run{ddm.StateFree, 2}, run{hard(ddm.KindArray8), 1})
	img := Image(s, Options{Width: 1, MaxRows: 2})
	top := 8 + (2+3)*16 + 8 // free, 2-byte and 8-byte arrays in the legend
	for i, want := range []color.RGBA{{85, 42, 0, 255}, {85, 42, 42, 255}} {
		if got := rgba(img, 8, top+i); got != want {
			t.Errorf("pixel %d: %v, want %v", i, got, want)
		}
	}
}
