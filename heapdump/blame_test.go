package heapdump

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
)

// The report marks each leak's likely cause (BlameStep) in its JSON
// (blame: the index of the hop) and its text (the hop's line).
func TestReportMarksTheLikelyCause(t *testing.T) {
	data, _, err := scene.Build(scene.Options{API: 24})
	if err != nil {
		t.Fatal(err)
	}
	h, err := Analyze(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	r := h.Report(DefaultTop)
	want := map[string]string{
		"com.example.mail.InboxActivity":    "sListeners",
		"com.example.mail.ComposeActivity":  "mCallback",
		"com.example.mail.SettingsActivity": "target",
	}
	seen := 0
	for _, l := range r.Leaks {
		w, ok := want[l.Class]
		if !ok {
			continue
		}
		seen++
		if l.Blame < 1 || l.Blame >= len(l.Path) || *l.Path[l.Blame].Field != w {
			t.Errorf("%s: blame %d in a path of %d, want the hop %q", l.Class, l.Blame, len(l.Path), w)
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of the %d planted leaks reported", seen, len(want))
	}
	var b bytes.Buffer
	if err := WriteText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	marked, planted := 0, 0
	for _, line := range strings.Split(b.String(), "\n") {
		if !strings.HasSuffix(line, "← likely cause") {
			continue
		}
		marked++
		for _, w := range want {
			if strings.Contains(line, "└─ "+w+" → ") {
				planted++
			}
		}
	}
	if marked != len(r.Leaks) || planted != len(want) {
		t.Errorf("%d lines marked for %d leaks, %d of them the planted hops:\n%s", marked, len(r.Leaks), planted, b.String())
	}
}
