package heapdump

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// A path's first element says which kind of GC root it is, as MAT does:
// the kind of its root record (the first of several), "sticky class" for
// a class object no record names; the JSON and the text of `hprof path` say it.
func TestRootKindOnPaths(t *testing.T) {
	var buf bytes.Buffer
	b, err := scene.NewBuilder(&buf, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	object := b.Class("java.lang.Object", nil)
	box := b.Class("Box", object, scene.F("next", hprof.TypeObject))
	object.Dump()
	box.Dump()
	leafA, leafB, leafC := b.Instance(box, scene.V{}), b.Instance(box, scene.V{}), b.Instance(box, scene.V{})
	thread := b.Instance(box, scene.V{"next": leafA})
	global := b.Instance(box, scene.V{"next": leafB})
	twice := b.Instance(box, scene.V{"next": leafC})
	b.Root(hprof.SubRootThreadObject, thread)
	b.Root(hprof.SubRootJNIGlobal, global)
	b.Root(hprof.SubRootStickyClass, twice)
	b.Root(hprof.SubRootVMInternal, twice)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	h := analyseBytes(t, buf.Bytes())
	defer h.Close()
	for id, want := range map[uint64]string{thread: "thread", global: "JNI global", twice: "sticky class", leafA: "", box.ID: "sticky class"} {
		if got := h.RootKind(node(t, h, id)); got != want {
			t.Errorf("%#x: root kind %q, want %q", id, got, want)
		}
	}
	ps, err := h.Paths().Of([]uint64{leafA, leafB, leafC})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"thread", "JNI global", "sticky class"} {
		p := ps.Paths[i].Path
		if len(p) != 2 || p[0].Root != want || p[1].Root != "" {
			t.Errorf("path %d: %+v, want root %q", i, p, want)
		}
	}
	var text bytes.Buffer
	if err := WritePathText(&text, ps); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(GC root: thread)", "(GC root: JNI global)", "(GC root: sticky class)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}
