package heapview

import (
	"strings"
	"testing"

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
