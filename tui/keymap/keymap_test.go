package keymap

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestHandleAndHelpFromOneTable(t *testing.T) {
	var got []string
	m := New(
		Rune('j', "move down", func() { got = append(got, "down") }),
		Binding{Key: tcell.KeyDown, Action: func() { got = append(got, "down") }, Hidden: true},
		Binding{Key: tcell.KeyRune, Rune: 'q', Label: "q/Ctrl-C", Help: "quit", Group: "General", Action: func() { got = append(got, "quit") }},
		Key(tcell.KeyTab, "next pane", func() { got = append(got, "tab") }),
	)
	for _, ev := range []*tcell.EventKey{
		tcell.NewEventKey(tcell.KeyRune, 'j', 0),
		tcell.NewEventKey(tcell.KeyDown, 0, 0),
		tcell.NewEventKey(tcell.KeyTab, 0, 0),
		tcell.NewEventKey(tcell.KeyRune, 'q', 0),
	} {
		if !m.Handle(ev) {
			t.Fatalf("key %v not handled", ev.Name())
		}
	}
	if m.Handle(tcell.NewEventKey(tcell.KeyRune, 'x', 0)) {
		t.Fatal("unbound key x reported as handled")
	}
	if strings.Join(got, ",") != "down,down,tab,quit" {
		t.Fatalf("actions ran: %v", got)
	}
	help := m.HelpText()
	for _, want := range []string{"j         move down", "Tab       next pane", "General", "q/Ctrl-C  quit"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "Down") {
		t.Errorf("hidden alias listed in help:\n%s", help)
	}
}
