package heapdump

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// A converted dump says so in the report, the JSON and the text, with the
// leak conversion makes up; Android's own dump and a JVM's (1.0.2 without
// Android's classes) say nothing. The scene's standard form is Android's
// heap as hprof-conv writes it: converted too.
func TestConvertedDumpIsSaid(t *testing.T) {
	android, e, err := scene.Android(scene.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var conv bytes.Buffer
	if err := hprof.Convert(&conv, bytes.NewReader(android), hprof.ConvertOptions{}); err != nil {
		t.Fatal(err)
	}
	standard, _, err := scene.Standard(scene.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var jvm bytes.Buffer
	b, err := scene.NewBuilder(&jvm, 8, hprof.VersionStandard)
	if err != nil {
		t.Fatal(err)
	}
	object := b.Class("java.lang.Object", nil)
	foo := b.Class("com.example.Foo", object, scene.F("next", hprof.TypeObject))
	object.Dump()
	foo.Dump()
	b.Root(hprof.SubRootUnknown, b.Instance(foo, scene.V{}))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		want bool
	}{{"android", android, false}, {"converted", conv.Bytes(), true}, {"standard", standard, true}, {"jvm", jvm.Bytes(), false}} {
		h := analyseBytes(t, c.data)
		r := h.Report(0)
		var text bytes.Buffer
		if err := WriteText(&text, r, TextOptions{File: c.name}); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(text.String(), "converted by hprof-conv")
		if h.Converted() != c.want || (r.Converted == ConvertedNote) != c.want || said != c.want {
			t.Errorf("%s: Converted %v, report %q, text says it %v; want %v", c.name, h.Converted(), r.Converted, said, c.want)
		}
		h.Close()
	}
	// The note names the leak that conversion adds.
	added := e.Converted().Leaks
	if len(added) != len(e.Leaks)+1 || !strings.Contains(ConvertedNote, "destroyed Activity") || !strings.Contains(ConvertedNote, "ROOT UNREACHABLE") {
		t.Errorf("leaks %d → %d after conversion; note %q", len(e.Leaks), len(added), ConvertedNote)
	}
}
