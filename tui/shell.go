package tui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/clip"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/spyview"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// Config sets up a dashboard.
type Config struct {
	Store      *monitor.Store
	Controller Controller
	Palette    style.Palette
	// Discovery describes where VMs come from, for the status line
	// (e.g. "scan 8000-8040 · adb 127.0.0.1:5037").
	Discovery string
	// Screen replaces the terminal (tests pass a tcell SimulationScreen).
	Screen tcell.Screen
	// Mouse enables mouse clicks (off by default so the terminal's own
	// text selection works).
	Mouse bool
	// FrameInterval caps redraws (default 33ms, about 30 per second).
	FrameInterval time.Duration
	// TraceDir is where method traces and heap dumps are saved (default:
	// the current directory).
	TraceDir string
	// ScanModes label the discovery modes the m key cycles through (e.g.
	// "scan 8000-8040 · adb 127.0.0.1:5037", "scan 8000-8040", "adb …");
	// SetScanMode switches to one (called off the UI goroutine). Switching
	// drops existing connections, as DDMS did. Fewer than two modes: no m.
	ScanModes   []string
	SetScanMode func(i int)
	// OnSelect, when set, is told (on the UI goroutine; it must not block)
	// which VM is selected: the debugger proxy points its selected-VM port
	// (8700) there.
	OnSelect func(key string)
	// Inspector, when set, feeds the JDWP traffic pane (J).
	Inspector *jdwpspy.Inspector
	// PortError, when set, says why a VM has no debugger port (e.g. the
	// port is busy; the proxy retries it); read on the UI goroutine, it
	// must not block.
	PortError func(key string) string
	// Notice, when set, is the first status message (e.g. what the demo
	// cannot do); it stays in the message history (M).
	Notice string
	// ADBStatus, when set, is shown in the status line (e.g. "adb
	// 127.0.0.1:5037: 2 devices"); it is read on the UI goroutine and must
	// not block.
	ADBStatus func() string
	// Memory, when set, is the budget the status line shows ("mem 12/256
	// MiB") with the last thing it dropped to make room (budget.Process).
	Memory *budget.Budget
	// Timeline, when set, is a replay's clock: its keys are bound and its
	// status shown (timeline.go).
	Timeline Timeline

	// DebuggableOnly starts the VM list with debuggable VMs only, leaving
	// out profileable processes without JDWP (--processes debuggable); the
	// P key switches.
	DebuggableOnly bool

	// Log, when set, gives a VM's device log (read on the UI goroutine; it
	// must not block), or why it has none (e.g. a local-port VM).
	Log func(vm monitor.VM) (*devicelog.Log, string)
	// SimDump, when set, gives the thread dump of a simulated VM that has
	// no device shell to ask (the demo's local-port VMs): what its
	// simulator writes on SIGQUIT. It runs off the UI goroutine; ok false
	// when vm is not one of the simulator's.
	SimDump func(ctx context.Context, vm monitor.VM) (dump []byte, ok bool, err error)
	// Mappings are the release builds' mapping files by app (nil: none).
	Mappings *Mappings
}

// Dashboard is the running UI. Its fields are touched only on the UI
// goroutine.
type Dashboard struct {
	cfg  Config
	pal  style.Palette
	app  *tview.Application
	keys *keymap.Map
	now  func() time.Time
	m    *model
	// chosen: the user picked a VM; until then the selection follows the
	// first VM of the list (VMs are found in no set order).
	chosen bool

	pages  *tview.Pages
	layout *tview.Flex

	vmsP     *vmPane
	threadsP *threadPane
	heapP    *heapPane
	stackP   *stackPane
	logP     *logPane
	statusP  *statusLine
	panes    [paneCount]Pane // focus order
	ov       *overlays

	show   [paneCount]bool
	lower  int    // small layout: the pane (heap or stack) below the threads
	fitted [2]int // VM list content width and length the layout was made for
	focus  int
	width  int
	height int

	pending func()          // runs if the next key is y (a confirmation asked for)
	choices map[rune]func() // the next key picks one (a question asked with choose)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // the forwarder and the JDWP traffic feeder
	jobs   *jobs          // everything else started off the UI goroutine (jobs.go)
}

// New builds a dashboard; Run starts it.
func New(cfg Config) *Dashboard {
	if cfg.FrameInterval <= 0 {
		cfg.FrameInterval = 33 * time.Millisecond
	}
	d := &Dashboard{cfg: cfg, pal: cfg.Palette, app: tview.NewApplication(), now: time.Now, m: newModel(),
		jobs: newJobs(), lower: paneHeap}
	d.show = [paneCount]bool{true, true, true, true, false}
	if cfg.Screen != nil {
		d.app.SetScreen(cfg.Screen)
		clip.Attach(cfg.Screen)
	}
	d.app.EnableMouse(cfg.Mouse)
	style.ApplyTview(d.pal)
	d.build()
	return d
}

