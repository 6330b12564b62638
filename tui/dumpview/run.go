package dumpview

import (
	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// RunOptions configure Run.
type RunOptions struct {
	Title string // shown in the header, e.g. the file name
	// Screen replaces the terminal (tests pass a tcell.SimulationScreen).
	Screen tcell.Screen
	// Palette defaults to style.FromEnv() (NO_COLOR).
	Palette *style.Palette
}

// NewShell returns the shell Run runs: a View showing d full screen,
// quitting on q and Ctrl-C.
func NewShell(d *threaddump.Dump, opt RunOptions) (*viewer.Shell, *View) {
	sh := viewer.New(viewer.Options{Screen: opt.Screen})
	v := New(Options{Title: opt.Title, Palette: viewer.PaletteOr(opt.Palette), Quit: sh.Quit})
	v.SetDump(d)
	sh.SetRoot(v)
	return sh, v
}

// Run shows d full screen until the user quits.
func Run(d *threaddump.Dump, opt RunOptions) error {
	sh, _ := NewShell(d, opt)
	return sh.Run()
}
