// Package tui is ddmtui's terminal dashboard: a VM list, the selected VM's
// live thread table, its heap (HPIF summary and the HPSG bitmap), the stack
// of the selected thread, and a status line. It reads the monitor's Store
// through a coalescing Bus subscription and never touches a socket: requests
// to VMs go through a Controller, off the UI goroutine, and every widget
// change happens on the UI goroutine through QueueUpdateDraw, at most about
// 30 times a second whatever the traffic.
//
// Sub-packages hold pieces shared with other views: keymap (key tables that
// generate help), style (palette, NO_COLOR), and the standalone viewers.
package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/allocview"
	"github.com/ddmtui/ddmtui/tui/dumpview"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/profileview"
	"github.com/ddmtui/ddmtui/tui/spyview"
	"github.com/ddmtui/ddmtui/tui/style"
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
	// TraceDir is where method traces recorded with the p key are saved
	// (default: the current directory).
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
	Inspector *proxy.Inspector
	// ADBStatus, when set, is shown in the status line (e.g. "adb
	// 127.0.0.1:5037: 2 devices"); it is read on the UI goroutine and must
	// not block.
	ADBStatus func() string
}

// Pane identifiers, in Tab order.
const (
	paneVMs = iota
	paneThreads
	paneHeap
	paneStack
	paneCount
)

var paneNames = [paneCount]string{"VMs", "Threads", "Heap", "Stack"}

// Thread table columns.
var threadColumns = []string{"ID", "Name", "State", "utime", "stime", "Daemon", "tid"}

const (
	blinkFor = 1500 * time.Millisecond
	newFor   = 2 * time.Second
	diedFor  = 3 * time.Second
)

type deadThread struct {
	t  monitor.Thread
	at time.Time
}