// App returns the tview application (tests drive it).
func (d *Dashboard) App() *tview.Application { return d.app }

// Keys returns the key table (the help screen is generated from it).
func (d *Dashboard) Keys() *keymap.Map { return d.keys }

// build makes the panes and the overlays, each given what it needs
// (paneEnv) rather than the Dashboard: the Dashboard is their navigator
// and the overlays' shell; the overlays open the viewers for the panes.
func (d *Dashboard) build() {
	env := paneEnv{m: d.m, pal: d.pal, cfg: &d.cfg, keys: func() *keymap.Map { return d.keys },
		now: func() time.Time { return d.now() }, work: d.jobs, nav: d}
	// The trace in progress and the discovery mode are the VM actions'
	// (vmPane, built below).
	d.statusP = newStatusLine(env, statusInputs{
		width: func() int { return d.width },
		discovery: func() string {
			if d.vmsP == nil {
				return d.cfg.Discovery
			}
			return d.vmsP.discovery
		},
		tracing: func() profiling {
			if d.vmsP == nil {
				return profiling{}
			}
			return d.vmsP.tracing
		},
	})
	env.status = d.statusP
	d.layout = tview.NewFlex().SetDirection(tview.FlexRow)
	d.pages = tview.NewPages().AddPage("main", d.layout, true, true)
	d.ov = newOverlays(env, d.pages, d, d.statusP.historyText)
	env.views = d.ov
	d.vmsP = newVMPane(env)
	d.threadsP = newThreadPane(env)
	d.heapP = newHeapPane(env)
	d.stackP = newStackPane(env)
	d.logP = newLogPane(env)
	d.panes = [paneCount]Pane{paneVMs: d.vmsP, paneThreads: d.threadsP, paneHeap: d.heapP, paneStack: d.stackP, paneLog: d.logP}
	d.keys = d.keyTable()
	d.ov.setHelp(d.keys)
	d.app.SetRoot(d.pages, true)
	d.app.SetBeforeDrawFunc(func(s tcell.Screen) bool {
		// Called with the application locked: re-layout on the next turn of
		// the event loop, not here (SetFocus would deadlock).
		w, h := s.Size()
		if w != d.width || h != d.height {
			d.width, d.height = w, h
			d.jobs.spawn(func() { d.jobs.post(d.relayout) })
		}
		return false
	})
	d.app.SetInputCapture(d.capture)
	d.relayout()
	d.update(ChangeAll)
}

// keyTable declares every key once, each pane contributing its own; help
// is generated from it.
func (d *Dashboard) keyTable() *keymap.Map {
	const gen, nav, panes = "General", "Move", "Panes"
	b := keymap.Bind
	a := keymap.Alias
	m := keymap.New(
		b(tcell.KeyRune, '?', "?", "show or hide this help", gen, d.ov.toggleHelp).As("help"),
		b(tcell.KeyRune, 'q', "q / Ctrl-C", "quit", gen, d.quit).As("quit").Also("q"),
		a(tcell.KeyCtrlC, 0, d.quit).As("quit"),
		b(tcell.KeyRune, '/', "/", "filter the focused list (start with ! to invert)", gen, d.ov.openPrompt).As("filter"),
		b(tcell.KeyRune, ':', ":", "run an action by name; :app NAME, :sort COLUMN", gen, d.ov.openCommand).As("command"),
		b(tcell.KeyEscape, 0, "Esc", "clear the filter / close help", gen, d.escape).As("escape"),
		b(tcell.KeyRune, 'M', "M", "message history (status lines that went by)", gen, d.ov.showMessages).As("messages"),
		b(tcell.KeyRune, 'R', "R", "release builds: obfuscated / source names", gen, d.toggleObfuscated).As("obfuscated-names"),
	)
	m.Add(
		b(tcell.KeyRune, 'j', "j / ↓", "move down (VM list: select the next VM)", nav, func() { d.move(1) }).As("down"),
		a(tcell.KeyDown, 0, func() { d.move(1) }).As("down"),
		b(tcell.KeyRune, 'k', "k / ↑", "move up", nav, func() { d.move(-1) }).As("up"),
		a(tcell.KeyUp, 0, func() { d.move(-1) }).As("up"),
		b(tcell.KeyPgDn, 0, "PgDn / PgUp", "page down / up (heap: scroll)", nav, func() { d.page(1) }).As("page-down"),
		a(tcell.KeyPgUp, 0, func() { d.page(-1) }).As("page-up"),
		b(tcell.KeyHome, 0, "Home / End", "first / last row", nav, func() { d.move(-1 << 30) }).As("first"),
		a(tcell.KeyEnd, 0, func() { d.move(1 << 30) }).As("last"),
		b(tcell.KeyEnter, 0, "Enter", "VM list: go to its threads · threads: show the stack", nav, d.activate).As("activate"),
		b(tcell.KeyTab, 0, "Tab / Shift-Tab", "next / previous pane", panes, func() { d.cycleFocus(1) }).As("next-pane"),
		a(tcell.KeyBacktab, 0, func() { d.cycleFocus(-1) }).As("previous-pane"),
	)
	for _, p := range d.panes {
		m.Add(p.Keys()...)
	}
	m.Add(d.vmsP.actionKeys()...)
	m.Add(d.timelineKeys()...)
	m.Add(d.ov.timeline.keys()...)
	m.Add(d.copyKeys()...)
	m.Add(d.sortKeys()...)
	return m
}

