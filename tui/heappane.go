package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// heapPane is the selected VM's heap: the HPIF summary, the segment bitmap
// (managed or native, merged runs or object boundaries) and the
// object-size histogram. While it shows it asks the selected VM for the
// heap maps it draws, and stops them for the VM that had them.
type heapPane struct {
	env     paneEnv
	view    *heapMap
	segOn   string                 // VM whose segments were requested
	segOpts monitor.SegmentOptions // what was requested of it
	noLive  bool                   // a replayed VM said it takes no requests: said once
}

func newHeapPane(env paneEnv) *heapPane {
	p := &heapPane{env: env, view: newHeapMap(env.pal, env.work.post)}
	p.view.spawn = env.work.spawn
	return p
}

func (p *heapPane) Name() string            { return "heap" }
func (p *heapPane) Title() string           { return "heap" }
func (p *heapPane) Widget() tview.Primitive { return p.view }
func (p *heapPane) Frame() *tview.Box       { return p.view.Box }

func (p *heapPane) Keys() []keymap.Binding {
	const hp = "Heap"
	b := keymap.Bind
	v := p.view
	return []keymap.Binding{
		b(tcell.KeyRune, 'h', "h", "show or hide the heap pane", "Panes", func() { p.env.nav.toggle(paneHeap) }).As("toggle-heap"),
		b(tcell.KeyRune, 'g', "g", "cause a GC in the selected VM", hp, p.gc).As("gc"),
		b(tcell.KeyRune, 'c', "c", "colour the heap by kind / by solidity", hp, func() { v.ToggleColouring() }).As("heap-colouring"),
		b(tcell.KeyRune, '+', "+ / -", "zoom the heap bitmap in / out", hp, func() { v.Zoom(1) }).As("zoom-in"),
		keymap.Alias(tcell.KeyRune, '=', func() { v.Zoom(1) }).As("zoom-in"),
		keymap.Alias(tcell.KeyRune, '-', func() { v.Zoom(-1) }).As("zoom-out"),
		b(tcell.KeyRune, '0', "0", "fit the whole heap", hp, func() { v.Zoom(0) }).As("zoom-fit"),
		b(tcell.KeyRune, 'n', "n", "managed / native heap", hp, func() { v.ToggleNative(); p.updateSegments() }).As("heap-native"),
		b(tcell.KeyRune, 'b', "b", "object boundaries (HPSO) / merged runs (HPSG)", hp, func() { v.ToggleObjects(); p.updateSegments() }).As("heap-objects"),
		b(tcell.KeyRune, 'i', "i", "object-size histogram / bitmap", hp, func() { v.ToggleHistogram(); p.updateSegments() }).As("heap-histogram"),
	}
}

func (p *heapPane) Update(c Change) {
	if c&(ChangeHeap|ChangeSelection|ChangeVMs) != 0 {
		p.render()
	}
	if c&ChangeVMs != 0 {
		// The selected VM may have become a DDM VM (HELO answered after it
		// was listed and selected), or a request failed: ask again.
		p.updateSegments()
	}
}

// Move scrolls the bitmap by rows; the ends go to the first and last row.
func (p *heapPane) Move(delta int) { p.view.Scroll(delta) }

func (p *heapPane) PageSize() int { return p.view.mapRows() }

func (p *heapPane) selectionChanged() {
	p.view.Zoom(0)
	p.updateSegments()
}

func (p *heapPane) render() {
	m, v := p.env.m, p.view
	vm, ok := m.selected()
	if !ok {
		v.SetHeaps(nil)
		v.SetSnapshot(nil)
		v.SetTitle(" Heap ")
		return
	}
	v.SetHeaps(m.heaps[m.sel])
	v.SetSnapshot(m.snaps[m.sel])
	v.SetNativeSnapshot(m.native[m.sel])
	v.SetMemory(nil)
	if _, none := capNone(vm, monitor.FeatMemory); vm.Memory != nil && !none {
		v.SetMemory(vm.Memory)
	}
	mapWhy, _ := capNone(vm, monitor.FeatHeapMap)
	v.SetMapReason(mapWhy)
	v.SetTitle(heapTitle(vm, len(m.heaps[m.sel]) > 0, v.mem != nil))
	switch {
	case vm.ProcessOnly() && !vm.DDM:
		v.SetWaiting(monitor.NoJDWPReason + "; g, b, n and i need DDM")
	case !vm.DDM:
		v.SetWaiting("a plain JDWP VM: it reports no heap (HPIF/HPSG are DDM); g, b, n and i need DDM")
	case m.isGone(vm.Key):
		v.SetWaiting("the VM's session ended; waiting for it to return")
	case len(m.heaps[m.sel]) == 0 && v.mem == nil:
		v.SetWaiting(noSummaryWhy(vm))
	default:
		v.SetWaiting("")
	}
	v.ddm = vm.DDM
}