// Dashboard is the running UI. Its fields are touched only on the UI
// goroutine.
type Dashboard struct {
	cfg  Config
	pal  style.Palette
	app  *tview.Application
	keys *keymap.Map
	now  func() time.Time

	pages   *tview.Pages
	layout  *tview.Flex
	vmTable *tview.Table
	thTable *tview.Table
	heapP   *HeapPane
	stackV  *tview.TextView
	status  *tview.TextView
	prompt  *tview.InputField
	helpV   *tview.TextView

	vms      []monitor.VM
	sel      string
	threads  map[string][]monitor.Thread
	died     map[string]map[uint64]deadThread
	heaps    map[string][]monitor.Heap
	snaps    map[string]*heap.Snapshot
	segOn    string                 // VM whose segments were requested
	segOpts  monitor.SegmentOptions // what was requested of it
	native   map[string]*heap.Snapshot
	vmFilter string
	thFilter string
	sortCol  int
	sortDesc bool
	show     [paneCount]bool
	focus    int
	width    int
	height   int
	message  string
	msgUntil time.Time

	vmRowKeys    []string
	thRowIDs     []uint64
	promptTarget int

	uiq chan func()

	confirm  func() // runs if the next key is y (a pending confirmation)
	mode     int    // index in cfg.ScanModes
	profKey  string // VM being profiled, if any
	profApp  string
	profView *profileview.View
	dumpView *dumpview.View
	spyView  *spyview.View
	allocV   *allocview.View
	allocKey string // VM whose allocations the allocation pane shows

	stackKey    string
	stackTID    uint64
	stackSeq    int
	stackFrames []ddm.StackFrame
	stackErr    error

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New builds a dashboard; Run starts it.
func New(cfg Config) *Dashboard {
	if cfg.FrameInterval <= 0 {
		cfg.FrameInterval = 33 * time.Millisecond
	}
	d := &Dashboard{
		cfg: cfg, pal: cfg.Palette, app: tview.NewApplication(), now: time.Now,
		threads: map[string][]monitor.Thread{}, died: map[string]map[uint64]deadThread{},
		heaps: map[string][]monitor.Heap{}, snaps: map[string]*heap.Snapshot{}, native: map[string]*heap.Snapshot{},
		sortCol: 0, uiq: make(chan func(), 64),
	}
	d.show = [paneCount]bool{true, true, true, true}
	if cfg.Screen != nil {
		d.app.SetScreen(cfg.Screen)
	}
	d.app.EnableMouse(cfg.Mouse)
	if d.pal.NoColor {
		tview.Styles.PrimitiveBackgroundColor = tcell.ColorDefault
		tview.Styles.ContrastBackgroundColor = tcell.ColorDefault
		tview.Styles.MoreContrastBackgroundColor = tcell.ColorDefault
		tview.Styles.BorderColor = tcell.ColorDefault
		tview.Styles.TitleColor = tcell.ColorDefault
		tview.Styles.PrimaryTextColor = tcell.ColorDefault
		tview.Styles.SecondaryTextColor = tcell.ColorDefault
		tview.Styles.TertiaryTextColor = tcell.ColorDefault
		tview.Styles.GraphicsColor = tcell.ColorDefault
		tview.Styles.InverseTextColor = tcell.ColorDefault
		tview.Styles.ContrastSecondaryTextColor = tcell.ColorDefault
	} else {
		// Respect the terminal's own background.
		tview.Styles.PrimitiveBackgroundColor = tcell.ColorDefault
	}
	d.build()
	d.keys = d.keyTable()
	// The help text is ours (no VM strings): only tview's tag syntax needs escaping.
	d.helpV.SetText(tview.Escape(d.keys.HelpText()) + "[::d]Esc or ? closes this help; j/k scroll.")
	return d
}

// App returns the tview application (tests drive it).
func (d *Dashboard) App() *tview.Application { return d.app }

// Keys returns the key table (the help screen is generated from it).
func (d *Dashboard) Keys() *keymap.Map { return d.keys }

func (d *Dashboard) build() {
	d.vmTable = tview.NewTable().SetSelectable(true, false).SetFixed(1, 0)
	d.vmTable.SetBorder(true).SetTitle(" VMs ")
	d.vmTable.SetSelectedFunc(func(row, _ int) { d.selectRow(row) })
	d.thTable = tview.NewTable().SetSelectable(true, false).SetFixed(1, 0)
	d.thTable.SetBorder(true).SetTitle(" Threads ")
	d.thTable.SetSelectionChangedFunc(func(row, _ int) { d.threadRowChanged(row) })
	d.heapP = NewHeapPane(d.pal, d.post)
	d.stackV = tview.NewTextView().SetDynamicColors(true).SetWrap(true)
	d.stackV.SetBorder(true).SetTitle(" Stack ")
	d.status = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	d.prompt = tview.NewInputField().SetLabel("/")
	d.prompt.SetDoneFunc(d.promptDone)
	d.prompt.SetChangedFunc(func(text string) { d.setFilter(text) })
	d.helpV = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	d.helpV.SetBorder(true).SetTitle(" Keys ")
	d.layout = tview.NewFlex().SetDirection(tview.FlexRow)
	d.pages = tview.NewPages().AddPage("main", d.layout, true, true)
	help := tview.NewFlex().
		AddItem(nil, 0, 1, false).
		AddItem(tview.NewFlex().SetDirection(tview.FlexRow).
			AddItem(d.helpV, 0, 1, true), 0, 6, true).
		AddItem(nil, 0, 1, false)
	d.pages.AddPage("help", help, true, false)
	d.profView = profileview.New(profileview.Options{Palette: d.pal, Quit: d.closeProfile})
	d.pages.AddPage("profile", d.profView, true, false)
	d.dumpView = dumpview.New(dumpview.Options{Palette: d.pal, Quit: d.closeDump})
	d.pages.AddPage("dump", d.dumpView, true, false)
	d.spyView = spyview.New(spyview.Options{Palette: d.pal})
	d.spyView.SetBorder(true).SetTitle(" JDWP traffic through the debugger ports (J or Esc: back) ")
	d.pages.AddPage("spy", d.spyView, true, false)
	d.allocV = allocview.New(allocview.Options{Palette: d.pal, Quit: d.closeAllocs, Refresh: d.refreshAllocs, Track: d.trackAllocs})
	d.pages.AddPage("allocs", d.allocV, true, false)
	d.app.SetRoot(d.pages, true)
	d.app.SetBeforeDrawFunc(func(s tcell.Screen) bool {
		// Called with the application locked: re-layout on the next turn of
		// the event loop, not here (SetFocus would deadlock).
		w, h := s.Size()
		if w != d.width || h != d.height {
			d.width, d.height = w, h
			go d.post(d.relayout)
		}
		return false
	})
	d.app.SetInputCapture(d.capture)
	d.vmTable.SetInputCapture(nil)
	d.relayout()
	d.renderVMs()
	d.renderThreads()
	d.renderStatus()
}

// keyTable declares every key once; help is generated from it.
func (d *Dashboard) keyTable() *keymap.Map {
	const gen, nav, panes, hp = "General", "Move", "Panes", "Heap"
	b := keymap.Bind
	return keymap.New(
		b(tcell.KeyRune, '?', "?", "show or hide this help", gen, d.toggleHelp),
		b(tcell.KeyRune, 'q', "q / Ctrl-C", "quit", gen, d.quit),
		keymap.Binding{Key: tcell.KeyCtrlC, Hidden: true, Action: d.quit},
		b(tcell.KeyRune, '/', "/", "filter the current list (start with ! to invert)", gen, d.openPrompt),
		b(tcell.KeyEscape, 0, "Esc", "clear the filter / close help", gen, d.escape),
		b(tcell.KeyRune, 'm', "m", "switch the discovery mode (drops connections)", gen, d.nextScanMode),
		b(tcell.KeyRune, 'j', "j / ↓", "move down", nav, func() { d.move(1) }),
		keymap.Binding{Key: tcell.KeyDown, Hidden: true, Action: func() { d.move(1) }},
		b(tcell.KeyRune, 'k', "k / ↑", "move up", nav, func() { d.move(-1) }),
		keymap.Binding{Key: tcell.KeyUp, Hidden: true, Action: func() { d.move(-1) }},
		b(tcell.KeyPgDn, 0, "PgDn / PgUp", "page down / up (heap: scroll)", nav, func() { d.page(1) }),
		keymap.Binding{Key: tcell.KeyPgUp, Hidden: true, Action: func() { d.page(-1) }},
		b(tcell.KeyHome, 0, "Home / End", "first / last row", nav, func() { d.moveTo(0) }),
		keymap.Binding{Key: tcell.KeyEnd, Hidden: true, Action: func() { d.moveTo(-1) }},
		b(tcell.KeyEnter, 0, "Enter", "select the VM (VM list) / show the thread's stack", nav, d.enter),
		b(tcell.KeyTab, 0, "Tab / Shift-Tab", "next / previous pane", panes, func() { d.cycleFocus(1) }),
		keymap.Binding{Key: tcell.KeyBacktab, Hidden: true, Action: func() { d.cycleFocus(-1) }},
		b(tcell.KeyRune, 't', "t", "show or hide the thread pane", panes, func() { d.toggle(paneThreads) }),
		b(tcell.KeyRune, 'h', "h", "show or hide the heap pane", panes, func() { d.toggle(paneHeap) }),
		b(tcell.KeyRune, 's', "s", "show or hide the stack pane", panes, func() { d.toggle(paneStack) }),
		b(tcell.KeyRune, 'o', "o / O", "threads: sort by the next column / reverse the order", panes, d.nextSort),
		keymap.Binding{Key: tcell.KeyRune, Rune: 'O', Hidden: true, Action: d.reverseSort},
		b(tcell.KeyRune, 'g', "g", "cause a GC in the selected VM", hp, d.gc),
		b(tcell.KeyRune, 'c', "c", "colour the heap by kind / by solidity", hp, func() { d.heapP.ToggleColouring() }),
		b(tcell.KeyRune, '+', "+ / -", "zoom the heap bitmap in / out", hp, func() { d.heapP.Zoom(1) }),
		keymap.Binding{Key: tcell.KeyRune, Rune: '=', Hidden: true, Action: func() { d.heapP.Zoom(1) }},
		keymap.Binding{Key: tcell.KeyRune, Rune: '-', Hidden: true, Action: func() { d.heapP.Zoom(-1) }},
		b(tcell.KeyRune, '0', "0", "fit the whole heap", hp, func() { d.heapP.Zoom(0) }),
		b(tcell.KeyRune, 'n', "n", "managed / native heap", hp, func() { d.heapP.ToggleNative(); d.updateSegments() }),
		b(tcell.KeyRune, 'b', "b", "object boundaries (HPSO) / merged runs (HPSG)", hp, func() { d.heapP.ToggleObjects(); d.updateSegments() }),
		b(tcell.KeyRune, 'i', "i", "object-size histogram / bitmap", hp, func() { d.heapP.ToggleHistogram(); d.updateSegments() }),
		b(tcell.KeyRune, 'p', "p", "start / stop a method trace (saved, then shown)", "VM", d.toggleProfiling),
		b(tcell.KeyRune, 'd', "d", "thread dump (adb shell kill -3), analysed", "VM", d.threadDump),
		b(tcell.KeyRune, 'a', "a", "allocation tracker (REAE/REAL)", "VM", d.openAllocs),
		b(tcell.KeyRune, 'J', "J", "JDWP traffic of debuggers attached through ddmtui", "VM", d.openSpy),
		b(tcell.KeyRune, 'H', "H", "HPROF heap dump, saved as standard HPROF", "VM", d.heapDump),
		b(tcell.KeyRune, 'X', "X", "make the selected VM exit (asks first)", "VM", d.askExit),
	)
}

func (d *Dashboard) capture(ev *tcell.EventKey) *tcell.EventKey {
	if d.app.GetFocus() == d.prompt {
		return ev // the prompt takes every key; Enter/Esc end it
	}
	switch name, _ := d.pages.GetFrontPage(); name {
	case "profile", "dump", "allocs":
		return ev // the embedded viewer has its own keys; q returns here
	case "spy":
		if ev.Rune() == 'J' || ev.Rune() == 'q' || ev.Key() == tcell.KeyEscape {
			d.pages.HidePage("spy")
			d.applyFocus()
			return nil
		}
		return ev
	}
	if d.confirm != nil {
		f := d.confirm
		d.confirm = nil
		if ev.Rune() == 'y' {
			f()
		} else {
			d.flash("cancelled")
		}
		return nil
	}
	if d.helpShown() {
		switch {
		case ev.Key() == tcell.KeyEscape || ev.Rune() == '?' || ev.Rune() == 'q':
			d.toggleHelp()
		case ev.Key() == tcell.KeyUp || ev.Key() == tcell.KeyDown || ev.Key() == tcell.KeyPgUp ||
			ev.Key() == tcell.KeyPgDn || ev.Rune() == 'j' || ev.Rune() == 'k':
			return ev // the help scrolls when it is taller than the terminal
		}
		return nil
	}
	if d.keys.Handle(ev) {
		return nil
	}
	return ev
}

// Run shows the dashboard until the user quits or ctx ends. The terminal
// is restored even after a panic.
//
// tview's QueueUpdateDraw waits until the UI loop has run the function, so
// one goroutine (the forwarder, pump) does all such hand-offs, and the
// application is stopped only after it has exited: nothing is ever left
// waiting on a loop that no longer runs.
func (d *Dashboard) Run(ctx context.Context) (err error) {
	d.ctx, d.cancel = context.WithCancel(ctx)
	defer d.cancel()
	sub := d.cfg.Store.Bus().Subscribe()
	defer sub.Close()
	// Start from the store's current state; the UI loop is not running yet.
	d.loadInitial(d.cfg.Store.VMs())
	panicked := make(chan any, 1)
	if d.cfg.Inspector != nil {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			spyview.Follow(d.ctx, d.cfg.Inspector, postUpdater{d}, d.spyView)
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
	select {
	case p := <-panicked:
		return fmt.Errorf("dashboard: internal error: %v", p)
	default:
	}
	return err
}

// post hands f to the UI goroutine (followed by a redraw). It never blocks
// once the dashboard is shutting down. Call it from background goroutines
// only.
func (d *Dashboard) post(f func()) {
	select {
	case d.uiq <- f:
	case <-d.ctxOrBackground().Done():
	}
}

// pump is the forwarder: it moves bus events to the UI goroutine at most
// once per frame, forwards posted functions, and ticks the blink animation.
func (d *Dashboard) pump(sub *monitor.Subscription) {
	frame := time.NewTicker(d.cfg.FrameInterval)
	defer frame.Stop()
	blink := time.NewTicker(250 * time.Millisecond)
	defer blink.Stop()
	dirty := false
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-sub.Ready():
			dirty = true
		case f := <-d.uiq:
			d.app.QueueUpdateDraw(f)
		case <-frame.C:
			if !dirty {
				continue
			}
			dirty = false
			if evs := sub.Drain(); len(evs) > 0 {
				d.app.QueueUpdateDraw(func() { d.apply(evs) })
			}
		case <-blink.C:
			d.app.QueueUpdateDraw(d.tick)
		}
	}
}

