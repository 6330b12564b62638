package style

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gdamore/tcell/v2"
)

// Roles are the colour roles a theme can set, with their defaults: the
// terminal's own 16 colours (palette indexes, never RGB), so that light and
// dark schemes and the user's choice of colours are respected. Light is a
// role's default on a light background (see UseBackground): there bright
// yellow, aqua and white (\e[93m, 96m, 97m) barely show, so their roles
// take the ordinary colours instead.
var Roles = []Role{
	{"state-running", tcell.ColorGreen, tcell.ColorGreen, "thread running or runnable"},
	{"state-native", tcell.ColorTeal, tcell.ColorTeal, "thread in native code"},
	{"state-sleeping", tcell.ColorOlive, tcell.ColorNavy, "thread sleeping or in a timed wait"},
	{"state-wait", tcell.ColorYellow, tcell.ColorOlive, "thread waiting"},
	{"state-blocked", tcell.ColorRed, tcell.ColorRed, "thread blocked on a monitor"},
	{"state-suspended", tcell.ColorFuchsia, tcell.ColorPurple, "thread suspended by a debugger"},
	{"state-zombie", tcell.ColorGray, tcell.ColorGray, "thread terminated"},
	{"state-starting", tcell.ColorAqua, tcell.ColorTeal, "thread starting"},
	{"heap-object", tcell.ColorBlue, tcell.ColorBlue, "heap map: objects"},
	{"heap-class", tcell.ColorGreen, tcell.ColorGreen, "heap map: class objects"},
	{"heap-array1", tcell.ColorRed, tcell.ColorRed, "heap map: 1-byte arrays"},
	{"heap-array2", tcell.ColorMaroon, tcell.ColorMaroon, "heap map: 2-byte arrays"},
	{"heap-array4", tcell.ColorYellow, tcell.ColorOlive, "heap map: 4-byte arrays"},
	{"heap-array8", tcell.ColorAqua, tcell.ColorTeal, "heap map: 8-byte arrays"},
	{"heap-unknown", tcell.ColorFuchsia, tcell.ColorPurple, "heap map: unknown kind"},
	{"heap-native", tcell.ColorGray, tcell.ColorGray, "heap map: native allocations"},
	{"accent", tcell.ColorBlue, tcell.ColorBlue, "titles, the focused pane's frame, highlights"},
	{"warning", tcell.ColorRed, tcell.ColorRed, "banners such as a found deadlock"},
	{"text", tcell.ColorDefault, tcell.ColorDefault, "ordinary text: rows, labels (default: the terminal's own foreground, so light and dark backgrounds both read)"},
	{"border", tcell.ColorDefault, tcell.ColorDefault, "pane borders (default: the terminal's text colour)"},
	{"title", tcell.ColorDefault, tcell.ColorDefault, "pane titles"},
	{"cursor", tcell.ColorDefault, tcell.ColorDefault, "the cursor row's background (default: reverse video)"},
}

// Role is one colour role and its defaults.
type Role struct {
	Name    string
	Default tcell.Color // on a dark background
	Light   tcell.Color // on a light background
	Help    string
}

var light atomic.Bool

// UseBackground makes the roles' light defaults (light true) or dark ones
// the defaults every Palette applies from now on; a theme's colours still
// win. Call it once at start, before building views.
func UseBackground(isLight bool) { light.Store(isLight) }

// Background names the background the defaults are chosen for: "light",
// "dark" or "auto" (the configuration's theme.background). auto reads
// COLORFGBG, which many terminals set to "FG;BG" (a background of 7 or 15,
// white, is light); without it the background is taken as dark.
func Background(name, colorfgbg string) (isLight bool, err error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "light":
		return true, nil
	case "dark":
		return false, nil
	case "auto", "":
		parts := strings.Split(colorfgbg, ";")
		bg := parts[len(parts)-1]
		return bg == "7" || bg == "15", nil
	}
	return false, fmt.Errorf("background %q: write light, dark or auto", name)
}

