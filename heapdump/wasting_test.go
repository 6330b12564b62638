package heapdump

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// Groups that waste nothing (empty strings; copies sharing one array) are
// duplicates by D13 and in the JSON, but Wasting and the text report leave
// them out.
func TestWastelessDuplicatesLeftOut(t *testing.T) {
	var buf bytes.Buffer
	b, err := scene.NewBuilder(&buf, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	object := b.Class("java.lang.Object", nil)
	str := b.Class("java.lang.String", object, scene.F("count", hprof.TypeInt), scene.F("value", hprof.TypeObject))
	holder := b.Class("Holder", object, scene.F("a", hprof.TypeObject), scene.F("b", hprof.TypeObject), scene.F("c", hprof.TypeObject),
		scene.F("d", hprof.TypeObject), scene.F("e", hprof.TypeObject), scene.F("f", hprof.TypeObject))
	object.Dump()
	str.Dump()
	holder.Dump()
	shared := b.Bytes([]byte("shared"))
	v := scene.V{
		"a": b.Instance(str, scene.V{"count": 0, "value": b.Bytes(nil)}),
		"b": b.Instance(str, scene.V{"count": 0, "value": b.Bytes(nil)}),
		"c": b.Instance(str, scene.V{"count": 6, "value": shared}),
		"d": b.Instance(str, scene.V{"count": 6, "value": shared}),
		"e": b.Instance(str, scene.V{"count": 4, "value": b.Bytes([]byte("real"))}),
		"f": b.Instance(str, scene.V{"count": 4, "value": b.Bytes([]byte("real"))}),
	}
	b.Root(hprof.SubRootStickyClass, b.Instance(holder, v))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	h := analyseBytes(t, buf.Bytes())
	defer h.Close()
	all := h.Strings().Duplicates()
	if len(all) != 3 {
		t.Fatalf("duplicates %+v", all)
	}
	if w := Wasting(all); len(w) != 1 || w[0].Value != "real" || w[0].Wasted != 4 {
		t.Errorf("wasting %+v", w)
	}
	r := h.Report(0)
	if len(r.DuplicateStrings) != 3 {
		t.Errorf("JSON duplicates %+v", r.DuplicateStrings)
	}
	var text bytes.Buffer
	if err := WriteText(&text, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	s := text.String()
	if !strings.Contains(s, `"real"`) || strings.Contains(s, `""`) || strings.Contains(s, `"shared"`) {
		t.Errorf("text:\n%s", s)
	}
}
