package heappng

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
)

// A heap of known runs drawn at one unit per pixel: every map pixel has the
// colour of the unit it stands for, and the legend lists the kinds present.
func TestImageMatchesUnits(t *testing.T) {
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.Start(0x1000)
	var states []ddm.State
	add := func(st ddm.State, n uint32) {
		w.Append(st, n)
		for i := uint32(0); i < n; i++ {
			states = append(states, st)
		}
	}
	add(ddm.NewState(ddm.KindObject, ddm.SolidityHard), 7)
	add(ddm.StateFree, 5)
	add(ddm.NewState(ddm.KindArray2, ddm.SolidityHard), 300)
	add(ddm.NewState(ddm.KindClass, ddm.SolidityHard), 20)
	snap := heap.NewSnapshot(1, ddm.TypeHPSG, w.Segments())
	o := Options{Title: "test heap", Width: 64}
	width, rows, per := Layout(snap, o)
	if width != 64 || per != 1 || rows != (len(states)+63)/64 {
		t.Fatalf("layout %d x %d, %d per pixel", width, rows, per)
	}
	var buf bytes.Buffer
	if err := Render(&buf, snap, o); err != nil {
		t.Fatal(err)
	}
	decoded, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	legend := legendRows(snap.Stats)
	if len(legend) != 4 { // free, object, class, 2-byte arrays
		t.Fatalf("legend %+v", legend)
	}
	top := margin + (2+len(legend))*lineH + margin
	for i, st := range states {
		r, g, b, _ := decoded.At(margin+i%64, top+i/64).RGBA()
		want := Color(st)
		if uint8(r>>8) != want.R || uint8(g>>8) != want.G || uint8(b>>8) != want.B {
			t.Fatalf("pixel of unit %d is %d,%d,%d, want %v", i, r>>8, g>>8, b>>8, want)
		}
	}
	// Past the last unit: background.
	r, g, b, _ := decoded.At(margin+len(states)%64, top+len(states)/64).RGBA()
	if r>>8 != 255 || g>>8 != 255 || b>>8 != 255 {
		t.Fatal("pixels after the heap are not background")
	}
}

func TestLargeHeapScalesDown(t *testing.T) {
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.Start(0)
	for i := 0; i < 5000; i++ {
		w.Append(ddm.NewState(ddm.Kind(i%6), ddm.SolidityHard), 200)
	}
	snap := heap.NewSnapshot(1, ddm.TypeHPSG, w.Segments())
	width, rows, per := Layout(snap, Options{Width: 100, MaxRows: 50})
	if rows > 50 || per*uint64(width*rows) < snap.Units() {
		t.Fatalf("%d rows of %d at %d per pixel cannot hold %d units within 50 rows", rows, width, per, snap.Units())
	}
	img := Image(snap, Options{Width: 100, MaxRows: 50})
	if img.Bounds().Dx() < 100+2*margin {
		t.Fatalf("width %d", img.Bounds().Dx())
	}
}