func (d *Dashboard) loadInitial(vms []monitor.VM) {
	d.vms = vms
	for _, vm := range vms {
		d.threads[vm.Key] = vm.Threads
		d.heaps[vm.Key] = vm.Heaps
		if s := d.cfg.Store.Segments(vm.Key); s != nil {
			d.snaps[vm.Key] = s
		}
		if s := d.cfg.Store.NativeSegments(vm.Key); s != nil {
			d.native[vm.Key] = s
		}
	}
	d.afterVMsChanged()
	d.renderHeap()
}

// apply folds events into the dashboard's state (UI goroutine).
func (d *Dashboard) apply(evs []monitor.Event) {
	vmsChanged, threadsChanged, heapChanged := false, false, false
	for _, ev := range evs {
		switch e := ev.(type) {
		case monitor.VMUpdated:
			d.upsertVM(e.VM)
			vmsChanged = true
		case monitor.VMGone:
			d.removeVM(e.Key)
			vmsChanged = true
		case monitor.ThreadsUpdated:
			d.setThreads(e.Key, e.Threads)
			threadsChanged = threadsChanged || e.Key == d.sel
		case monitor.HeapUpdated:
			d.heaps[e.Key] = e.Heaps
			heapChanged = heapChanged || e.Key == d.sel
		case monitor.SegmentsUpdated:
			d.snaps[e.Key] = e.Snapshot
			heapChanged = heapChanged || e.Key == d.sel
		case monitor.NativeSegmentsUpdated:
			d.native[e.Key] = e.Snapshot
			heapChanged = heapChanged || e.Key == d.sel
		}
	}
	if vmsChanged {
		d.afterVMsChanged()
	}
	if threadsChanged {
		d.renderThreads()
	}
	if heapChanged || vmsChanged {
		d.renderHeap()
	}
}

func (d *Dashboard) upsertVM(vm monitor.VM) {
	for i := range d.vms {
		if d.vms[i].Key == vm.Key {
			d.vms[i] = vm
			return
		}
	}
	d.vms = append(d.vms, vm)
	sort.SliceStable(d.vms, func(i, j int) bool {
		if d.vms[i].Source != d.vms[j].Source {
			return d.vms[i].Source < d.vms[j].Source
		}
		return d.vms[i].PID < d.vms[j].PID
	})
}

func (d *Dashboard) removeVM(key string) {
	for i := range d.vms {
		if d.vms[i].Key == key {
			d.vms = append(d.vms[:i], d.vms[i+1:]...)
			break
		}
	}
	delete(d.threads, key)
	delete(d.died, key)
	delete(d.heaps, key)
	delete(d.snaps, key)
	delete(d.native, key)
	if d.segOn == key {
		d.segOn = ""
	}
	if d.sel == key {
		d.sel = ""
	}
}

func (d *Dashboard) setThreads(key string, threads []monitor.Thread) {
	now := d.now()
	prev := d.threads[key]
	if len(prev) > 0 {
		live := make(map[uint64]bool, len(threads))
		for _, t := range threads {
			live[t.ID] = true
		}
		for _, t := range prev {
			if !live[t.ID] {
				if d.died[key] == nil {
					d.died[key] = map[uint64]deadThread{}
				}
				d.died[key][t.ID] = deadThread{t: t, at: now}
			}
		}
	}
	d.threads[key] = threads
}