// Theme overrides roles: role name to colour.
type Theme map[string]tcell.Color

var theme atomic.Pointer[Theme]

// UseTheme makes t the overrides every Palette applies from now on (nil:
// the defaults). Call it once at start, before building views.
func UseTheme(t Theme) {
	if len(t) == 0 {
		theme.Store(nil)
		return
	}
	theme.Store(&t)
}

func isRole(name string) bool {
	for _, r := range Roles {
		if r.Name == name {
			return true
		}
	}
	return false
}

// RoleNames lists the roles, sorted.
func RoleNames() []string {
	out := make([]string, len(Roles))
	for i, r := range Roles {
		out[i] = r.Name
	}
	sort.Strings(out)
	return out
}

// ParseColour reads a theme value: a colour name (the 16 ANSI names such
// as "red", "teal", "silver", or any W3C name tcell knows), "default" (the
// terminal's own), a 256-colour index (208 or "208"), or "#rrggbb".
func ParseColour(v any) (tcell.Color, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 || x > 255 {
			return 0, fmt.Errorf("colour index %d is not in 0..255", x)
		}
		return tcell.PaletteColor(int(x)), nil
	case string:
		s := strings.ToLower(strings.TrimSpace(x))
		if s == "default" {
			return tcell.ColorDefault, nil
		}
		if n, err := strconv.Atoi(s); err == nil {
			return ParseColour(int64(n))
		}
		if strings.HasPrefix(s, "#") {
			if len(s) != 7 {
				return 0, fmt.Errorf("colour %q: write #rrggbb", x)
			}
			if _, err := strconv.ParseUint(s[1:], 16, 32); err != nil {
				return 0, fmt.Errorf("colour %q: write #rrggbb", x)
			}
		}
		c := tcell.GetColor(s)
		if c == tcell.ColorDefault {
			return 0, fmt.Errorf("unknown colour %q (use a name such as red or teal, a 256-colour index, or #rrggbb)", x)
		}
		return c, nil
	}
	return 0, fmt.Errorf("a colour is a name, an index 0..255 or \"#rrggbb\", not %v", v)
}

// BackgroundKey is the [theme] key that chooses the roles' defaults
// ("light", "dark", "auto"); every other key names a role.
const BackgroundKey = "background"

// ParseTheme reads the configuration's [theme] table but its background
// key (see Background). The error names the role (the first bad one in
// sorted order).
func ParseTheme(m map[string]any) (Theme, string, error) {
	names := make([]string, 0, len(m))
	for n := range m {
		if n != BackgroundKey {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	t := Theme{}
	for _, n := range names {
		if !isRole(n) {
			return nil, n, fmt.Errorf("unknown colour role (roles: %s)", strings.Join(RoleNames(), ", "))
		}
		c, err := ParseColour(m[n])
		if err != nil {
			return nil, n, err
		}
		t[n] = c
	}
	return t, "", nil
}

// Role returns the colour of a role: the theme's, else its default;
// tcell.ColorDefault under NO_COLOR.
func (p Palette) Role(name string) tcell.Color {
	if p.NoColor {
		return tcell.ColorDefault
	}
	if t := theme.Load(); t != nil {
		if c, ok := (*t)[name]; ok {
			return c
		}
	}
	for _, r := range Roles {
		if r.Name == name {
			if light.Load() {
				return r.Light
			}
			return r.Default
		}
	}
	return tcell.ColorDefault
}

// HeapKind returns the colour of a heap map kind (ddm.Kind*: 0 object, 1
// class, 2..5 arrays of 1, 2, 4, 8 bytes, 6 unknown, 7 native).
func (p Palette) HeapKind(kind int) tcell.Color {
	names := [8]string{"heap-object", "heap-class", "heap-array1", "heap-array2", "heap-array4", "heap-array8", "heap-unknown", "heap-native"}
	if kind < 0 || kind >= len(names) {
		return p.Role("")
	}
	return p.Role(names[kind])
}
