package allocview

import (
	"context"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/tui/style"
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

// newRun builds Run's application and view; run runs it.
func newRun(t *allocs.Table, opt RunOptions) (*tview.Application, *View, func() error) {
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancel(ctx)
	app := tview.NewApplication()
	if opt.Screen != nil {
		app.SetScreen(opt.Screen)
	}
	pal := style.FromEnv()
	if opt.Palette != nil {
		pal = *opt.Palette
	}

	// Background work hands its result to the UI goroutine with
	// QueueUpdateDraw, which waits for the UI loop: the application is
	// stopped only once no work is left, and no work starts after that.
	var (
		mu      sync.Mutex
		closing bool
		wg      sync.WaitGroup
		busy    bool // UI goroutine only
	)
	start := func(work func() func()) {
		if busy {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if closing {
			return
		}
		busy = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			apply := work()
			if ctx.Err() == nil {
				app.QueueUpdateDraw(func() { busy = false; apply() })
			}
		}()
	}
	var v *View
	o := Options{Title: opt.Title, Palette: pal, Quit: cancel}
	if opt.Fetch != nil {
		o.Refresh = func() {
			v.SetMessage("fetching the allocations…")
			start(func() func() {
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
			start(func() func() {
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
	app.SetRoot(v, true).SetFocus(v)
	app.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if ev.Key() == tcell.KeyCtrlC {
			cancel()
			return nil
		}
		return ev
	})
	// Stop only a running application: stopping one whose Run has not
	// started yet would make Run open the real terminal.
	started, runDone, stopped := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	app.SetAfterDrawFunc(func(tcell.Screen) { once.Do(func() { close(started) }) })
	run := func() error {
		defer cancel()
		go func() {
			defer close(stopped)
			<-ctx.Done()
			mu.Lock()
			closing = true
			mu.Unlock()
			wg.Wait()
			select {
			case <-started:
				app.Stop()
			case <-runDone:
			}
		}()
		err := app.Run()
		close(runDone)
		cancel()
		<-stopped
		return err
	}
	return app, v, run
}
