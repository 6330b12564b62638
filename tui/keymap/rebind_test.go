package keymap

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestParseChord(t *testing.T) {
	for _, tc := range []struct {
		in   string
		key  tcell.Key
		r    rune
		mod  tcell.ModMask
		fail bool
	}{
		{in: "x", key: tcell.KeyRune, r: 'x'},
		{in: "G", key: tcell.KeyRune, r: 'G'},
		{in: "Ctrl-G", key: tcell.KeyCtrlG},
		{in: "ctrl-g", key: tcell.KeyCtrlG},
		{in: "Enter", key: tcell.KeyEnter},
		{in: "Esc", key: tcell.KeyEscape},
		{in: "F5", key: tcell.KeyF5},
		{in: "PgDn", key: tcell.KeyPgDn},
		{in: "Space", key: tcell.KeyRune, r: ' '},
		{in: "Alt-x", key: tcell.KeyRune, r: 'x', mod: tcell.ModAlt},
		{in: "Ctrl-Banana", fail: true},
		{in: "", fail: true},
		{in: "xy", fail: true},
	} {
		c, err := ParseChord(tc.in)
		if tc.fail {
			if err == nil {
				t.Errorf("%q: parsed as %+v, want an error", tc.in, c)
			}
			continue
		}
		if err != nil || c.Key != tc.key || c.Rune != tc.r || c.Mod != tc.mod {
			t.Errorf("%q: got %+v, %v; want key %v rune %q mod %v", tc.in, c, err, tc.key, tc.r, tc.mod)
		}
	}
}

func rebind(t *testing.T, keys map[string][]string) Rebinding {
	t.Helper()
	r, errs := ParseRebinding(keys)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return r
}

func TestRebindingReplacesDefaultsAndHelp(t *testing.T) {
	var got []string
	act := func(s string) func() { return func() { got = append(got, s) } }
	m := New(
		Bind(tcell.KeyRune, 'q', "q / Ctrl-C", "quit", "General", act("quit")).As("quit"),
		Alias(tcell.KeyCtrlC, 0, act("quit")).As("quit"),
		Bind(tcell.KeyPgDn, 0, "PgDn / PgUp", "page down / up", "Move", act("pgdn")).As("page-down"),
		Alias(tcell.KeyPgUp, 0, act("pgup")).As("page-up"),
		Bind(tcell.KeyRune, 'g', "g", "collect garbage", "VM", act("gc")).As("gc"),
	)
	Use(rebind(t, map[string][]string{"quit": {"x"}, "gc": {"G", "Ctrl-G"}, "page-up": {"u"}}))
	t.Cleanup(func() { Use(nil) })
	for _, ev := range []*tcell.EventKey{
		tcell.NewEventKey(tcell.KeyRune, 'q', 0),
		tcell.NewEventKey(tcell.KeyRune, 'g', 0),
		tcell.NewEventKey(tcell.KeyPgUp, 0, 0),
	} {
		if m.Handle(ev) {
			t.Errorf("old key %s still bound (ran %v)", ev.Name(), got)
		}
	}
	for _, ev := range []*tcell.EventKey{
		tcell.NewEventKey(tcell.KeyRune, 'x', 0),
		tcell.NewEventKey(tcell.KeyRune, 'G', tcell.ModShift),
		tcell.NewEventKey(tcell.KeyCtrlG, 0, tcell.ModCtrl),
		tcell.NewEventKey(tcell.KeyRune, 'u', 0),
		tcell.NewEventKey(tcell.KeyPgDn, 0, 0),
		tcell.NewEventKey(tcell.KeyCtrlC, 0, tcell.ModCtrl), // quit keeps Ctrl-C
	} {
		if !m.Handle(ev) {
			t.Errorf("key %s not handled", ev.Name())
		}
	}
	if want := "quit gc gc pgup pgdn quit"; strings.Join(got, " ") != want {
		t.Errorf("ran %q, want %q", strings.Join(got, " "), want)
	}
	help := strings.Join(strings.Fields(m.HelpText()), " ")
	for _, want := range []string{"General x / Ctrl-C quit Move", "PgDn page down / up u page-up VM", "G / Ctrl-G collect garbage"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "q / Ctrl-C") || strings.Contains(help, "PgUp") {
		t.Errorf("help still names a replaced key:\n%s", help)
	}
	Use(nil)
	if !m.Handle(tcell.NewEventKey(tcell.KeyRune, 'q', 0)) {
		t.Error("defaults not back after Use(nil)")
	}
}

