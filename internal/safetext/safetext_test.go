package safetext

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

func TestTerminal(t *testing.T) {
	cases := []struct{ in, want string }{
		{"main", "main"},
		{"Binder:1234_2", "Binder:1234_2"},
		{"évil ünïcode 中文", "évil ünïcode 中文"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"bell\a", `bell\x07`},
		{"del\x7f", `del\x7f`},
		{"c1\u009bx", `c1\u009bx`},
		{"rtl\u202egnp.exe", `rtl\u202egnp.exe`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"tab\tnl\n", `tab\x09nl\x0a`},
	}
	for _, c := range cases {
		if got := Terminal(c.in); got != c.want {
			t.Errorf("Terminal(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// safetext is a leaf: the codecs and analyses that escape text for a
// terminal (trace, hprof, headless) must not link a UI package through it.
// The tview escaping lives in tui/style.
func TestNoUIImports(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil || len(names) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); strings.Contains(strings.Split(p, "/")[0], ".") {
				t.Errorf("%s imports %s: safetext uses only the standard library", name, p)
			}
		}
	}
}
