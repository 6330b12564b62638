// Package style holds the colours ddmtui's views share: thread states, heap
// kinds, and highlights. It respects NO_COLOR (https://no-color.org): when set,
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

func (p Palette) c(col tcell.Color) tcell.Color {
	if p.NoColor {
		return tcell.ColorDefault
	}
	return col
}

// ThreadState returns the colour for a lowercase thread state name as used by
// the dashboard and the thread-dump viewer ("running", "sleeping",
// "timed-wait", "wait", "monitor"/"blocked", "native", "zombie", ...).
func (p Palette) ThreadState(state string) tcell.Color {
	switch state {
	case "running", "runnable":
		return p.c(tcell.ColorGreen)
	case "native":
		return p.c(tcell.ColorTeal)
	case "sleeping", "timed-wait", "timed_waiting":
		return p.c(tcell.ColorOlive)
	case "wait", "waiting", "vmwait":
		return p.c(tcell.ColorYellow)
	case "monitor", "blocked":
		return p.c(tcell.ColorRed)
	case "suspended":
		return p.c(tcell.ColorFuchsia)
	case "zombie", "terminated":
		return p.c(tcell.ColorGray)
	case "initializing", "starting", "new":
		return p.c(tcell.ColorAqua)
	}
	return p.c(tcell.ColorDefault)
}

// Accent is the colour for titles and selection highlights.
func (p Palette) Accent() tcell.Color { return p.c(tcell.ColorDodgerBlue) }

// Warning is the colour for banners such as a found deadlock.
func (p Palette) Warning() tcell.Color { return p.c(tcell.ColorRed) }

// Cursor is the style of a list's cursor row: reverse video in the
// terminal's own colours, so it shows on any palette and under NO_COLOR
// (where a coloured bar would vanish), uniformly across the row's cells.
func (p Palette) Cursor() tcell.Style {
	return tcell.StyleDefault.Foreground(tcell.ColorDefault).Background(tcell.ColorDefault).Attributes(tcell.AttrReverse)
}

// ApplyTview sets tview's global styles for the palette: the terminal's own
// background always, and no colour at all under NO_COLOR. tview keeps these
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
	if !p.NoColor {
		return
	}
	for _, c := range []*tcell.Color{&tview.Styles.ContrastBackgroundColor, &tview.Styles.MoreContrastBackgroundColor,
		&tview.Styles.BorderColor, &tview.Styles.TitleColor, &tview.Styles.PrimaryTextColor, &tview.Styles.SecondaryTextColor,
		&tview.Styles.TertiaryTextColor, &tview.Styles.GraphicsColor, &tview.Styles.InverseTextColor,
		&tview.Styles.ContrastSecondaryTextColor} {
		set(c)
	}
}