func (d *Dashboard) capture(ev *tcell.EventKey) *tcell.EventKey {
	if ev.Key() == tcell.KeyCtrlC {
		d.quit() // always, whatever is open and however keys are bound (keymap.QuitAction)
		return nil
	}
	if pass, handled := d.ov.capture(ev); handled {
		if pass {
			return ev
		}
		return nil
	}
	if d.choices != nil {
		c := d.choices
		d.choices = nil
		if f, ok := c[ev.Rune()]; ok && ev.Key() == tcell.KeyRune {
			f()
		} else {
			d.flash("cancelled")
		}
		return nil
	}
	if d.pending != nil {
		f := d.pending
		d.pending = nil
		if ev.Rune() == 'y' {
			f()
		} else {
			d.flash("cancelled")
		}
		return nil
	}
	if d.focus == paneLog && d.logP.handle(ev) {
		return nil // the log pane's own keys while it has the focus
	}
	if sc := d.focusScope(); sc != "" && d.keys.HandleScope(ev, sc) {
		return nil // the focused table's sort keys
	}
	if d.keys.Handle(ev) {
		return nil
	}
	return ev
}

// Run shows the dashboard until the user quits, ctx ends, the terminal
// fails or SIGHUP/SIGTERM/SIGINT arrives. The terminal is restored even
// after a panic.
//
// tview's QueueUpdateDraw waits until the UI loop has run the function, so
// one goroutine (the forwarder, pump) does all such hand-offs, and the
// application is stopped only after it has exited: nothing is ever left
// waiting on a loop that no longer runs.
func (d *Dashboard) Run(ctx context.Context) (err error) {
	d.ctx, d.cancel = context.WithCancel(ctx)
	d.jobs.ctx = d.ctx
	defer d.cancel()
	if d.cfg.Screen == nil {
		s, unwatch, err := viewer.OpenWatchedTerminal(d.cancel)
		if err != nil {
			return err
		}
		defer unwatch()
		d.app.SetScreen(s)
		clip.Attach(s) // the copy key writes OSC 52 to its tty
	}
	sub := d.cfg.Store.Bus().Subscribe()
	defer sub.Close()
	// Start from the store's current state; the UI loop is not running yet.
	d.loadInitial(d.cfg.Store.VMs())
	if d.cfg.Notice != "" {
		d.flash(d.cfg.Notice)
	}
	panicked := make(chan any, 1)
	if d.cfg.Inspector != nil {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			spyview.Follow(d.ctx, d.cfg.Inspector, postUpdater{d.jobs}, d.ov.spyView)
		}()
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer func() {
			if p := recover(); p != nil {
				panicked <- p
				d.cancel()
			}
		}()
		d.pump(sub)
	}()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-d.ctx.Done()
		d.wg.Wait() // the forwarder finished its last hand-off
		d.app.Stop()
	}()
	err = d.app.Run()
	d.cancel()
	<-stopped
	// The UI loop has ended, so nothing starts more work: wait for what
	// key handlers started (their context is cancelled).
	d.jobs.wg.Wait()
	select {
	case p := <-panicked:
		return fmt.Errorf("dashboard: internal error: %v", p)
	default:
	}
	return err
}

