package heapview

import (
	"github.com/ddmtui/ddmtui/testkit/alloccount"
	"path/filepath"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/tui/style"
)

// Issue 37 #4: a dump's dumpData holding an 8192² 16-bit PNG (512 MiB
// decoded) or a progressive 8192² JPEG (1 GiB with its coefficients), each
// under 0.5 MB, is refused from its header on Enter and on s, before
// anything is decoded.
func TestHostileBitmapRefusedBeforeDecoding(t *testing.T) {
	for _, c := range []struct {
		format, want string
		pic          []byte
	}{
		{"png", "png: 8192×8192 pixels need 512 MiB to decode", hostile.PNG(8192, 8192, 16, 6, false, 2)},
		{"jpg", "jpeg: 8192×8192 pixels need 960 MiB to decode", hostile.ProgressiveJPEG(8192, 8192, false)},
	} {
		hs, _ := openHero(t, scene.Options{API: 35, BitmapFormat: c.format, HeroPicture: c.pic}, style.Palette{})
		if got := alloccount.Bytes(hs.enter); got > 16<<20 {
			t.Errorf("%s: Enter allocated %d MiB", c.format, got>>20)
		}
		hs.must("The pixels cannot be drawn: "+c.want, "over the bound of 128 MiB")
		hs.back()
		if got := alloccount.Bytes(func() { hs.keys("s") }); got > 16<<20 {
			t.Errorf("%s: s allocated %d MiB", c.format, got>>20)
		}
		hs.must(c.want)
		if saved, _ := filepath.Glob(filepath.Join(hs.v.opt.SaveDir, "*")); len(saved) != 0 {
			t.Errorf("%s: saved %v", c.format, saved)
		}
	}
}

// C cancels a bitmap's decode, even pressed before the job has started:
// a 4096² PNG (64 MiB decoded, within the bound) costs nothing then.
func TestBitmapDecodeCancelled(t *testing.T) {
	hs, _ := openHero(t, scene.Options{API: 35, BitmapFormat: "png", HeroPicture: hostile.PNG(4096, 4096, 8, 6, false, 4096)}, style.Palette{})
	got := alloccount.Bytes(func() {
		h := hs.v.InputHandler()
		h(tcell.NewEventKey(tcell.KeyEnter, 0, 0), func(tview.Primitive) {})
		h(tcell.NewEventKey(tcell.KeyRune, 'C', 0), func(tview.Primitive) {})
		hs.r.run()
		hs.draw()
	})
	hs.must("decoding the bitmap: cancelled")
	if got > 16<<20 {
		t.Errorf("a cancelled decode allocated %d MiB", got>>20)
	}
	// Not cancelled, it is drawn.
	hs.enter()
	hs.must("4096 × 4096 pixels")
}
