package heapview

import (
	"context"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/mapping"

	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// RunOptions configure Run.
type RunOptions struct {
	// Baseline is an earlier dump of the same app: the viewer opens on
	// the Diff tab.
	Baseline string
	// Screen replaces the terminal (tests pass a tcell.SimulationScreen).
	Screen tcell.Screen
	// Palette defaults to style.FromEnv() (NO_COLOR).
	Palette *style.Palette
	// Context bounds the run and the analysis's wait.
	Context context.Context
	// SaveDir is where bitmaps are saved ("": beside the dump).
	SaveDir string
	// PID chooses the dump in a trace with heap graphs of several
	// processes.
	PID int32
	// Mapping renames a release build's classes and fields (Options).
	Mapping *mapping.Mapping
}

// Run shows the heap dump file full screen at once and analyses it in the
// background, until the user quits (q, Ctrl-C) or opt.Context ends; the
// dump is released when it returns.
func Run(file string, opt RunOptions) error {
	sh, v := newRun(file, opt)
	defer v.Close()
	return sh.Run()
}

// newRun builds Run's shell and view and starts the analysis.
func newRun(file string, opt RunOptions) (*viewer.Shell, *View) {
	sh, v := viewer.NewRun(viewer.RunOptions{Title: file, Screen: opt.Screen, Palette: opt.Palette, Context: opt.Context},
		func(h viewer.Host) *View {
			return New(Options{File: file, Baseline: opt.Baseline, Palette: h.Palette, Quit: h.Quit, Runner: h.Runner, SaveDir: opt.SaveDir, PID: opt.PID, Mapping: opt.Mapping})
		})
	v.Load()
	return sh, v
}
