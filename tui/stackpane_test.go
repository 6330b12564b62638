package tui

import (
	"regexp"
	"strings"
	"testing"
)

var tviewTag = regexp.MustCompile(`\[[^\[\]]*\]`)

// A frame too wide for the pane wraps between its parts: never inside a
// name, and "at" never on a line of its own.
func TestStackFramesWrapBetweenParts(t *testing.T) {
	plain := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			out = append(out, tviewTag.ReplaceAllString(l, ""))
		}
		return out
	}
	if got := plain(frameLines("a.B", "run", "B.java:1", 80)); len(got) != 1 || got[0] != "at a.B.run(B.java:1)" {
		t.Fatalf("short frame: %q", got)
	}
	got := plain(frameLines("android.os.MessageQueue", "nativePollOnce", "Native Method", 38))
	if len(got) < 3 || got[len(got)-1] != "    (Native Method)" || !strings.HasPrefix(got[0], "at android.") {
		t.Errorf("wrapped frame: %q", got)
	}
	for _, l := range got {
		if len([]rune(l)) > 38 {
			t.Errorf("line wider than 38: %q (%q)", l, got)
		}
		if strings.TrimSpace(l) == "at" {
			t.Errorf("'at' alone: %q", got)
		}
	}
	joined := strings.Join(got, "")
	for _, name := range []string{"android.", "MessageQueue.", "nativePollOnce", "(Native Method)"} {
		if !strings.Contains(strings.ReplaceAll(joined, "    ", ""), name) {
			t.Errorf("%q broken inside: %q", name, got)
		}
	}
}
