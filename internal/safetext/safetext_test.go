package safetext

import "testing"

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

func TestTview(t *testing.T) {
	got := Tview("[red]evil\x1b]0;pwned\x07")
	want := `[red[]evil\x1b]0;pwned\x07`
	if got != want {
		t.Fatalf("Tview = %q, want %q", got, want)
	}
}
