package viewer

import (
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// The prompt filters as it is typed; Enter keeps the filter, Esc restores
// the one from before; SetFilter changes it from outside.
func TestFooterPrompt(t *testing.T) {
	var filter string
	closed := 0
	f := NewFooter(func(s string) { filter = s })
	typ := func(ev *tcell.EventKey) { f.Input()(ev, func(tview.Primitive) {}) }
	f.Ask("", func() { closed++ })
	if !f.Prompting() {
		t.Fatal("not prompting")
	}
	for _, r := range "ab" {
		typ(tcell.NewEventKey(tcell.KeyRune, r, 0))
	}
	if filter != "ab" {
		t.Fatalf("filter %q while typing", filter)
	}
	typ(tcell.NewEventKey(tcell.KeyEnter, 0, 0))
	if f.Prompting() || filter != "ab" || closed != 1 {
		t.Fatalf("after Enter: prompting %v filter %q closed %d", f.Prompting(), filter, closed)
	}
	f.Ask(filter, func() { closed++ })
	typ(tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	if filter != "abc" {
		t.Fatalf("filter %q", filter)
	}
	typ(tcell.NewEventKey(tcell.KeyEscape, 0, 0))
	if f.Prompting() || filter != "ab" || closed != 2 {
		t.Fatalf("after Esc: prompting %v filter %q closed %d", f.Prompting(), filter, closed)
	}
	f.SetFilter("")
	if filter != "" {
		t.Fatalf("SetFilter left %q", filter)
	}
}