func (d *Dashboard) afterVMsChanged() {
	if d.sel == "" && len(d.vms) > 0 {
		d.sel = d.vms[0].Key
		d.onSelectionChanged()
	}
	d.renderVMs()
	d.renderThreads()
	d.renderStatus()
}

// tick expires blinks and dead threads.
func (d *Dashboard) tick() {
	now := d.now()
	for key, m := range d.died {
		for id, dt := range m {
			if now.Sub(dt.at) > diedFor {
				delete(m, id)
			}
		}
		if len(m) == 0 {
			delete(d.died, key)
		}
	}
	d.renderThreads()
	d.renderStatus()
}

// --- rendering -----------------------------------------------------------

func (d *Dashboard) filteredVMs() []monitor.VM {
	var out []monitor.VM
	for _, vm := range d.vms {
		if matchFilter(d.vmFilter, vm.Source, fmt.Sprint(vm.PID), vm.App, vm.VMIdent) {
			out = append(out, vm)
		}
	}
	return out
}

// matchFilter applies a case-insensitive substring filter; a leading '!'
// inverts it.
func matchFilter(filter string, fields ...string) bool {
	if filter == "" {
		return true
	}
	invert := strings.HasPrefix(filter, "!")
	f := strings.ToLower(strings.TrimPrefix(filter, "!"))
	if f == "" {
		return true
	}
	hit := false
	for _, s := range fields {
		if strings.Contains(strings.ToLower(s), f) {
			hit = true
			break
		}
	}
	return hit != invert
}

func (d *Dashboard) renderVMs() {
	t := d.vmTable
	row, _ := t.GetSelection()
	var selKey string
	list := d.filteredVMs()
	if row >= 1 && row-1 < len(d.vmRowKeys) {
		selKey = d.vmRowKeys[row-1]
	}
	t.Clear()
	hdr := func(c int, s string) {
		t.SetCell(0, c, tview.NewTableCell(s).SetSelectable(false).SetAttributes(tcell.AttrBold).SetTextColor(d.pal.Accent()))
	}
	for i, h := range []string{"", "Source", "PID", "App", "DDM", "Debugger", "Port"} {
		hdr(i, h)
	}
	d.vmRowKeys = d.vmRowKeys[:0]
	newRow := 1
	for i, vm := range list {
		r := i + 1
		mark := " "
		if vm.Key == d.sel {
			mark = "▶"
		}
		dbg := string(vm.Debugger)
		dbgColor := tcell.ColorDefault
		switch vm.Debugger {
		case monitor.DebuggerWaiting:
			dbgColor = d.pal.Warning()
		case monitor.DebuggerAttached:
			dbgColor = d.pal.Accent()
		}
		ddmText := "yes"
		if !vm.DDM {
			ddmText = "no"
		}
		port := "-"
		if vm.DebugPort != 0 {
			port = fmt.Sprint(vm.DebugPort)
		}
		app := vm.App
		if app == "" {
			app = vm.VMIdent
		}
		cells := []*tview.TableCell{
			tview.NewTableCell(mark).SetTextColor(d.pal.Accent()),
			tview.NewTableCell(safetext.Tview(vm.Source)),
			tview.NewTableCell(fmt.Sprint(vm.PID)).SetAlign(tview.AlignRight),
			tview.NewTableCell(safetext.Tview(app)).SetExpansion(1).SetMaxWidth(22),
			tview.NewTableCell(ddmText),
			tview.NewTableCell(dbg).SetTextColor(dbgColor),
			tview.NewTableCell(port).SetAlign(tview.AlignRight),
		}
		for c, cell := range cells {
			t.SetCell(r, c, cell)
		}
		d.vmRowKeys = append(d.vmRowKeys, vm.Key)
		if vm.Key == selKey {
			newRow = r
		}
	}
	if len(list) == 0 {
		msg := "no VMs yet — looking (" + d.cfg.Discovery + ")"
		if d.vmFilter != "" {
			msg = "no VM matches the filter"
		}
		t.SetCell(1, 0, tview.NewTableCell("").SetSelectable(false))
		t.SetCell(1, 3, tview.NewTableCell(safetext.Tview(msg)).SetSelectable(false).SetAttributes(tcell.AttrDim))
		return
	}
	t.Select(newRow, 0)
	t.SetTitle(fmt.Sprintf(" VMs (%d) ", len(list)))
}

// selectedDDM returns the selected VM when requests can be made of it (a
// controller exists and the VM speaks DDM); otherwise it says why in the
// status line. what names the action, e.g. "GC".
func (d *Dashboard) selectedDDM(what string) (monitor.VM, bool) {
	vm, ok := d.selectedVM()
	if !ok || d.cfg.Controller == nil {
		return vm, false
	}
	if !vm.DDM {
		d.flash(what + " needs a VM that speaks DDM")
		return vm, false
	}
	return vm, true
}

func (d *Dashboard) selectedVM() (monitor.VM, bool) {
	for _, vm := range d.vms {
		if vm.Key == d.sel {
			return vm, true
		}
	}
	return monitor.VM{}, false
}

type threadRow struct {
	t    monitor.Thread
	dead bool
	at   time.Time
}

func (d *Dashboard) threadRows() []threadRow {
	var rows []threadRow
	for _, t := range d.threads[d.sel] {
		if matchFilter(d.thFilter, t.Name, t.State, fmt.Sprint(t.ID)) {
			rows = append(rows, threadRow{t: t})
		}
	}
	for _, dt := range d.died[d.sel] {
		if matchFilter(d.thFilter, dt.t.Name, "died", fmt.Sprint(dt.t.ID)) {
			rows = append(rows, threadRow{t: dt.t, dead: true, at: dt.at})
		}
	}
	less := func(a, b threadRow) bool {
		switch d.sortCol {
		case 1:
			if a.t.Name != b.t.Name {
				return a.t.Name < b.t.Name
			}
		case 2:
			if a.t.State != b.t.State {
				return a.t.State < b.t.State
			}
		case 3:
			if a.t.UTime != b.t.UTime {
				return a.t.UTime > b.t.UTime
			}
		case 4:
			if a.t.STime != b.t.STime {
				return a.t.STime > b.t.STime
			}
		case 5:
			if a.t.Daemon != b.t.Daemon {
				return !a.t.Daemon
			}
		case 6:
			if a.t.SysTID != b.t.SysTID {
				return a.t.SysTID < b.t.SysTID
			}
		}
		return a.t.ID < b.t.ID
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if d.sortDesc {
			return less(rows[j], rows[i])
		}
		return less(rows[i], rows[j])
	})
	return rows
}