// pump is the forwarder: it moves bus events to the UI goroutine at most
// once per frame, forwards posted functions, and ticks the blink animation.
//
// Frames are throttled with a leading edge: events that arrive when no
// frame was drawn for a frame interval are drawn at once; events that
// arrive sooner wait for the interval to pass since the last frame, and
// all that arrived meanwhile are drawn together. So a lone THST reply is
// drawn within a draw's time, and a flood (200 VMs at 2 Hz) costs at most
// one frame per interval, each event waiting at most one interval.
func (d *Dashboard) pump(sub *monitor.Subscription) {
	frame := time.NewTimer(time.Hour)
	frame.Stop()
	defer frame.Stop()
	armed := false
	var last time.Time // when the last frame of events was handed over
	blink := time.NewTicker(250 * time.Millisecond)
	defer blink.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-sub.Ready():
			if !armed {
				armed = true
				frame.Reset(max(0, d.cfg.FrameInterval-time.Since(last)))
			}
		case f := <-d.jobs.uiq:
			d.app.QueueUpdateDraw(f)
		case <-frame.C:
			armed = false
			last = time.Now()
			if evs := sub.Drain(); len(evs) > 0 {
				d.app.QueueUpdateDraw(func() { d.apply(evs) })
			}
		case <-blink.C:
			d.app.QueueUpdateDraw(d.tick)
		}
	}
}

func (d *Dashboard) loadInitial(vms []monitor.VM) {
	d.m.load(vms, d.cfg.Store, d.sessionClock())
	d.startPreload()
	d.afterVMsChanged(ChangeAll)
}

// apply folds events into the model and redraws the panes they concern
// (UI goroutine).
func (d *Dashboard) apply(evs []monitor.Event) {
	ch := d.m.apply(evs, d.now(), d.sessionClock())
	if ch&ChangeVMs != 0 {
		d.afterVMsChanged(ch)
		return
	}
	d.update(ch)
}

// afterVMsChanged selects the list's first VM until the user chose one,
// and redraws.
func (d *Dashboard) afterVMsChanged(ch Change) {
	_, selFailed := d.m.isFailed(d.m.sel)
	if first := d.m.firstWorking(); d.m.sel != first && (d.m.sel == "" || !d.chosen || selFailed) {
		d.m.sel = first // failed endpoints are not selected for the user
		d.selectionChanged()
		ch |= ChangeSelection
	}
	d.update(ch | ChangeVMs | ChangeThreads | ChangeHeap)
	d.fitVMPane()
}

// update tells every pane what changed.
func (d *Dashboard) update(ch Change) {
	for _, p := range d.panes {
		p.Update(ch)
	}
	d.statusP.Update(ch)
}

// tick expires blinks, dead threads and VMs gone for good.
func (d *Dashboard) tick() {
	now := d.now()
	d.m.expireDead(now)
	ch := ChangeTick
	if moved, dropped := d.m.expire(now); moved {
		d.selectionChanged()
		ch |= ChangeSelection | ChangeVMs | ChangeThreads | ChangeHeap
	} else if dropped {
		ch |= ChangeVMs
	}
	d.update(ch)
}

// selectVM makes key the selected VM.
func (d *Dashboard) selectVM(key string) {
	if key == "" {
		return
	}
	d.chosen = true
	if key == d.m.sel {
		return
	}
	d.m.sel = key
	d.selectionChanged()
	d.update(ChangeSelection | ChangeVMs | ChangeThreads | ChangeHeap)
}

// selectionChanged tells the proxy and the panes that hold per-VM state.
func (d *Dashboard) selectionChanged() {
	if d.cfg.OnSelect != nil && d.m.sel != "" {
		d.cfg.OnSelect(d.m.sel)
	}
	d.threadsP.selectionChanged()
	d.stackP.clear()
	d.heapP.selectionChanged()
}

func (d *Dashboard) flash(msg string) { d.statusP.flash(msg) }

// toggleObfuscated shows a release build's names as the build has them, or
// as its mapping file gives the source's.
func (d *Dashboard) toggleObfuscated() {
	msg := d.cfg.Mappings.toggle()
	if msg == "" {
		d.flash("no mapping files: give --mapping PKG=FILE or a [mappings] table in the config file")
		return
	}
	d.logP.setTitle()
	d.stackP.render()
	d.flash(msg)
}

// confirm runs yes if the next key is y; any other key cancels (the
// question is on the status line already).
func (d *Dashboard) confirm(yes func()) { d.pending = yes }

// choose runs the choice the next key names; any other key cancels.
func (d *Dashboard) choose(choices map[rune]func()) { d.choices = choices }

func (d *Dashboard) quit() {
	if d.cancel != nil {
		d.cancel()
		return
	}
	d.app.Stop()
}
