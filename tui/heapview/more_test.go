package heapview

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/tui/style"
)

// Given an earlier dump, the viewer opens on the diff: the class that
// grew first (D16's order), its deltas the scenes' difference; Enter lists
// its instances in the newer dump.
func TestDiffAgainstBaseline(t *testing.T) {
	old, eOld := writeScene(t, scene.Options{})
	const grown = "com.example.mail.data.Message"
	newer, eNew := writeScene(t, scene.Options{Filler: []hprof.ClassCount{{Name: grown, Instances: 300}}})
	hs := open(t, newer, old, 120, 40, style.Palette{})
	hs.must("6 Diff", "app.hprof vs app.hprof — ", "SHALLOW Δ ▼")
	if got := hs.v.Tab(); got != tabDiff {
		t.Fatalf("tab %d shown, want the diff", got)
	}
	was, now := eOld.ClassRow(grown), eNew.ClassRow(grown)
	first := fields(hs.line(3))
	wantInst := "+" + count(now.Instances-was.Instances)
	wantShallow := "+" + size(now.Shallow-was.Shallow)
	if first[0] != grown || first[1] != wantInst || first[2]+" "+first[3] != wantShallow {
		t.Errorf("first diff row %q, want %s %s %s", hs.line(3), grown, wantInst, wantShallow)
	}
	hs.keys("n") // by name
	hs.must("CLASS ▼")
	hs.filter("Message")
	hs.enter()
	if got, want := hs.v.Current().Title(), fmt.Sprintf("Message ×%s (all heaps)", count(now.Instances)); got != want {
		t.Errorf("Enter opened %q, want %q", got, want)
	}
	if n := strings.Count(hs.text(), grown+"@"); n != min(now.Instances, 40-4) {
		t.Errorf("%d instances drawn", n)
	}
}

// Class names and strings from the dump are data: tview colour tags and
// control characters are drawn literally or dropped, never obeyed.
func TestDumpStringsAreEscaped(t *testing.T) {
	var buf bytes.Buffer
	b, err := scene.NewBuilder(&buf, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	evil := b.Class("com.evil.\x1b[31mRed[yellow]X", nil)
	x := b.Instance(evil, nil)
	b.Root(hprof.SubRootJNIGlobal, x)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "evil[red].hprof")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := open(t, file, "", 120, 30, style.Palette{})
	hs.must("evil[red].hprof", "Red[yellow]X")
	if strings.ContainsRune(hs.text(), 0x1b) {
		t.Error("an escape character reached the screen")
	}
	y := hs.row("Red[yellow]X")
	for x := 0; x < 20; x++ {
		if _, fg, _ := hs.cellColours(x, y); fg == tcell.ColorYellow {
			t.Fatalf("the class name's [yellow] coloured the cell:\n%s", hs.text())
		}
	}
}

// At 80 × 24 every tab still shows its rows and the footer.
func TestSmallTerminal(t *testing.T) {
	file, e := writeScene(t, scene.Options{API: 35, BitmapFormat: "png"})
	hs := open(t, file, "", 80, 24, style.Palette{})
	hs.must("CLASS", "RETAINED ▼", "Enter open")
	hs.keys("3")
	hs.must("LEAKED", "Chain from the GC root", hex(e.Leaks[0].ID))
	hs.keys("5")
	hs.enter()
	hs.must("64 × 48 pixels")
	if hs.row("▀") < 0 {
		t.Errorf("no bitmap drawn at 80 × 24:\n%s", hs.text())
	}
	hs.keys("?")
	hs.must("Heap dump keys", "the heap shown, app → all heaps → each other")
}

// A view closed while its dump is analysed releases the dump when the
// analysis ends, and shows nothing of it.
func TestCloseWhileAnalysing(t *testing.T) {
	file, _ := writeScene(t, scene.Options{})
	r := &testRunner{ctx: t.Context()}
	v := New(Options{File: file, Runner: r})
	v.Load()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	r.run()
	if v.Model() != nil || v.loaded != nil {
		t.Error("a closed view took the model")
	}
}

// Closing the view while the leaks, bitmaps and strings are still being
// searched for (the dashboard's second H does) keeps the dump mapped until
// the search ends, then releases it: the search never reads a closed dump.
func TestCloseWhileFindingExtras(t *testing.T) {
	file, _ := writeScene(t, scene.Options{})
	r := &testRunner{ctx: t.Context()}
	v := New(Options{File: file, Runner: r})
	v.Load()
	r.step() // the analysis, shown: the search for the extras is queued
	if v.Model() == nil || len(r.jobs) != 1 {
		t.Fatalf("model %v, %d jobs queued; want the model and the extras' search", v.Model(), len(r.jobs))
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if v.loaded == nil {
		t.Fatal("Close released the dump while the search still reads it")
	}
	r.run() // reads the dump: a released one panics
	if v.loaded != nil || v.busy != 0 {
		t.Errorf("after the search: loaded %v, busy %d; want the dump released", v.loaded, v.busy)
	}
	if v.Model().Leaks() != nil {
		t.Error("the closed view took the extras")
	}
}

// A file naming more heaps than the viewer makes tables for gets the
// all-heaps table, and z stays on it.
func TestManyHeapsGetOneTable(t *testing.T) {
	var buf bytes.Buffer
	b, err := scene.NewBuilder(&buf, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	c := b.Class("com.example.Thing", nil)
	for i := range maxHeapTables + 2 {
		b.HeapInfo(uint32(0x100+i), fmt.Sprintf("heap%d", i))
		b.Root(hprof.SubRootJNIGlobal, b.Instance(c, nil))
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "heaps.hprof")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := open(t, file, "", 100, 20, style.Palette{})
	hs.must("1 Classes (all heaps)", "com.example.Thing")
	if got := fields(hs.line(hs.row("com.example.Thing"))); got[1] != count(maxHeapTables+2) {
		t.Errorf("Thing row %q", got)
	}
	hs.keys("z")
	hs.must("1 Classes (all heaps)")
}

// Pages pushed and left are forgotten past a bound; the tabs never are.
func TestPushedPagesAreBounded(t *testing.T) {
	file, _ := writeScene(t, scene.Options{})
	hs := open(t, file, "", 100, 30, style.Palette{})
	in := hs.v.InputHandler()
	for range maxPagesKept + 10 { // the instances of the first class, and back
		in(tcell.NewEventKey(tcell.KeyEnter, 0, 0), func(tview.Primitive) {})
		in(tcell.NewEventKey(tcell.KeyBackspace2, 0, 0), func(tview.Primitive) {})
	}
	if len(hs.v.pageRows) > maxPagesKept+6 || len(hs.v.pushed) != maxPagesKept {
		t.Errorf("%d rows kept, %d pushed", len(hs.v.pageRows), len(hs.v.pushed))
	}
	hs.keys("2")
	hs.enter()
	if hs.object() == "" {
		t.Errorf("Enter on a dominator after many pages:\n%s", hs.text())
	}
}