func (d *Dashboard) renderThreads() {
	t := d.thTable
	row, _ := t.GetSelection()
	var selID uint64
	haveSel := false
	if row >= 1 && row-1 < len(d.thRowIDs) {
		selID, haveSel = d.thRowIDs[row-1], true
	}
	t.Clear()
	for c, h := range threadColumns {
		label := h
		if c == d.sortCol {
			if d.sortDesc {
				label += "▲"
			} else {
				label += "▼"
			}
		}
		align := tview.AlignLeft
		if c == 0 || c == 3 || c == 4 || c == 6 {
			align = tview.AlignRight
		}
		t.SetCell(0, c, tview.NewTableCell(label).SetSelectable(false).SetAttributes(tcell.AttrBold).SetTextColor(d.pal.Accent()).SetAlign(align))
	}
	vm, ok := d.selectedVM()
	d.thRowIDs = d.thRowIDs[:0]
	if !ok {
		t.SetTitle(" Threads ")
		return
	}
	now := d.now()
	rows := d.threadRows()
	newRow := 1
	for i, r := range rows {
		th := r.t
		state := th.State
		stColor := d.pal.ThreadState(state)
		attr := tcell.AttrNone
		mark := ""
		switch {
		case r.dead:
			state, stColor, attr, mark = "died", d.pal.ThreadState("zombie"), tcell.AttrDim|tcell.AttrStrikeThrough, "✝"
		case now.Sub(th.Created) < newFor && !th.Created.IsZero() && now.Sub(vm.Connected) > newFor:
			mark = "+"
		}
		blink := !r.dead && !th.Changed.IsZero() && now.Sub(th.Changed) < blinkFor && now.Sub(vm.Connected) > blinkFor
		if blink {
			attr |= tcell.AttrReverse
		}
		daemon := ""
		if th.Daemon {
			daemon = "daemon"
		}
		name := th.Name
		if name == "" {
			name = fmt.Sprintf("<thread %d>", th.ID)
		}
		cells := []*tview.TableCell{
			tview.NewTableCell(fmt.Sprint(th.ID)).SetAlign(tview.AlignRight),
			tview.NewTableCell(safetext.Tview(mark + name)).SetExpansion(1).SetMaxWidth(18),
			tview.NewTableCell(state).SetTextColor(stColor).SetAttributes(attr),
			tview.NewTableCell(fmt.Sprint(th.UTime)).SetAlign(tview.AlignRight),
			tview.NewTableCell(fmt.Sprint(th.STime)).SetAlign(tview.AlignRight),
			tview.NewTableCell(daemon),
			tview.NewTableCell(fmt.Sprint(th.SysTID)).SetAlign(tview.AlignRight),
		}
		for c, cell := range cells {
			if r.dead && c != 2 {
				cell.SetAttributes(tcell.AttrDim | tcell.AttrStrikeThrough)
			}
			t.SetCell(i+1, c, cell)
		}
		d.thRowIDs = append(d.thRowIDs, th.ID)
		if haveSel && th.ID == selID {
			newRow = i + 1
		}
	}
	title := fmt.Sprintf(" Threads · %s (%d) · %d ", safetext.Tview(truncate(vm.App, 32)), vm.PID, len(d.threads[d.sel]))
	if d.thFilter != "" {
		title += "· filter " + safetext.Tview(d.thFilter) + " "
	}
	t.SetTitle(title)
	if len(rows) > 0 {
		t.Select(newRow, 0)
	}
}

func (d *Dashboard) renderHeap() {
	vm, ok := d.selectedVM()
	if !ok {
		d.heapP.SetHeaps(nil)
		d.heapP.SetSnapshot(nil)
		d.heapP.SetTitle(" Heap ")
		return
	}
	d.heapP.SetTitle(fmt.Sprintf(" Heap · %s ", safetext.Tview(truncate(vm.App, 40))))
	d.heapP.SetHeaps(d.heaps[d.sel])
	d.heapP.SetSnapshot(d.snaps[d.sel])
	d.heapP.SetNativeSnapshot(d.native[d.sel])
	if !vm.DDM {
		d.heapP.SetWaiting("not a DDM VM: no heap information")
	} else {
		d.heapP.SetWaiting("")
	}
}

func (d *Dashboard) renderStack() {
	vm, ok := d.selectedVM()
	var b strings.Builder
	switch {
	case !ok:
	case !vm.DDM:
		b.WriteString("[::d]stacks of VMs without DDM need a debugger (attach one through the proxy)")
	case d.stackKey != d.sel:
		b.WriteString("[::d]select a thread and press Enter")
	case d.stackErr != nil:
		b.WriteString("[::d]" + safetext.Tview(d.stackErr.Error()))
	case d.stackFrames == nil:
		b.WriteString("[::d]asking the VM…")
	default:
		for _, f := range d.stackFrames {
			loc := f.File
			switch {
			case f.Line == ddm.LineNative:
				loc = "Native Method"
			case f.File == "":
				loc = "Unknown Source"
			case f.Line >= 0:
				loc = fmt.Sprintf("%s:%d", f.File, f.Line)
			}
			fmt.Fprintf(&b, "at %s.[::b]%s[::-]([::d]%s[::-])\n", safetext.Tview(f.Class), safetext.Tview(f.Method), safetext.Tview(loc))
		}
	}
	title := " Stack "
	if d.stackKey == d.sel && d.stackKey != "" {
		for _, t := range d.threads[d.sel] {
			if t.ID == d.stackTID {
				title = fmt.Sprintf(" Stack · %s ", safetext.Tview(truncate(t.Name, 40)))
			}
		}
	}
	d.stackV.SetTitle(title)
	d.stackV.SetText(b.String())
}

