package cli

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ddmtui/ddmtui/config"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui"
	"github.com/ddmtui/ddmtui/tui/allocview"
	"github.com/ddmtui/ddmtui/tui/dumpview"
	"github.com/ddmtui/ddmtui/tui/heapview"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/profileview"
	"github.com/ddmtui/ddmtui/tui/spyview"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewsview"
)

// keyContexts builds every view's key table as declared (no terminal is
// needed): a key means one thing within a context, and an action name is
// known if some context declares it.
func keyContexts() map[string][]keymap.Binding {
	pal := style.FromEnv() // as the run itself will: building a dashboard sets tview's global styles
	return map[string][]keymap.Binding{
		"dashboard":        tui.New(tui.Config{Store: monitor.NewStore(monitor.NewBus()), Palette: pal}).Keys().Declared(),
		"debugger traffic": spyview.New(spyview.Options{Palette: pal}).Keys().Declared(),
		"thread dump":      dumpview.New(dumpview.Options{Palette: pal}).Keys().Declared(),
		"profile":          profileview.New(profileview.Options{Palette: pal}).Keys().Declared(),
		"allocations":      allocview.New(allocview.Options{Palette: pal}).Keys().Declared(),
		"heap dump":        heapview.New(heapview.Options{Palette: pal, Baseline: "-"}).Keys().Declared(),
		"views":            viewsview.New(viewsview.Options{Palette: pal, Save: func(context.Context, string, []byte) (string, error) { return "", nil }}).Keys().Declared(),
	}
}

// useKeys checks the configuration's [keys] table against every view's
// key table and, when it is sound, makes it the rebinding in force. An
// unknown action, a bad key name or a key bound to two actions in one view
// is a *config.Error at the key's line.
func useKeys(f *config.File) error {
	if len(f.Keys) == 0 {
		keymap.Use(nil)
		return nil
	}
	r, errs := keymap.ParseRebinding(f.Keys)
	ctxs := keyContexts()
	known := map[string]bool{}
	for _, bs := range ctxs {
		for _, b := range bs {
			known[b.Name] = true
		}
	}
	names := make([]string, 0, len(f.Keys))
	for n := range f.Keys {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !known[n] || n == "" {
			return f.KeyError("keys."+n, "unknown action (actions: "+strings.Join(knownNames(known), ", ")+")")
		}
		if err := errs[n]; err != nil {
			return f.KeyError("keys."+n, err.Error())
		}
	}
	ctxNames := make([]string, 0, len(ctxs))
	for c := range ctxs {
		ctxNames = append(ctxNames, c)
	}
	sort.Strings(ctxNames)
	for _, c := range ctxNames {
		// A scope (the focused log pane) is a context of its own: its keys
		// may mean something else elsewhere.
		scopes := map[string][]keymap.Binding{}
		for _, b := range ctxs[c] {
			scopes[b.Scope] = append(scopes[b.Scope], b)
		}
		for _, sc := range sortedKeys(scopes) {
			where := c
			if sc != "" {
				where = c + "'s " + sc
			}
			if p := keymap.Conflicts(scopes[sc], r); len(p) > 0 {
				return f.KeyError("keys."+p[0].Action, fmt.Sprintf("%s (in the %s)", p[0].Msg, where))
			}
		}
	}
	keymap.Use(r)
	return nil
}

// actionNamesComment lists every action name of every view's key table as
// comment lines ("#   dashboard: copy, filter, …"), wrapped, for `config
// default`: the names come from the same tables the rebinding checks.
func actionNamesComment() string {
	ctxs := keyContexts()
	var b strings.Builder
	for _, c := range sortedKeys(ctxs) {
		known := map[string]bool{}
		for _, bd := range ctxs[c] {
			known[bd.Name] = true
		}
		line := "#   " + c + ":"
		for i, n := range knownNames(known) {
			word := " " + n
			if i > 0 {
				line += ","
			}
			if len(line)+len(word) > 110 {
				b.WriteString(line + "\n")
				line = "#    "
			}
			line += word
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

func knownNames(known map[string]bool) []string {
	out := make([]string, 0, len(known))
	for n := range known {
		if n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// useTheme checks the configuration's [theme] table and makes it the
// colour overrides in force. An unknown role or a bad colour is a
// *config.Error at the role's line. NO_COLOR still wins over it.
func useTheme(f *config.File) error {
	t, role, err := style.ParseTheme(f.Theme)
	if err != nil {
		return f.KeyError("theme."+role, err.Error())
	}
	name, ok := f.Theme[style.BackgroundKey].(string)
	if v, set := f.Theme[style.BackgroundKey]; set && !ok {
		return f.KeyError("theme."+style.BackgroundKey, fmt.Sprintf("%v: write \"light\", \"dark\" or \"auto\"", v))
	}
	isLight, err := style.Background(name, os.Getenv("COLORFGBG"))
	if err != nil {
		return f.KeyError("theme."+style.BackgroundKey, err.Error())
	}
	style.UseBackground(isLight)
	style.UseTheme(t)
	return nil
}

// defaultKeysAndTheme is the [keys] and [theme] part of `config default`:
// one example each, at its default.
func defaultKeysAndTheme() string {
	return "\n[keys]\n" +
		"# An action's name, set to the keys that replace its defaults (tcell names: Enter, Esc, Ctrl-G, F5, PgDn, ...,\n" +
		"# or one character). The actions, by the view that has them:\n" +
		actionNamesComment() +
		"# gc = [\"g\"]\n" +
		"\n[theme]\n" +
		"# Colour roles: " + strings.Join(style.RoleNames(), ", ") + ".\n" +
		"# A colour name, a 256-colour index or \"#rrggbb\"; the defaults are the terminal's 16 colours.\n" +
		"# background = \"auto\"   # light, dark, or auto (COLORFGBG): on light, no bright yellow, aqua or white\n" +
		"# accent = \"blue\"\n" +
		"\n[mappings]\n" +
		"# The dashboard's mapping files of release builds, by package (relative to this file); --mapping PKG=FILE.\n" +
		"# \"com.example.app\" = \"app/build/outputs/mapping/release/mapping.txt\"\n"
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
