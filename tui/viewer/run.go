package viewer

import (
	"context"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/style"
)

// RunOptions configure a standalone viewer's run; every viewer's Run
// takes them.
type RunOptions struct {
	Title string // shown in the header, e.g. the file name
	// Screen replaces the terminal (tests pass a tcell.SimulationScreen).
	Screen tcell.Screen
	// Palette defaults to style.FromEnv() (NO_COLOR).
	Palette *style.Palette
	// Context bounds background work; Run also ends when it is done.
	Context context.Context
}

// Host is what a view built for a run gets from it.
type Host struct {
	Title   string
	Palette style.Palette
	Quit    func() // ends the run (q)
	Runner  Runner // background work (Frame.SetRunner)
	Shell   *Shell // the run itself
}

// NewRun builds the shell Run runs around the view that build returns.
// tview's global styles are set for the palette first (style.ApplyTview),
// as the dashboard does: left at tview's defaults, a standalone viewer
// would draw its rows in bright white on forced black, which a light
// terminal cannot show.
func NewRun[V tview.Primitive](opt RunOptions, build func(Host) V) (*Shell, V) {
	pal := PaletteOr(opt.Palette)
	style.ApplyTview(pal)
	sh := New(Options{Screen: opt.Screen, Context: opt.Context})
	v := build(Host{Title: opt.Title, Palette: pal, Quit: sh.Quit, Runner: sh, Shell: sh})
	sh.SetRoot(v)
	return sh, v
}

// Run shows the view that build returns full screen until the user quits
// (q, Ctrl-C) or opt.Context ends; background work has returned by then.
func Run[V tview.Primitive](opt RunOptions, build func(Host) V) error {
	sh, _ := NewRun(opt, build)
	return sh.Run()
}
