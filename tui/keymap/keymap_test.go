package keymap

import (
	"fmt"
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

func TestMoveKeys(t *testing.T) {
	var moves []int
	page := func() int { return 10 }
	m := New(MoveKeys("Move", "row", true, func(d int) { moves = append(moves, d) }, page)...)
	for _, ev := range []*tcell.EventKey{
		tcell.NewEventKey(tcell.KeyRune, 'j', 0), tcell.NewEventKey(tcell.KeyUp, 0, 0),
		tcell.NewEventKey(tcell.KeyCtrlF, 0, tcell.ModCtrl), tcell.NewEventKey(tcell.KeyPgUp, 0, 0),
		tcell.NewEventKey(tcell.KeyRune, 'g', 0), tcell.NewEventKey(tcell.KeyEnd, 0, 0),
	} {
		if !m.Handle(ev) {
			t.Fatalf("%s not handled", ev.Name())
		}
	}
	if fmt.Sprint(moves) != fmt.Sprint([]int{1, -1, 10, -10, -1 << 30, 1 << 30}) {
		t.Fatalf("moves %v", moves)
	}
	if rows := m.Help(); len(rows) != 6 || rows[0].Help != "next row" || rows[4].Keys != "g/Home" {
		t.Fatalf("help %+v", rows)
	}
	// Without vim jumps, g stays free for the view.
	plain := New(MoveKeys("Move", "row", false, func(int) {}, page)...)
	if plain.Handle(tcell.NewEventKey(tcell.KeyRune, 'g', 0)) || !plain.Handle(tcell.NewEventKey(tcell.KeyHome, 0, 0)) {
		t.Fatal("plain move keys took g or lost Home")
	}
}

func TestActionNames(t *testing.T) {
	m := New(MoveKeys("Move", "row", false, func(int) {}, func() int { return 1 })...)
	m.Add(Bind(tcell.KeyRune, 'q', "q", "quit", "General", nil).As("quit"))
	if got := strings.Join(m.Names(), ","); got != "down,up,page-down,page-up,first,last,quit" {
		t.Fatalf("names %s", got)
	}
	b, ok := m.Lookup("page-down")
	if !ok || b.Key != tcell.KeyPgDn {
		t.Fatalf("lookup page-down: %+v %v", b, ok)
	}
	if _, ok := m.Lookup("nope"); ok {
		t.Fatal("lookup of an unknown name succeeded")
	}
}

// A key bound with the same help in several scopes (Tab to the detail
// pane, in each table that has one) is one line of help, not one per
// scope (issue 38 #19: the heap viewer's help printed it twice); bindings
// that differ in key or help stay apart.
func TestHelpListsARowOnce(t *testing.T) {
	tab := func(scope string) Binding {
		return Bind(tcell.KeyTab, 0, "Tab", "switch to the detail pane", "Move", func() {}).In(scope)
	}
	m := New(tab("classes"), tab("dominators"), tab(""),
		Bind(tcell.KeyRune, 'r', "r", "reverse the order", "Sort", nil).In("classes"),
		Bind(tcell.KeyRune, 'r', "r", "reverse the order", "Sort", nil).In("leaks"),
		Bind(tcell.KeyRune, 'p', "p", "path of a list's object", "Heap", nil).In("list"),
		Bind(tcell.KeyRune, 'p', "p", "path of the object", "Heap", nil).In("object"))
	text := m.HelpText()
	for line, want := range map[string]int{"switch to the detail pane": 1, "reverse the order": 1, "path of a list's object": 1, "path of the object": 1} {
		if n := strings.Count(text, line); n != want {
			t.Errorf("%q listed %d times:\n%s", line, n, text)
		}
	}
}