// renderStatus writes the status line, most important first so that a
// narrow terminal cuts the least useful parts: a pending message, the VM
// count and selection, problems, then where VMs come from.
func (d *Dashboard) renderStatus() {
	n := len(d.vms)
	parts := []string{"[::b]ddmtui[::-] [::d]?:help q:quit[::-]"}
	if d.message != "" && d.now().Before(d.msgUntil) {
		parts = append(parts, "[yellow]"+safetext.Tview(d.message)+"[-]")
	}
	parts = append(parts, fmt.Sprintf("%d VM%s", n, plural(n)))
	if vm, ok := d.selectedVM(); ok {
		parts = append(parts, fmt.Sprintf("selected: %s (%d)", safetext.Tview(truncate(vm.App, 30)), vm.PID))
		if vm.Err != "" {
			parts = append(parts, "[red]"+safetext.Tview(truncate(vm.Err, 60))+"[-]")
		}
	}
	if d.profKey != "" {
		parts = append(parts, "[red]● tracing "+safetext.Tview(truncate(d.profApp, 24))+"[-]")
	}
	parts = append(parts, safetext.Tview(d.cfg.Discovery))
	if d.cfg.ADBStatus != nil {
		if st := d.cfg.ADBStatus(); st != "" {
			parts = append(parts, safetext.Tview(st))
		}
	}
	d.status.SetText(" " + strings.Join(parts, " · "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (d *Dashboard) flash(msg string) {
	d.message, d.msgUntil = msg, d.now().Add(4*time.Second)
	d.renderStatus()
}

// --- layout --------------------------------------------------------------

func (d *Dashboard) relayout() {
	w, h := d.width, d.height
	if w == 0 {
		w, h = 120, 40
	}
	d.layout.Clear()
	wide := w >= 110
	tall := h >= 30
	body := tview.NewFlex().SetDirection(tview.FlexRow)
	showStack := d.show[paneStack] && (wide || !d.show[paneHeap])
	if wide {
		top := tview.NewFlex()
		if d.show[paneThreads] {
			top.AddItem(d.vmTable, 62, 0, false)
			top.AddItem(d.thTable, 0, 1, false)
		} else {
			top.AddItem(d.vmTable, 0, 1, false)
		}
		bottom := tview.NewFlex()
		if d.show[paneHeap] {
			bottom.AddItem(d.heapP, 0, 2, false)
		}
		if showStack {
			bottom.AddItem(d.stackV, 0, 1, false)
		}
		lower := d.show[paneHeap] || showStack
		if lower {
			body.AddItem(top, 0, 1, false)
			body.AddItem(bottom, 0, 1, false)
		} else {
			body.AddItem(top, 0, 1, false)
		}
	} else {
		vmRows := 7
		if !tall {
			vmRows = 6
		}
		if !d.show[paneThreads] && !d.show[paneHeap] && !showStack {
			body.AddItem(d.vmTable, 0, 1, false)
		} else {
			body.AddItem(d.vmTable, vmRows, 0, false)
		}
		if d.show[paneThreads] {
			body.AddItem(d.thTable, 0, 2, false)
		}
		if d.show[paneHeap] {
			body.AddItem(d.heapP, 0, 2, false)
		}
		if showStack {
			body.AddItem(d.stackV, 0, 1, false)
		}
	}
	d.layout.AddItem(body, 0, 1, false)
	if d.app.GetFocus() == d.prompt {
		d.layout.AddItem(d.prompt, 1, 0, true)
	} else {
		d.layout.AddItem(d.status, 1, 0, false)
	}
	if !d.paneVisible(d.focus) {
		d.focus = paneVMs
	}
	d.applyFocus()
}

func (d *Dashboard) paneVisible(p int) bool {
	switch p {
	case paneVMs:
		return true
	case paneStack:
		return d.show[paneStack] && (d.width >= 110 || d.width == 0 || !d.show[paneHeap])
	}
	return d.show[p]
}

func (d *Dashboard) panePrimitive(p int) tview.Primitive {
	switch p {
	case paneThreads:
		return d.thTable
	case paneHeap:
		return d.heapP
	case paneStack:
		return d.stackV
	}
	return d.vmTable
}

func (d *Dashboard) applyFocus() {
	if d.app.GetFocus() == d.prompt {
		return
	}
	if name, _ := d.pages.GetFrontPage(); name != "main" && name != "" {
		return // an overlay (help, a viewer) keeps the focus
	}
	for p := 0; p < paneCount; p++ {
		box := d.paneBox(p)
		if p == d.focus {
			box.SetBorderColor(d.pal.Accent())
			box.SetTitleColor(d.pal.Accent())
		} else {
			box.SetBorderColor(tview.Styles.BorderColor)
			box.SetTitleColor(tview.Styles.TitleColor)
		}
	}
	d.app.SetFocus(d.panePrimitive(d.focus))
}

func (d *Dashboard) paneBox(p int) *tview.Box {
	switch p {
	case paneThreads:
		return d.thTable.Box
	case paneHeap:
		return d.heapP.Box
	case paneStack:
		return d.stackV.Box
	}
	return d.vmTable.Box
}

// --- actions -------------------------------------------------------------

func (d *Dashboard) quit() {
	if d.cancel != nil {
		d.cancel()
		return
	}
	d.app.Stop()
}

func (d *Dashboard) helpShown() bool {
	name, _ := d.pages.GetFrontPage()
	return name == "help"
}

func (d *Dashboard) toggleHelp() {
	if d.helpShown() {
		d.pages.HidePage("help")
		d.applyFocus()
		return
	}
	d.pages.ShowPage("help")
	d.app.SetFocus(d.helpV)
}

func (d *Dashboard) cycleFocus(dir int) {
	for i := 0; i < paneCount; i++ {
		d.focus = (d.focus + dir + paneCount) % paneCount
		if d.paneVisible(d.focus) {
			break
		}
	}
	d.applyFocus()
}

func (d *Dashboard) toggle(p int) {
	d.show[p] = !d.show[p]
	if p == paneHeap {
		d.updateSegments()
	}
	d.relayout()
	if d.show[p] {
		d.focus = p
		if !d.paneVisible(p) {
			d.focus = paneVMs
		}
		d.applyFocus()
	}
}

func (d *Dashboard) focusedTable() *tview.Table {
	switch d.focus {
	case paneVMs:
		return d.vmTable
	case paneThreads:
		return d.thTable
	}
	return nil
}

func (d *Dashboard) move(delta int) {
	switch d.focus {
	case paneHeap:
		d.heapP.Scroll(delta)
		return
	case paneStack:
		r, c := d.stackV.GetScrollOffset()
		d.stackV.ScrollTo(max(0, r+delta), c)
		return
	}
	t := d.focusedTable()
	n := t.GetRowCount() - 1
	if n <= 0 {
		return
	}
	r, _ := t.GetSelection()
	r = min(max(1, r+delta), n)
	t.Select(r, 0)
}

func (d *Dashboard) page(dir int) {
	_, _, _, h := d.panePrimitive(d.focus).GetRect()
	step := max(1, h-3)
	d.move(dir * step)
}

func (d *Dashboard) moveTo(row int) {
	t := d.focusedTable()
	if t == nil {
		if row == 0 {
			d.heapP.Scroll(-1 << 30)
		}
		return
	}
	n := t.GetRowCount() - 1
	if n <= 0 {
		return
	}
	if row < 0 {
		row = n
	} else {
		row = 1
	}
	t.Select(row, 0)
}

func (d *Dashboard) enter() {
	switch d.focus {
	case paneVMs:
		r, _ := d.vmTable.GetSelection()
		d.selectRow(r)
	case paneThreads:
		d.fetchStack()
	}
}

func (d *Dashboard) selectRow(row int) {
	if row < 1 || row-1 >= len(d.vmRowKeys) {
		return
	}
	key := d.vmRowKeys[row-1]
	if key != d.sel {
		d.sel = key
		d.onSelectionChanged()
	}
	d.renderVMs()
	d.renderThreads()
	d.renderHeap()
	d.renderStack()
	d.renderStatus()
	if d.show[paneThreads] {
		d.focus = paneThreads
		d.applyFocus()
	}
}

func (d *Dashboard) onSelectionChanged() {
	if d.cfg.OnSelect != nil && d.sel != "" {
		d.cfg.OnSelect(d.sel)
	}
	d.thTable.Select(1, 0)
	d.stackKey, d.stackFrames, d.stackErr = "", nil, nil
	d.heapP.Zoom(0)
	d.updateSegments()
}

// updateSegments asks the selected VM for the heap maps the heap pane
// shows (managed merged or objects, and native), while the pane is shown,
// and stops them for the VM that had them.
func (d *Dashboard) updateSegments() {
	want := ""
	var opts monitor.SegmentOptions
	if vm, ok := d.selectedVM(); ok && d.show[paneHeap] && vm.DDM {
		want = vm.Key
		opts = monitor.SegmentOptions{Managed: true, Objects: d.heapP.Objects(), Native: d.heapP.Native()}
	}
	if (want == d.segOn && opts == d.segOpts) || d.cfg.Controller == nil {
		return
	}
	old := d.segOn
	d.segOn, d.segOpts = want, opts
	ctrl := d.cfg.Controller
	ctx := d.ctxOrBackground()
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if old != "" && old != want {
			_ = ctrl.SetSegments(rctx, old, monitor.SegmentOptions{})
		}
		if want != "" {
			_ = ctrl.SetSegments(rctx, want, opts)
		}
	}()
}

func (d *Dashboard) ctxOrBackground() context.Context {
	if d.ctx != nil {
		return d.ctx
	}
	return context.Background()
}

func (d *Dashboard) gc() {
	vm, ok := d.selectedDDM("GC")
	if !ok {
		return
	}
	d.updateSegments()
	ctrl, key, ctx := d.cfg.Controller, vm.Key, d.ctxOrBackground()
	d.flash(fmt.Sprintf("GC requested in %s", vm.App))
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if err := ctrl.GC(rctx, key); err != nil {
			d.post(func() { d.flash("GC failed: " + err.Error()) })
		}
	}()
}

func (d *Dashboard) threadRowChanged(row int) {
	if d.show[paneStack] && d.focus == paneThreads {
		d.fetchStack()
	}
}

// fetchStack asks for the selected thread's stack, off the UI goroutine;
// only the newest answer is shown.
func (d *Dashboard) fetchStack() {
	row, _ := d.thTable.GetSelection()
	if row < 1 || row-1 >= len(d.thRowIDs) || d.cfg.Controller == nil {
		return
	}
	vm, ok := d.selectedVM()
	if !ok {
		return
	}
	tid := d.thRowIDs[row-1]
	if d.stackKey == vm.Key && d.stackTID == tid && (d.stackFrames != nil || d.stackErr == nil) && d.stackSeq > 0 {
		// Same thread: refresh anyway (stacks change), but keep showing the old one.
	} else {
		d.stackFrames, d.stackErr = nil, nil
	}
	d.stackKey, d.stackTID = vm.Key, tid
	d.stackSeq++
	seq := d.stackSeq
	d.renderStack()
	if !vm.DDM {
		return
	}
	ctrl, ctx := d.cfg.Controller, d.ctxOrBackground()
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		frames, err := ctrl.Stack(rctx, vm.Key, tid)
		d.post(func() {
			if seq != d.stackSeq {
				return
			}
			if err == nil && frames == nil {
				frames = []ddm.StackFrame{}
			}
			d.stackFrames, d.stackErr = frames, err
			d.renderStack()
		})
	}()
}

