package cli

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// TestConfigKeysAndThemeErrors: a bad [keys] or [theme] entry stops the
// program at start with the file, line and key.
func TestConfigKeysAndThemeErrors(t *testing.T) {
	t.Cleanup(func() { keymap.Use(nil); style.UseTheme(nil) })
	for _, tc := range []struct{ doc, want string }{
		{"[keys]\nquit = [\"x\"]\nfly = [\"f\"]\n", ":3: keys.fly: unknown action"},
		{"[keys]\nquit = [\"Ctrl-Nope\"]\n", `:2: keys.quit: unknown key "Ctrl-Nope"`},
		{"[keys]\n\nquit = [\"h\"]\n", `:3: keys.quit: key "h" is also bound to "toggle-heap" here (in the dashboard)`},
		{"[keys]\nquit = [\"g\"]\n", `:2: keys.quit: key "g" is also bound to "group by class → site → stack → thread → none" here (in the allocations)`},
		{"[keys]\nquit = [\"Exit\"]\nhelp = [\"Ctrl-C\"]\n", `:3: keys.help: key "Ctrl-C" always quits; it cannot be bound to another action`},
		{"[theme]\naccent = \"blue\"\ncurser = \"red\"\n", ":3: theme.curser: unknown colour role"},
		{"[theme]\ncursor = 300\n", ":2: theme.cursor: colour index 300 is not in 0..255"},
		{"[theme]\nbackground = \"beige\"\n", `:2: theme.background: background "beige": write light, dark or auto`},
	} {
		cfg := writeConfig(t, tc.doc)
		out, err := runApp(t, "--config", cfg, "config", "path")
		if err == nil || !strings.Contains(err.Error(), cfg+tc.want) {
			t.Errorf("%q: err %v (out %q), want %q", tc.doc, err, out, cfg+tc.want)
		}
	}
}

// TestConfigKeysApplied: a sound [keys] table is the rebinding in force,
// and moving q off quit frees it for another action.
func TestConfigKeysApplied(t *testing.T) {
	t.Cleanup(func() { keymap.Use(nil); style.UseTheme(nil) })
	cfg := writeConfig(t, "[keys]\nquit = [\"x\"]\ngc = [\"G\", \"Ctrl-G\"]\n\n[theme]\naccent = \"teal\"\n")
	if out, err := runApp(t, "--config", cfg, "config", "path"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := keymap.New(keymap.Bind(tcell.KeyRune, 'q', "q", "quit", "", nil).As("quit"))
	if b, ok := m.Lookup("quit"); !ok || b.Rune != 'x' {
		t.Errorf("quit bound to %q, want x", b.Rune)
	}
	if got := (style.Palette{}).Accent(); got != tcell.ColorTeal {
		t.Errorf("accent = %v, want teal", got)
	}
}

// TestConfigLightBackground: theme.background = "light", or COLORFGBG
// naming a white background, gives the roles their light defaults (no
// bright yellow for waiting threads); "dark" wins over COLORFGBG.
func TestConfigLightBackground(t *testing.T) {
	t.Cleanup(func() { style.UseBackground(false); style.UseTheme(nil) })
	for _, tc := range []struct {
		doc, colorfgbg string
		want           tcell.Color
	}{
		{"[theme]\nbackground = \"light\"\n", "", tcell.ColorOlive},
		{"", "0;15", tcell.ColorOlive},
		{"[theme]\nbackground = \"dark\"\n", "0;15", tcell.ColorYellow},
		{"", "", tcell.ColorYellow},
	} {
		t.Setenv("COLORFGBG", tc.colorfgbg)
		if out, err := runApp(t, "--config", writeConfig(t, tc.doc), "config", "path"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if got := (style.Palette{}).ThreadState("wait"); got != tc.want {
			t.Errorf("%q with COLORFGBG=%q: wait is %v, want %v", tc.doc, tc.colorfgbg, got, tc.want)
		}
	}
}

// config default names every action a [keys] entry may rebind, as the
// key tables declare them (issue 38: it listed eight and "...").
func TestConfigDefaultListsEveryAction(t *testing.T) {
	out, err := runApp(t, "config", "default")
	if err != nil {
		t.Fatal(err)
	}
	keys := out[strings.Index(out, "[keys]"):strings.Index(out, "[theme]")]
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(keys, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '#' }) {
		words[w] = true
	}
	n := 0
	for _, bs := range keyContexts() {
		for _, b := range bs {
			if b.Name != "" && !words[b.Name] {
				t.Errorf("config default does not name the action %q", b.Name)
			}
			n++
		}
	}
	if n < 50 {
		t.Fatalf("only %d bindings declared", n)
	}
}
