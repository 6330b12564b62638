package heapview

import (
	"context"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/tui/style"
)

// A heap fed through heapdump.Builder (as a heap graph is: references
// only) is shown like any dump, and the tabs it cannot fill say why
// instead of "none": its Strings and Bitmaps, and its Leaks but the
// detached Fragments.
func TestHeapWithoutValues(t *testing.T) {
	b := heapdump.NewBuilder("heap graph", heapdump.Options{})
	b.Type(heapdump.Type{ID: 1, Name: "java.lang.Class"})
	b.Type(heapdump.Type{ID: 2, Name: "com.example.Cache", InstanceSize: 16, RefFields: []string{"items"}})
	b.Type(heapdump.Type{ID: 3, Name: "java.lang.Object[]"})
	b.Object(heapdump.Object{ID: 0x10, Type: 1, Kind: heapdump.KindClass, ClassOf: 2, Size: 4, Refs: []uint64{0x20}, RefFields: []string{"sCache"}})
	b.Object(heapdump.Object{ID: 0x20, Type: 2, Kind: heapdump.KindInstance, Size: heapdump.SizeOfType, Heap: "app", Refs: []uint64{0x30}})
	b.Object(heapdump.Object{ID: 0x30, Type: 3, Kind: heapdump.KindObjectArray, Size: 8, Heap: "app", Refs: []uint64{0x20, 0}})
	h, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, r: &testRunner{ctx: context.Background()}, screen: tcell.NewSimulationScreen("UTF-8"), w: 120, h: 30}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.screen.Fini)
	hs.screen.SetSize(hs.w, hs.h)
	hs.v = New(Options{File: "graph", Palette: style.Palette{}, Runner: hs.r, SaveDir: t.TempDir()})
	t.Cleanup(func() { hs.v.Close() })
	hs.v.SetRect(0, 0, hs.w, hs.h)
	hs.v.SetModel(NewModel(h, "graph", nil))
	hs.r.run()
	hs.draw()
	hs.must("1 Classes (heap app)", "com.example.Cache", unavailableNote)
	hs.keys("4")
	hs.must("not in this dump: the dump holds references only")
	hs.keys("5")
	hs.must("not in this dump: the dump holds references only")
	hs.keys("3")
	hs.must("no detached Fragment; destroyed or finished Activities: the dump holds")
	hs.keys("2")
	hs.must("class com.example.Cache")
}
