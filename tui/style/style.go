// Package style holds the colours ddmtui's views share: thread states, heap
// kinds, and highlights, as named roles a theme can override (theme.go). The
// defaults are the terminal's own 16 colours. It respects NO_COLOR (https://no-color.org): when set,
// every colour is tcell.ColorDefault and views rely on text and attributes.
package style

import (
	"os"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Palette is a set of colours for one run of the program.
type Palette struct {
	NoColor bool
}

// FromEnv returns the palette the environment asks for (NO_COLOR).
func FromEnv() Palette { return Palette{NoColor: os.Getenv("NO_COLOR") != ""} }

// ThreadState returns the colour for a lowercase thread state name as used by
// the dashboard and the thread-dump viewer ("running", "sleeping",
// "timed-wait", "wait", "monitor"/"blocked", "native", "zombie", ...).
func (p Palette) ThreadState(state string) tcell.Color {
	switch state {
	case "running", "runnable":
		return p.Role("state-running")
	case "native":
		return p.Role("state-native")
	case "sleeping", "timed-wait", "timed_waiting":
		return p.Role("state-sleeping")
	case "wait", "waiting", "vmwait":
		return p.Role("state-wait")
	case "monitor", "blocked":
		return p.Role("state-blocked")
	case "suspended":
		return p.Role("state-suspended")
	case "zombie", "terminated":
		return p.Role("state-zombie")
	case "initializing", "starting", "new":
		return p.Role("state-starting")
	}
	return tcell.ColorDefault
}

// Accent is the colour for titles and selection highlights.
func (p Palette) Accent() tcell.Color { return p.Role("accent") }

// Warning is the colour for banners such as a found deadlock.
func (p Palette) Warning() tcell.Color { return p.Role("warning") }

// Cursor is the style of a list's cursor row: reverse video in the
// terminal's own colours, so it shows on any palette and under NO_COLOR
// (where a coloured bar would vanish), uniformly across the row's cells.
// A theme's "cursor" colour makes it a bar of that colour instead (never
// under NO_COLOR).
func (p Palette) Cursor() tcell.Style {
	if c := p.Role("cursor"); c != tcell.ColorDefault {
		return tcell.StyleDefault.Foreground(tcell.ColorDefault).Background(c)
	}
	return tcell.StyleDefault.Foreground(tcell.ColorDefault).Background(tcell.ColorDefault).Attributes(tcell.AttrReverse)
}

// ApplyTview sets tview's global styles for the palette: the terminal's own
// background and foreground always (tview's defaults draw text in bright
// white, which a light background cannot show; a theme's "text" role may
// name a colour), and no colour at all under NO_COLOR. tview keeps these
// in a package variable, so call it once, before building widgets.
func ApplyTview(p Palette) {
	// Write only what changes: several views (and tests) build widgets
	// concurrently, and they read these.
	set := func(c *tcell.Color) {
		if *c != tcell.ColorDefault {
			*c = tcell.ColorDefault
		}
	}
	set(&tview.Styles.PrimitiveBackgroundColor)
	set(&tview.Styles.GraphicsColor)
	if !p.NoColor {
		for c, role := range map[*tcell.Color]string{&tview.Styles.BorderColor: "border", &tview.Styles.TitleColor: "title", &tview.Styles.PrimaryTextColor: "text"} {
			if want := p.Role(role); *c != want {
				*c = want
			}
		}
		return
	}
	for _, c := range []*tcell.Color{&tview.Styles.ContrastBackgroundColor, &tview.Styles.MoreContrastBackgroundColor,
		&tview.Styles.BorderColor, &tview.Styles.TitleColor, &tview.Styles.PrimaryTextColor, &tview.Styles.SecondaryTextColor,
		&tview.Styles.TertiaryTextColor, &tview.Styles.GraphicsColor, &tview.Styles.InverseTextColor,
		&tview.Styles.ContrastSecondaryTextColor} {
		set(c)
	}
}