func TestConflicts(t *testing.T) {
	m := New(
		Bind(tcell.KeyRune, 'q', "q", "quit", "", nil).As("quit"),
		Bind(tcell.KeyRune, 'g', "g", "collect garbage", "", nil).As("gc"),
		Bind(tcell.KeyRune, 'h', "h", "heap", "", nil).As("toggle-heap"),
	)
	r := rebind(t, map[string][]string{"quit": {"g"}, "toggle-heap": {"q"}})
	p := Conflicts(m.Declared(), r)
	if len(p) != 1 || p[0].Action != "quit" || !strings.Contains(p[0].Msg, `"g" is also bound to "gc"`) {
		t.Fatalf("conflicts = %+v, want quit's g against gc", p)
	}
	// Moving q away from quit frees it for toggle-heap: no conflict.
	if p := Conflicts(m.Declared(), rebind(t, map[string][]string{"quit": {"x"}, "toggle-heap": {"q"}})); len(p) != 0 {
		t.Fatalf("conflicts = %+v, want none", p)
	}
	// An action this map does not declare cannot conflict in it.
	if p := Conflicts(m.Declared(), rebind(t, map[string][]string{"follow": {"g"}})); len(p) != 0 {
		t.Fatalf("conflicts = %+v, want none for an undeclared action", p)
	}
	if _, errs := ParseRebinding(map[string][]string{"quit": {}}); errs["quit"] == nil {
		t.Error("an empty key list is accepted")
	}
	if _, errs := ParseRebinding(map[string][]string{"quit": {"Ctrl-Nope"}}); errs["quit"] == nil {
		t.Error("a bad key name is accepted")
	}
}

// TestCtrlCAlwaysQuits: issue 30 #6. quit = ["Exit"] with help = ["Ctrl-C"]
// left the dashboard with no key that quits (no terminal sends Exit). Ctrl-C
// is reserved: another action may not take it, and quit keeps it.
func TestCtrlCAlwaysQuits(t *testing.T) {
	r, errs := ParseRebinding(map[string][]string{"quit": {"Exit"}, "help": {"Ctrl-C"}})
	if err := errs["help"]; err == nil || !strings.Contains(err.Error(), `key "Ctrl-C" always quits; it cannot be bound to another action`) {
		t.Fatalf("help = [Ctrl-C]: error %v", err)
	}
	if _, ok := r["help"]; ok {
		t.Error("the refused help binding is in the rebinding")
	}
	if _, errs := ParseRebinding(map[string][]string{"gc": {"g", "ctrl-c"}}); errs["gc"] == nil {
		t.Error("ctrl-c (any case) accepted for another action")
	}
	var quits int
	m := New(
		Bind(tcell.KeyRune, 'q', "q / Ctrl-C", "quit", "General", func() { quits++ }).As("quit"),
		Alias(tcell.KeyCtrlC, 0, func() { quits++ }).As("quit"),
		Bind(tcell.KeyRune, '?', "?", "help", "General", nil).As("help"),
	)
	Use(r)
	t.Cleanup(func() { Use(nil) })
	if !m.Handle(tcell.NewEventKey(tcell.KeyCtrlC, 0, tcell.ModCtrl)) || quits != 1 {
		t.Fatalf("Ctrl-C after quit = [Exit]: %d quits", quits)
	}
	if !m.Handle(tcell.NewEventKey(tcell.KeyExit, 0, 0)) || quits != 2 {
		t.Fatalf("Exit after quit = [Exit]: %d quits", quits)
	}
	// quit = ["Ctrl-C"] alone is not doubled.
	r, _ = ParseRebinding(map[string][]string{"quit": {"Ctrl-C"}})
	if len(r["quit"]) != 1 {
		t.Errorf("quit = [Ctrl-C] gives %d keys", len(r["quit"]))
	}
}
