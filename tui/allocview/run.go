package allocview

import (
	"context"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// RunOptions configure Run.
type RunOptions struct {
	Title string // shown in the header, e.g. the app name
	// Screen replaces the terminal (tests pass a tcell.SimulationScreen).
	Screen tcell.Screen
	// Palette defaults to style.FromEnv() (NO_COLOR).
	Palette *style.Palette
	// Tracking is the VM's tracking state when known.
	Tracking *bool
	// Context bounds Fetch and Track; Run also ends when it is done.
	Context context.Context
	// Fetch, when set, lets R fetch the table again.
	Fetch func(ctx context.Context) (*allocs.Table, error)
	// Track, when set, lets t turn tracking on or off; it returns the
	// state the VM is in afterwards.
	Track func(ctx context.Context, on bool) (bool, error)
}

// Run shows t full screen until the user quits (q or Ctrl-C) or
// opt.Context ends. Fetch and Track run off the UI goroutine, one at a
// time; Run returns only after they have.
func Run(t *allocs.Table, opt RunOptions) error {
	_, _, run := newRun(t, opt)
	return run()
}

// newRun builds Run's shell and view; run runs it.
func newRun(t *allocs.Table, opt RunOptions) (*tview.Application, *View, func() error) {
	sh := viewer.New(viewer.Options{Screen: opt.Screen, Context: opt.Context})
	ctx := sh.Context()
	var v *View
	o := Options{Title: opt.Title, Palette: viewer.PaletteOr(opt.Palette), Quit: sh.Quit}
	if opt.Fetch != nil {
		o.Refresh = func() {
			v.SetMessage("fetching the allocations…")
			sh.Go(func() func() {
				tab, err := opt.Fetch(ctx)
				return func() {
					if err != nil {
						v.SetMessage("fetch: " + err.Error())
						return
					}
					v.SetMessage("")
					v.SetTable(tab)
				}
			})
		}
	}
	if opt.Track != nil {
		o.Track = func(on bool) {
			sh.Go(func() func() {
				now, err := opt.Track(ctx, on)
				return func() {
					if err != nil {
						v.SetMessage("tracking: " + err.Error())
						return
					}
					v.SetMessage("")
					v.SetTracking(now)
				}
			})
		}
	}
	v = New(o)
	v.SetTable(t)
	if opt.Tracking != nil {
		v.SetTracking(*opt.Tracking)
	}
	sh.SetRoot(v)
	return sh.App(), v, sh.Run
}