func (d *Dashboard) nextSort() {
	d.sortCol = (d.sortCol + 1) % len(threadColumns)
	d.renderThreads()
}

func (d *Dashboard) reverseSort() {
	d.sortDesc = !d.sortDesc
	d.renderThreads()
}

func (d *Dashboard) openPrompt() {
	if d.focus != paneVMs && d.focus != paneThreads {
		d.focus = paneThreads
		if !d.show[paneThreads] {
			d.focus = paneVMs
		}
	}
	d.promptTarget = d.focus
	cur := d.vmFilter
	if d.focus == paneThreads {
		cur = d.thFilter
	}
	d.prompt.SetLabel(fmt.Sprintf("filter %s: ", strings.ToLower(paneNames[d.focus])))
	d.prompt.SetText(cur)
	d.app.SetFocus(d.prompt)
	d.relayout()
}

func (d *Dashboard) setFilter(text string) {
	if d.app.GetFocus() != d.prompt {
		return
	}
	if d.promptTarget == paneThreads {
		d.thFilter = text
		d.renderThreads()
	} else {
		d.vmFilter = text
		d.renderVMs()
	}
}

func (d *Dashboard) promptDone(key tcell.Key) {
	if key == tcell.KeyEscape {
		d.prompt.SetText("")
		d.thFilterOrVM("")
	}
	d.app.SetFocus(d.panePrimitive(d.focus))
	d.relayout()
}

func (d *Dashboard) thFilterOrVM(text string) {
	if d.promptTarget == paneThreads {
		d.thFilter = text
		d.renderThreads()
	} else {
		d.vmFilter = text
		d.renderVMs()
	}
}

func (d *Dashboard) escape() {
	switch {
	case d.helpShown():
		d.toggleHelp()
	case d.focus == paneThreads && d.thFilter != "":
		d.thFilter = ""
		d.renderThreads()
	case d.vmFilter != "":
		d.vmFilter = ""
		d.renderVMs()
	}
}

// --- method profiling ----------------------------------------------------

func (d *Dashboard) toggleProfiling() {
	if d.cfg.Controller == nil {
		return
	}
	ctrl, ctx := d.cfg.Controller, d.ctxOrBackground()
	if d.profKey != "" {
		key, app := d.profKey, d.profApp
		d.profKey = ""
		d.flash(fmt.Sprintf("stopping the trace of %s…", app))
		go func() {
			rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			data, err := ctrl.StopProfiling(rctx, key, false)
			if err != nil {
				d.post(func() { d.flash("trace failed: " + err.Error()) })
				return
			}
			path, prof, err := saveTrace(d.cfg.TraceDir, app, data, d.now())
			d.post(func() {
				if err != nil {
					d.flash(err.Error())
					return
				}
				d.flash("saved " + path)
				d.profView.SetProfile(prof)
				d.pages.ShowPage("profile")
				d.app.SetFocus(d.profView)
			})
		}()
		return
	}
	vm, ok := d.selectedDDM("a method trace")
	if !ok {
		return
	}
	d.profKey, d.profApp = vm.Key, vm.App
	d.flash(fmt.Sprintf("tracing %s — press p again to stop", vm.App))
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := ctrl.StartProfiling(rctx, vm.Key, monitor.ProfileOptions{}); err != nil {
			d.post(func() {
				d.profKey = ""
				d.flash("cannot trace: " + err.Error())
			})
		}
	}()
}

