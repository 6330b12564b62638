package viewer

import (
	"context"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/clip"
	"github.com/ddmtui/ddmtui/tui/style"
)

// Options configure a Shell.
type Options struct {
	// Screen replaces the terminal (tests pass a tcell.SimulationScreen).
	Screen tcell.Screen
	// Context bounds background work; Run also ends when it is done.
	Context context.Context
}

// Shell runs one full-screen view: it finds the terminal (or fails with
// ErrNoTerminal before anything is drawn), quits on the view's quit key and
// on Ctrl-C, and runs background work so that its results reach the UI
// goroutine and none outlives Run. The mouse stays off so the terminal's
// own text selection keeps working.
type Shell struct {
	app    *tview.Application
	screen tcell.Screen
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	closing bool
	wg      sync.WaitGroup
	busy    bool // UI goroutine only

	started chan struct{}
	once    sync.Once
}

// New returns a shell; SetRoot gives it its view, Run shows it.
func New(opt Options) *Shell {
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	s := &Shell{app: tview.NewApplication(), screen: opt.Screen, started: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(ctx)
	if opt.Screen != nil {
		s.app.SetScreen(opt.Screen)
		clip.Attach(opt.Screen)
	}
	s.app.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if ev.Key() == tcell.KeyCtrlC {
			s.Quit()
			return nil
		}
		return ev
	})
	return s
}

// PaletteOr returns *p, or the environment's palette (NO_COLOR) when p is
// nil.
func PaletteOr(p *style.Palette) style.Palette {
	if p != nil {
		return *p
	}
	return style.FromEnv()
}

// App is the shell's application (tests read its screen through it).
func (s *Shell) App() *tview.Application { return s.app }

// Context ends when the shell quits.
func (s *Shell) Context() context.Context { return s.ctx }

// Quit ends Run (once background work has returned). It is what a view's
// quit key calls.
func (s *Shell) Quit() { s.cancel() }

// SetRoot shows v full screen with the focus.
func (s *Shell) SetRoot(v tview.Primitive) { s.app.SetRoot(drawSignal{v, s}, true).SetFocus(v) }

// drawSignal tells the shell that the application runs: its first draw.
// (A wrapper, not SetAfterDrawFunc, which a test or view may set itself.)
type drawSignal struct {
	tview.Primitive
	s *Shell
}

func (d drawSignal) Draw(screen tcell.Screen) {
	d.s.once.Do(func() { close(d.s.started) })
	d.Primitive.Draw(screen)
}

// Go runs work off the UI goroutine, one job at a time (a job asked for
// while one runs is dropped), and applies the function it returns on the
// UI goroutine. No job starts once the shell is quitting. It reports
// whether the job started. Call it on the UI goroutine.
func (s *Shell) Go(work func() func()) bool {
	if s.busy {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.busy = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		apply := work()
		if s.ctx.Err() == nil {
			s.app.QueueUpdateDraw(func() { s.busy = false; apply() })
		}
	}()
	return true
}

// QueueUpdateDraw runs fn on the UI goroutine, then redraws (Runner).
func (s *Shell) QueueUpdateDraw(fn func()) { s.app.QueueUpdateDraw(fn) }

// Run shows the view until Quit, Ctrl-C or the context's end.
//
// QueueUpdateDraw waits for the UI loop, so the application is stopped only
// once no background job is left, and only once it runs (stopping one
// whose Run has not started would make Run open the real terminal).
func (s *Shell) Run() error {
	defer s.cancel()
	if s.screen == nil {
		scr, unwatch, err := OpenWatchedTerminal(s.cancel) // a hung-up terminal or SIGTERM ends the run
		if err != nil {
			return err
		}
		defer unwatch()
		s.app.SetScreen(scr)
		clip.Attach(scr) // the copy key writes OSC 52 to its tty
	}
	runDone, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		<-s.ctx.Done()
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		s.wg.Wait()
		select {
		case <-s.started:
			s.app.Stop()
		case <-runDone:
		}
	}()
	err := s.app.Run()
	close(runDone)
	s.cancel()
	<-stopped
	return err
}
