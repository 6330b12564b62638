package keymap

import (
	"testing"

	"github.com/gdamore/tcell/v2"
)

// A scoped binding acts only through HandleScope; the same key unscoped
// keeps its meaning everywhere else.
func TestScopedBindings(t *testing.T) {
	var got []string
	m := New(
		Bind(tcell.KeyRune, 'G', "G", "cause a GC", "Heap", func() { got = append(got, "gc") }).As("gc"),
		Bind(tcell.KeyRune, 'G', "G", "follow the log", "Log", func() { got = append(got, "follow") }).As("log-follow").In("log pane"),
		Bind(tcell.KeyRune, 'w', "w", "wrap", "Log", func() { got = append(got, "wrap") }).As("log-wrap").In("log pane"),
	)
	ev := func(r rune) *tcell.EventKey { return tcell.NewEventKey(tcell.KeyRune, r, 0) }
	if !m.Handle(ev('G')) || m.Handle(ev('w')) {
		t.Fatal("unscoped handling")
	}
	if !m.HandleScope(ev('G'), "log pane") || !m.HandleScope(ev('w'), "log pane") || m.HandleScope(ev('x'), "log pane") {
		t.Fatal("scoped handling")
	}
	if want := "gc follow wrap"; join(got) != want {
		t.Fatalf("ran %q, want %q", join(got), want)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
