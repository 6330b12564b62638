package viewsview

import (
	"strconv"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/viewtree"
)

// listWindow is a window of a toolbar and a list of rows of three views:
// 4+3*rows views in all.
func listWindow(rows int) []byte {
	var kids []*fakeView
	for r := 0; r < rows; r++ {
		y := int32(r * 192)
		kids = append(kids, &fakeView{class: "android.widget.LinearLayout", hash: uint32(100 + r), l: 0, t: y, w: 1080, h: 192,
			kids: []*fakeView{
				{class: "android.widget.ImageView", hash: uint32(1000 + r), id: "id/icon", l: 32, t: 24, w: 144, h: 144},
				{class: "android.widget.TextView", hash: uint32(2000 + r), id: "id/label", text: "Item " + strconv.Itoa(r), l: 208, t: 24, w: 800, h: 96},
			}})
	}
	list := &fakeView{class: "androidx.recyclerview.widget.RecyclerView", hash: 3, id: "id/list", t: 168, w: 1080, h: 2000, kids: kids}
	bar := &fakeView{class: "androidx.appcompat.widget.Toolbar", hash: 2, id: "id/toolbar", w: 1080, h: 168}
	root := &fakeView{class: "com.android.internal.policy.DecorView", hash: 1, w: 1080, h: 2400, kids: []*fakeView{bar, list}}
	e := viewtree.NewEncoder()
	encode(e, root)
	return e.EndStream()
}

func benchDumpAndDraw(b *testing.B, rows int) {
	data := listWindow(rows)
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		b.Fatal(err)
	}
	defer screen.Fini()
	screen.SetSize(120, 40)
	v := New(Options{Palette: style.Palette{}})
	v.SetRect(0, 0, 120, 40)
	v.windows = []string{"w"}
	b.ReportAllocs()
	for b.Loop() {
		t, err := viewtree.DecodeV2(data)
		if err != nil {
			b.Fatal(err)
		}
		v.SetTree(t, nil)
		v.move(5)
		v.Draw(screen)
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(33*time.Millisecond), "frames/op")
}

// The target: a 60-view window's dump decoded, listed and drawn
// (tree, wireframe, properties) within one frame (33 ms) of the reply.
func BenchmarkDumpAndDraw60Views(b *testing.B) { benchDumpAndDraw(b, 19) }

// A 2,000-view tree is decoded and drawn without stalling the UI.
func BenchmarkDumpAndDraw2000Views(b *testing.B) { benchDumpAndDraw(b, 665) }
