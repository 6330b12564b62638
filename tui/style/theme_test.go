package style

import (
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

func TestDefaultRolesAreTheTerminals16Colours(t *testing.T) {
	UseTheme(nil)
	p := Palette{}
	for _, r := range Roles {
		c := p.Role(r.Name)
		if c != r.Default {
			t.Errorf("%s = %v, want its default %v", r.Name, c, r.Default)
		}
		if c != tcell.ColorDefault && (c&tcell.ColorIsRGB != 0 || c-tcell.ColorValid > 15) {
			t.Errorf("%s defaults to %v: not one of the terminal's 16 colours", r.Name, c)
		}
	}
	if got := p.ThreadState("blocked"); got != tcell.ColorRed {
		t.Errorf("blocked = %v, want red", got)
	}
	if got := p.HeapKind(1); got != tcell.ColorGreen {
		t.Errorf("class objects = %v, want green", got)
	}
	if _, _, attr := p.Cursor().Decompose(); attr&tcell.AttrReverse == 0 {
		t.Error("default cursor is not reverse video")
	}
}

func TestThemeOverridesAndNoColorWins(t *testing.T) {
	th, role, err := ParseTheme(map[string]any{"state-running": "#00ff00", "cursor": int64(208), "accent": "navy", "heap-class": "33"})
	if err != nil {
		t.Fatalf("%s: %v", role, err)
	}
	UseTheme(th)
	t.Cleanup(func() { UseTheme(nil) })
	p := Palette{}
	if got := p.ThreadState("running"); got != tcell.NewRGBColor(0, 255, 0) {
		t.Errorf("running = %v, want #00ff00", got)
	}
	if got := p.Accent(); got != tcell.ColorNavy {
		t.Errorf("accent = %v, want navy", got)
	}
	if got := p.HeapKind(1); got != tcell.PaletteColor(33) {
		t.Errorf("heap-class = %v, want index 33", got)
	}
	if _, bg, attr := p.Cursor().Decompose(); bg != tcell.PaletteColor(208) || attr&tcell.AttrReverse != 0 {
		t.Errorf("cursor bg %v attr %v, want index 208 without reverse", bg, attr)
	}
	if got := p.ThreadState("blocked"); got != tcell.ColorRed {
		t.Errorf("blocked = %v, want its default red", got)
	}
	nc := Palette{NoColor: true}
	for _, r := range Roles {
		if c := nc.Role(r.Name); c != tcell.ColorDefault {
			t.Errorf("NO_COLOR: %s = %v, want no colour", r.Name, c)
		}
	}
	if _, bg, attr := nc.Cursor().Decompose(); bg != tcell.ColorDefault || attr&tcell.AttrReverse == 0 {
		t.Errorf("NO_COLOR cursor: bg %v attr %v, want reverse video", bg, attr)
	}
	UseTheme(Theme{"border": tcell.ColorTeal})
	ApplyTview(p)
	if tview.Styles.BorderColor != tcell.ColorTeal {
		t.Errorf("tview border = %v, want teal", tview.Styles.BorderColor)
	}
	UseTheme(nil)
	ApplyTview(p)
	if tview.Styles.BorderColor != tcell.ColorDefault {
		t.Errorf("tview border = %v, want the terminal's", tview.Styles.BorderColor)
	}
}

// Text is drawn in the terminal's own foreground, with colour or without:
// tview's default (bright white) cannot be read on a light background
// (issue 29 #1). A theme may still name a text colour.
func TestTextUsesTheTerminalsForeground(t *testing.T) {
	defer func() { UseTheme(nil); ApplyTview(Palette{}) }()
	tview.Styles.PrimaryTextColor, tview.Styles.GraphicsColor = tcell.ColorWhite, tcell.ColorWhite
	ApplyTview(Palette{})
	if tview.Styles.PrimaryTextColor != tcell.ColorDefault || tview.Styles.GraphicsColor != tcell.ColorDefault {
		t.Errorf("colour palette: text %v, graphics %v; want the terminal's foreground", tview.Styles.PrimaryTextColor, tview.Styles.GraphicsColor)
	}
	tview.Styles.PrimaryTextColor = tcell.ColorWhite
	ApplyTview(Palette{NoColor: true})
	if tview.Styles.PrimaryTextColor != tcell.ColorDefault {
		t.Errorf("NO_COLOR: text %v", tview.Styles.PrimaryTextColor)
	}
	UseTheme(Theme{"text": tcell.ColorNavy})
	ApplyTview(Palette{})
	if tview.Styles.PrimaryTextColor != tcell.ColorNavy {
		t.Errorf("theme text = %v, want navy", tview.Styles.PrimaryTextColor)
	}
}

func TestParseThemeErrors(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]any
		role string
	}{
		{map[string]any{"curser": "red"}, "curser"},
		{map[string]any{"cursor": "reddish"}, "cursor"},
		{map[string]any{"cursor": int64(256)}, "cursor"},
		{map[string]any{"cursor": "#12345"}, "cursor"},
		{map[string]any{"cursor": "#12345g"}, "cursor"},
		{map[string]any{"cursor": true}, "cursor"},
	} {
		if _, role, err := ParseTheme(tc.in); err == nil || role != tc.role {
			t.Errorf("%v: role %q err %v, want an error on %q", tc.in, role, err, tc.role)
		}
	}
}

// On a light background no role defaults to bright yellow, aqua or white
// (\e[93m, 96m, 97m), which barely show on white (issue 38 #6: thread state
// wait and heap-map cells); the light defaults stay the terminal's 16
// colours, keep the states apart, and a theme still wins.
func TestLightBackgroundDefaults(t *testing.T) {
	UseTheme(nil)
	UseBackground(true)
	t.Cleanup(func() { UseBackground(false) })
	p := Palette{}
	states := map[tcell.Color]string{}
	for _, r := range Roles {
		c := p.Role(r.Name)
		if c != r.Light {
			t.Errorf("%s = %v, want its light default %v", r.Name, c, r.Light)
		}
		switch c {
		case tcell.ColorYellow, tcell.ColorAqua, tcell.ColorWhite, tcell.ColorSilver:
			t.Errorf("%s is %v on a light background", r.Name, c)
		}
		if c != tcell.ColorDefault && (c&tcell.ColorIsRGB != 0 || c-tcell.ColorValid > 15) {
			t.Errorf("%s defaults to %v: not one of the terminal's 16 colours", r.Name, c)
		}
	}
	for _, s := range []string{"running", "native", "sleeping", "wait", "blocked", "suspended", "zombie"} {
		c := p.ThreadState(s)
		if other, ok := states[c]; ok {
			t.Errorf("states %s and %s share %v", other, s, c)
		}
		states[c] = s
	}
	UseTheme(Theme{"state-wait": tcell.ColorYellow})
	defer UseTheme(nil)
	if got := p.ThreadState("wait"); got != tcell.ColorYellow {
		t.Errorf("a theme's colour lost to the light default: %v", got)
	}
}

func TestBackground(t *testing.T) {
	for _, tc := range []struct {
		name, colorfgbg string
		light           bool
	}{
		{"light", "", true}, {"dark", "0;15", false}, {"auto", "0;15", true}, {"", "0;default;15", true},
		{"auto", "15;0", false}, {"", "", false}, {"AUTO", "0;7", true},
	} {
		got, err := Background(tc.name, tc.colorfgbg)
		if err != nil || got != tc.light {
			t.Errorf("Background(%q, %q) = %v, %v; want %v", tc.name, tc.colorfgbg, got, err, tc.light)
		}
	}
	if _, err := Background("beige", ""); err == nil {
		t.Error("background beige accepted")
	}
}
