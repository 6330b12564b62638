package dumpview

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/tui/style"
)

// RunOptions configure Run.
type RunOptions struct {
	Title string // shown in the header, e.g. the file name
	// Screen replaces the terminal (tests pass a tcell.SimulationScreen).
	Screen tcell.Screen
	// Palette defaults to style.FromEnv() (NO_COLOR).
	Palette *style.Palette
}

// NewApplication returns the application Run runs: a View showing d full
// screen, quitting on q (and tview's Ctrl-C). The mouse stays off so the
// terminal's own text selection keeps working.
func NewApplication(d *threaddump.Dump, opt RunOptions) (*tview.Application, *View) {
	app := tview.NewApplication()
	if opt.Screen != nil {
		app.SetScreen(opt.Screen)
	}
	pal := style.FromEnv()
	if opt.Palette != nil {
		pal = *opt.Palette
	}
	v := New(Options{Title: opt.Title, Palette: pal, Quit: app.Stop})
	v.SetDump(d)
	app.SetRoot(v, true).SetFocus(v)
	return app, v
}

// Run shows d full screen until the user quits.
func Run(d *threaddump.Dump, opt RunOptions) error {
	app, _ := NewApplication(d, opt)
	return app.Run()
}