// heapTitle names the VM and the sources of what the pane shows.
func heapTitle(vm monitor.VM, hpif, mem bool) string {
	title := " Heap · " + style.Escape(truncate(appLabel(vm), 40)) + " "
	var srcs []string
	if hpif && vm.Capabilities.Source(monitor.FeatHeapSummary) == monitor.SourceDDM {
		srcs = append(srcs, "DDM")
	}
	if mem {
		srcs = append(srcs, sourceLabel(monitor.SourceDumpsys))
	}
	if len(srcs) > 0 {
		title += "· " + strings.Join(srcs, " + ") + " "
	}
	return title
}

// noSummaryWhy says why a DDM VM shows no heap summary yet: its
// capability's reason, the memory's, or "" (HPIF is still to come).
func noSummaryWhy(vm monitor.VM) string {
	why, none := capNone(vm, monitor.FeatHeapSummary)
	if !none {
		if vm.Capabilities.Source(monitor.FeatHeapSummary) == monitor.SourceDumpsys {
			return "reading the process memory (dumpsys meminfo)…"
		}
		return ""
	}
	if mwhy, mnone := capNone(vm, monitor.FeatMemory); mnone {
		why += "; process memory: " + mwhy
	}
	return why
}

// updateSegments asks the selected VM for the heap maps the pane shows
// (managed merged or objects, and native), while the pane is shown, and
// stops them for the VM that had them.
func (p *heapPane) updateSegments() {
	e := p.env
	want := ""
	var opts monitor.SegmentOptions
	if vm, ok := e.m.selected(); ok && e.nav.shown(paneHeap) && vm.DDM {
		want = vm.Key
		opts = monitor.SegmentOptions{Managed: true, Objects: p.view.Objects(), Native: p.view.Native()}
	}
	if (want == p.segOn && opts == p.segOpts) || e.cfg.Controller == nil {
		return
	}
	old := p.segOn
	p.segOn, p.segOpts = want, opts
	if p.noLive {
		return // a replay: nothing to ask
	}
	ctrl := e.cfg.Controller
	app := ""
	if vm, ok := e.m.selected(); ok {
		app = appLabel(vm)
	}
	// The latest wish replaces one still under way (the selection moved
	// on); the stop for the VM that had them goes first.
	e.work.job("segments", jobReplace, 3*time.Second, func(ctx context.Context) {
		if old != "" && old != want {
			// A VM that is gone has nothing to stop: not worth a message.
			if err := ctrl.VM(old).SetSegmentOptions(ctx, monitor.SegmentOptions{}); err != nil && !e.work.cancelled(err) && !errors.Is(err, errNoSession) && !errors.Is(err, monitor.ErrNoLiveVM) {
				e.work.post(func() { e.flash("heap map: stopping the previous VM's: " + err.Error()) })
			}
		}
		if want == "" {
			return
		}
		if err := ctrl.VM(want).SetSegmentOptions(ctx, opts); err != nil && !e.work.cancelled(err) {
			e.work.post(func() {
				if errors.Is(err, monitor.ErrNoLiveVM) {
					// A replay: no VM will ever take the request, so it
					// is not asked again, and that is said once.
					if !p.noLive {
						p.noLive = true
						e.flash("replay: heap maps are only what was recorded; no requests are sent")
					}
					return
				}
				if p.segOn == want && p.segOpts == opts {
					p.segOn = "" // asked again at the next change (e.g. the VM's session is ready)
				}
				e.flash(fmt.Sprintf("heap map of %s not requested: %v", app, err))
			})
		}
	})
}

func (p *heapPane) gc() {
	e := p.env
	if vm, ok := e.m.selected(); ok && e.unable(vm, monitor.FeatGC, "GC") {
		return
	}
	vm, ok := e.selectedDDM("GC")
	if !ok {
		return
	}
	p.updateSegments()
	ctrl := e.cfg.Controller
	started := e.work.job("gc:"+vm.Key, jobBusy, 3*time.Second, func(ctx context.Context) {
		if err := ctrl.VM(vm.Key).GC(ctx); err != nil && !e.work.cancelled(err) {
			e.work.post(func() { e.flash("GC failed: " + err.Error()) })
		}
	})
	if !started {
		e.flash(fmt.Sprintf("busy: a GC of %s is still under way", appLabel(vm)))
		return
	}
	e.flash(fmt.Sprintf("GC requested in %s", appLabel(vm)))
}
