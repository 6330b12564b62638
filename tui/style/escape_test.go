package style

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// render draws text in a one-line TextView with dynamic colours (as every
// view that shows peer strings does) and returns the screen's runes and
// whether any cell carries a hyperlink.
func render(t *testing.T, text string) (shown, url string) {
	t.Helper()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	defer s.Fini()
	s.SetSize(80, 1)
	tv := tview.NewTextView().SetDynamicColors(true).SetWrap(false).SetText(text)
	tv.SetRect(0, 0, 80, 1)
	tv.Draw(s)
	s.Show()
	cells, _, _ := s.GetContents()
	var b strings.Builder
	for _, c := range cells {
		if len(c.Runes) > 0 {
			b.WriteString(string(c.Runes))
		}
		if hasURL(c.Style) {
			url = "set"
		}
	}
	return strings.TrimRight(b.String(), " "), url
}

// hasURL reports whether st carries a hyperlink (tcell has no getter:
// compare with the style without one).
func hasURL(st tcell.Style) bool { return st.Url("") != st }

// Peer strings print literally, whatever tag they hold: colours,
// attributes, regions, and OSC 8 hyperlinks (issue 30 item 3: tview's
// Escape left "[:::http://evil.example]" a live link).
func TestEscapePrintsTagsLiterally(t *testing.T) {
	for _, in := range []string{
		"[:::http://evil.example]link[:::-]",
		"[:::https://evil.example/a?b=c]x[:::-]",
		"[red]x",
		"[::b]bold[::-]",
		`["region"]r[""]`,
		"[red[]",
		"a[b[]c[[d]]",
		"[",
		"tail[",
		"[#ff0000:#00ff00:bu]x",
		"[-:-:-:-]",
		"[][[]]",
	} {
		shown, url := render(t, Escape(in))
		if shown != in || url != "" {
			t.Errorf("Escape(%q) shows %q (hyperlink %q)", in, shown, url)
		}
	}
}

// Control characters are written out before the tags are neutralised.
func TestEscapeControlCharacters(t *testing.T) {
	got := Escape("[red]evil\x1b]0;pwned\x07")
	if want := `[[:]red]evil\x1b]0;pwned\x07`; got != want {
		t.Fatalf("Escape = %q, want %q", got, want)
	}
	if shown, _ := render(t, got); shown != `[red]evil\x1b]0;pwned\x07` {
		t.Fatalf("shown %q", shown)
	}
	if got := Escape("plain"); got != "plain" {
		t.Fatalf("Escape(plain) = %q", got)
	}
}

// The old escaping (tview.Escape) let the hyperlink through: this is the
// attack the test above guards against.
func TestTviewEscapeLeavesHyperlinks(t *testing.T) {
	in := "[:::http://evil.example]link[:::-]"
	if shown, url := render(t, tview.Escape(in)); shown == in && url == "" {
		t.Skip("tview's Escape now neutralises URL tags; Escape's own test still applies")
	}
}

// Our own text keeps its line breaks; its brackets print.
func TestEscapeTags(t *testing.T) {
	if got, want := EscapeTags("[ ]  process\n[red]"), "[[:] ]  process\n[[:]red]"; got != want {
		t.Fatalf("EscapeTags = %q, want %q", got, want)
	}
	if shown, _ := render(t, EscapeTags("keys [:::http://x]")); shown != "keys [:::http://x]" {
		t.Fatalf("shown %q", shown)
	}
}
