package heapdump

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
)

// Groups that waste nothing (empty strings; copies sharing one array) are
// duplicates by D13 and in the JSON, but Wasting and the text report leave
// them out.
func TestWastelessDuplicatesLeftOut(t *testing.T) {
	var buf bytes.Buffer
	if err := scene.WasteKinds(&buf); err != nil {
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