func (d *Dashboard) askExit() {
	vm, ok := d.selectedDDM("EXIT")
	if !ok {
		return
	}
	d.flash(fmt.Sprintf("make %s (pid %d) exit? y: yes, any other key: no", vm.App, vm.PID))
	ctrl, ctx, key := d.cfg.Controller, d.ctxOrBackground(), vm.Key
	d.confirm = func() {
		d.flash(fmt.Sprintf("EXIT sent to %s", vm.App))
		go func() {
			rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			if err := ctrl.Exit(rctx, key, 1); err != nil {
				d.post(func() { d.flash("EXIT failed: " + err.Error()) })
			}
		}()
	}
}

func (d *Dashboard) nextScanMode() {
	if len(d.cfg.ScanModes) < 2 || d.cfg.SetScanMode == nil {
		d.flash("only one discovery mode")
		return
	}
	d.mode = (d.mode + 1) % len(d.cfg.ScanModes)
	d.cfg.Discovery = d.cfg.ScanModes[d.mode]
	d.flash("discovery: " + d.cfg.Discovery)
	set, i := d.cfg.SetScanMode, d.mode
	go set(i)
}

func (d *Dashboard) threadDump() {
	vm, ok := d.selectedVM()
	if !ok || d.cfg.Controller == nil {
		return
	}
	ctrl, ctx, key, pid, app := d.cfg.Controller, d.ctxOrBackground(), vm.Key, vm.PID, vm.App
	d.flash(fmt.Sprintf("asking %s for a thread dump…", app))
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		raw, err := ctrl.ThreadDump(rctx, key)
		var dump *threaddump.Dump
		if err == nil {
			dump, err = threaddump.Parse(bytes.NewReader(raw))
		}
		d.post(func() {
			if err != nil {
				d.flash("thread dump: " + err.Error())
				return
			}
			dump.KeepNewest(pid)
			d.dumpView.SetDump(dump)
			d.pages.ShowPage("dump")
			d.app.SetFocus(d.dumpView)
		})
	}()
}

// heapDump saves an HPROF dump of the selected VM, converted to standard
// HPROF, next to the traces; progress shows in the status line.
func (d *Dashboard) heapDump() {
	vm, ok := d.selectedDDM("heap dumps")
	if !ok {
		return
	}
	ctrl, ctx, key, app := d.cfg.Controller, d.ctxOrBackground(), vm.Key, vm.App
	d.flash(fmt.Sprintf("dumping the heap of %s…", app))
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		progress := func(n uint64) {
			d.post(func() { d.flash(fmt.Sprintf("heap dump of %s: %s received…", app, humanBytes(n))) })
		}
		data, err := ctrl.HeapDump(rctx, key, progress)
		var path string
		if err == nil {
			path, err = saveHPROF(d.cfg.TraceDir, app, data, d.now())
		}
		d.post(func() {
			if err != nil {
				d.flash("heap dump: " + err.Error())
				return
			}
			d.flash("saved " + path)
		})
	}()
}

// saveHPROF converts Android's HPROF to standard HPROF and writes it.
func saveHPROF(dir, app string, data []byte, now time.Time) (string, error) {
	if dir == "" {
		dir = "."
	}
	std, err := hprof.ToStandard(data)
	if err != nil {
		return "", fmt.Errorf("converting the dump: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.hprof", fileSafe(app), now.Format("20060102-150405")))
	if err := os.WriteFile(path, std, 0o644); err != nil {
		return "", fmt.Errorf("saving the dump: %w", err)
	}
	return path, nil
}

func (d *Dashboard) closeDump() {
	d.pages.HidePage("dump")
	d.applyFocus()
}

func (d *Dashboard) closeProfile() {
	d.pages.HidePage("profile")
	d.applyFocus()
}

// saveTrace writes a trace file named after the app and the time, and
// parses it for the profile view.
func saveTrace(dir, app string, data []byte, now time.Time) (string, *trace.Profile, error) {
	if dir == "" {
		dir = "."
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.trace", fileSafe(app), now.Format("20060102-150405")))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", nil, fmt.Errorf("saving the trace: %w", err)
	}
	prof, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{})
	if err != nil {
		return path, nil, fmt.Errorf("saved %s, but it does not parse: %w", path, err)
	}
	return path, prof, nil
}

// postUpdater lets background feeders (spyview.Follow) hand work to the UI
// goroutine through the dashboard's forwarder, which never blocks once the
// dashboard is shutting down.
type postUpdater struct{ d *Dashboard }

func (u postUpdater) QueueUpdateDraw(f func(), _ ...tview.Primitive) *tview.Application {
	u.d.post(f)
	return nil
}

// --- JDWP inspector and allocation tracker panes ------------------------

func (d *Dashboard) openSpy() {
	if d.cfg.Inspector == nil {
		d.flash("no debugger proxy runs")
		return
	}
	d.pages.ShowPage("spy")
	d.app.SetFocus(d.spyView)
}

func (d *Dashboard) openAllocs() {
	vm, ok := d.selectedDDM("the allocation tracker")
	if !ok {
		return
	}
	d.allocKey = vm.Key
	d.allocV.SetTable(nil)
	d.allocV.SetMessage(fmt.Sprintf("asking %s for its allocations…", vm.App))
	d.pages.ShowPage("allocs")
	d.app.SetFocus(d.allocV)
	d.refreshAllocs()
}

// refreshAllocs fetches REAQ and REAL off the UI goroutine.
func (d *Dashboard) refreshAllocs() {
	key := d.allocKey
	vm, ok := d.selectedVM()
	if key == "" || !ok {
		return
	}
	ctrl, ctx, family := d.cfg.Controller, d.ctxOrBackground(), vm.Family
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		on, terr := ctrl.AllocTracking(rctx, key)
		a, err := ctrl.Allocations(rctx, key)
		d.post(func() {
			if key != d.allocKey {
				return
			}
			if terr == nil {
				d.allocV.SetTracking(on)
			}
			if err != nil {
				d.allocV.SetMessage("allocations: " + err.Error())
				return
			}
			d.allocV.SetTable(allocs.New(a, allocs.OrderOfFamily(family)))
			if terr == nil && !on && len(a.Entries) == 0 {
				d.allocV.SetMessage("tracking is off: t turns it on, R refreshes")
			} else {
				d.allocV.SetMessage("")
			}
		})
	}()
}

func (d *Dashboard) trackAllocs(on bool) {
	key := d.allocKey
	if key == "" {
		return
	}
	ctrl, ctx := d.cfg.Controller, d.ctxOrBackground()
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		err := ctrl.SetAllocTracking(rctx, key, on)
		d.post(func() {
			if err != nil {
				d.allocV.SetMessage("tracking: " + err.Error())
				return
			}
			d.allocV.SetTracking(on)
		})
	}()
}

func (d *Dashboard) closeAllocs() {
	d.allocKey = ""
	d.pages.HidePage("allocs")
	d.applyFocus()
}

// fileSafe makes an app name usable as a file name.
func fileSafe(app string) string {
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, app)
	if name == "" || name == "." || name == ".." {
		name = "vm"
	}
	return name
}
