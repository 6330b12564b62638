package heapview

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/tui/style"
)

// A minified app's dump opened with its mapping: the tables name the
// source's classes, the header says how many the mapping knew.
func TestViewerMapping(t *testing.T) {
	obf := map[string]string{"com.example.mail.MainActivity": "a.m", "com.example.mail.data.Store": "a.s"}
	file, _ := writeScene(t, scene.Options{ClassNames: func(n string) string {
		if o, ok := obf[n]; ok {
			return o
		}
		return n
	}})
	m, err := mapping.Parse([]byte("com.example.mail.MainActivity -> a.m:\ncom.example.mail.data.Store -> a.s:\n"))
	if err != nil {
		t.Fatal(err)
	}
	plain := open(t, file, "", 160, 50, style.Palette{})
	if s := plain.text(); strings.Contains(s, "com.example.mail.MainActivity") || !strings.Contains(s, "a.m ") || strings.Contains(plain.line(0), "mapping") {
		t.Fatalf("without the mapping:\n%s", s)
	}
	hs := openWith(t, Options{File: file, Mapping: m}, 160, 50)
	s := hs.text()
	if !strings.Contains(s, "com.example.mail.MainActivity") || strings.Contains(s, "a.m ") {
		t.Errorf("with the mapping:\n%s", s)
	}
	if h := hs.line(0); !strings.Contains(h, "mapping: 2 of ") || !strings.Contains(h, "wrong build?") {
		t.Errorf("header %q", h)
	}
}

// A converted dump (hprof-conv) says so in the header, and the message
// line says which leak conversion makes up; Android's own dump does not.
func TestViewerConvertedDump(t *testing.T) {
	file, _ := writeScene(t, scene.Options{})
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var conv bytes.Buffer
	if err := hprof.Convert(&conv, bytes.NewReader(data), hprof.ConvertOptions{}); err != nil {
		t.Fatal(err)
	}
	converted := filepath.Join(t.TempDir(), "conv.hprof")
	if err := os.WriteFile(converted, conv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := open(t, file, "", 80, 24, style.Palette{})
	if s := plain.text(); strings.Contains(s, "converted") {
		t.Errorf("Android's dump:\n%s", s)
	}
	hs := open(t, converted, "", 80, 24, style.Palette{})
	if h := hs.line(0); !strings.Contains(h, "converted: a leak may be false") {
		t.Errorf("header %q", h)
	}
	hs.must("converted by hprof-conv: leaks may be false.") // whole at 80 columns
}

// The Strings tab leaves out groups that waste nothing: "" and copies
// sharing one value array.
func TestViewerStringsWasteNothingLeftOut(t *testing.T) {
	var buf bytes.Buffer
	if err := scene.WasteKinds(&buf); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "s.hprof")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := open(t, file, "", 80, 24, style.Palette{})
	hs.keys("4")
	hs.must(`"real"`, "4 B")
	hs.mustNot(`""`, `"shared"`, " 0 B")
}
