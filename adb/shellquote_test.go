package adb

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

func TestShellQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/data/local/tmp/a.hprof", "/data/local/tmp/a.hprof"},
		{"com.example.app", "com.example.app"},
		{"", "''"},
		{"a b", "'a b'"},
		{"x;reboot;{cd,sdcard}", "'x;reboot;{cd,sdcard}'"},
		{"it's", `'it'\''s'`},
		{"$(id)`id`", "'$(id)`id`'"},
		{"a\nb", "'a\nb'"},
		{"~root", "'~root'"},
		{"*", "'*'"},
		{"-", "-"},
	} {
		if got := ShellQuote(c.in); got != c.want {
			t.Errorf("ShellQuote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := ShellCommand("am", "dumpheap", "12", "/sdcard/a b"); got != "am dumpheap 12 '/sdcard/a b'" {
		t.Errorf("ShellCommand = %q", got)
	}
}

// A real sh reads every quoted word back as the one argument it was, with
// nothing run: the property the device's shell relies on.
func TestShellQuoteRealShell(t *testing.T) {
	sh := testpeer.Require(t, "sh")
	words := []string{"x;touch /tmp/ddmtui-pwned;{cd,sdcard}", "it's", "$(id)", "`id`", "a\nb", "  ", "\\", "'", "\"", "*", "&|<>()", "ü€", ""}
	cmd := `for a in "$@"; do printf '%s\0' "$a"; done`
	line := "set -- " + strings.Join(quoteAll(words), " ") + "; " + cmd
	out, err := exec.Command(sh, "-c", line).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(words) {
		t.Fatalf("sh read %d words, want %d: %q", len(got), len(words), got)
	}
	for i := range words {
		if got[i] != words[i] {
			t.Errorf("word %d: sh read %q, want %q", i, got[i], words[i])
		}
	}
}

func quoteAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = ShellQuote(w)
	}
	return out
}

// unquote reads one POSIX shell word made of plain characters, single-
// quoted runs and backslash-escaped characters, as sh does; ok is false
// if anything else (an unquoted special character) appears.
func unquote(w string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(w); {
		switch c := w[i]; {
		case c == '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 2
		case c == '\\' && i+1 < len(w):
			b.WriteByte(w[i+1])
			i += 2
		case shellPlain(rune(c)):
			b.WriteByte(c)
			i++
		default:
			return "", false
		}
	}
	return b.String(), true
}

func FuzzShellQuote(f *testing.F) {
	for _, s := range []string{"", "a", "x;reboot;{cd,sdcard}", "it's", "'''", "$(id)", "\x00\n\t", "ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := ShellQuote(s)
		got, ok := unquote(q)
		if !ok || got != s {
			t.Fatalf("ShellQuote(%q) = %q, read back as %q (ok %v)", s, q, got, ok)
		}
	})
}
