package tui

import (
	"github.com/rivo/tview"
)

// Layout thresholds. Wide: the VM list and threads side by side, heap and
// stack side by side below. Otherwise one column: VM list, threads, and one
// lower pane — the heap or the stack, whichever was asked for last (Tab,
// s, Enter on a thread) — so every pane is reachable at 80x24.
const (
	wideWidth  = 110
	tallHeight = 30
)

func (d *Dashboard) wide() bool { return d.width == 0 || d.width >= wideWidth }

func (d *Dashboard) relayout() {
	w, h := d.width, d.height
	if w == 0 {
		w, h = 120, 40
	}
	d.layout.Clear()
	d.ov.fit(w, h)
	d.fitted = [2]int{d.vmsP.contentWidth(), len(d.m.vms)} // what this layout is made for
	body := tview.NewFlex().SetDirection(tview.FlexRow)
	if d.wide() {
		top := tview.NewFlex()
		if d.show[paneThreads] {
			top.AddItem(d.vmsP.table, d.vmPaneWidth(w), 0, false)
			top.AddItem(d.threadsP.table, 0, 1, false)
		} else {
			top.AddItem(d.vmsP.table, 0, 1, false)
		}
		bottom := tview.NewFlex()
		if d.show[paneHeap] {
			bottom.AddItem(d.heapP.view, 0, 2, false)
		}
		if d.show[paneStack] {
			bottom.AddItem(d.stackP.view, 0, 1, false)
		}
		body.AddItem(top, 0, 1, false)
		if d.show[paneHeap] || d.show[paneStack] {
			body.AddItem(bottom, 0, 1, false)
		}
		if d.show[paneLog] {
			body.AddItem(d.logP.box, 0, 1, false)
		}
	} else {
		lower := d.lowerPane()
		if !d.show[paneThreads] && lower < 0 {
			body.AddItem(d.vmsP.table, 0, 1, false)
		} else {
			// Header, borders and up to 3 (short terminal) or 5 VMs; the
			// list scrolls to keep the selected VM in view.
			rows := min(len(d.m.vms), 5)
			if h < tallHeight {
				rows = min(len(d.m.vms), 3)
			}
			body.AddItem(d.vmsP.table, max(rows, 1)+3, 0, false)
		}
		if d.show[paneThreads] {
			body.AddItem(d.threadsP.table, 0, 2, false)
		}
		if lower >= 0 {
			body.AddItem(d.panes[lower].Widget(), 0, 2, false)
		}
	}
	d.layout.AddItem(body, 0, 1, false)
	if d.ov.prompting() {
		d.layout.AddItem(d.ov.bar, 1, 0, true)
	} else {
		d.layout.AddItem(d.statusP.view, 1, 0, false)
	}
	if !d.paneVisible(d.focus) {
		d.focus = paneVMs
	}
	d.applyFocus()
}

// lowerPane is the pane below the threads in the small layout (-1: none).
func (d *Dashboard) lowerPane() int {
	if d.show[d.lower] {
		return d.lower
	}
	for _, p := range []int{paneHeap, paneStack, paneLog} {
		if d.show[p] {
			return p
		}
	}
	return -1
}

// isLower says whether p takes the small layout's lower slot (heap, stack,
// log).
func isLower(p int) bool { return p == paneHeap || p == paneStack || p == paneLog }

// vmPaneWidth allots the VM list the width its columns need, within a
// third and a half of the screen; the threads take the rest.
func (d *Dashboard) vmPaneWidth(w int) int {
	return max(min(d.vmsP.contentWidth(), w/2), min(w/3, d.vmsP.contentWidth()), 30)
}

// fitVMPane re-lays out when the VM list's size by content changed.
func (d *Dashboard) fitVMPane() {
	fit := [2]int{d.vmsP.contentWidth(), len(d.m.vms)}
	if fit != d.fitted {
		d.fitted = fit
		d.relayout()
	}
}

func (d *Dashboard) paneVisible(p int) bool {
	switch {
	case p == paneVMs:
		return true
	case !d.show[p]:
		return false
	case d.wide() || p == paneThreads:
		return true
	}
	return d.lowerPane() == p
}

func (d *Dashboard) applyFocus() {
	if d.ov.prompting() {
		return
	}
	if d.ov.front() {
		return // an overlay (help, a viewer) keeps the focus
	}
	for i, p := range d.panes {
		box := p.Frame()
		if i == d.focus {
			box.SetBorderColor(d.pal.Accent())
			box.SetTitleColor(d.pal.Accent())
		} else {
			box.SetBorderColor(tview.Styles.BorderColor)
			box.SetTitleColor(tview.Styles.TitleColor)
		}
	}
	d.app.SetFocus(d.panes[d.focus].Widget())
}

// setFocus focuses pane p, bringing it into the small layout's lower slot
// when it lives there.
func (d *Dashboard) setFocus(p int) {
	d.focus = p
	if isLower(p) && !d.wide() && d.lower != p {
		d.lower = p
		d.relayout()
		return
	}
	d.applyFocus()
}

// cycleFocus moves the focus through the shown panes; in the small layout
// Tab reaches the heap and the stack in turn (each replacing the other).
func (d *Dashboard) cycleFocus(dir int) {
	f := d.focus
	for i := 0; i < paneCount; i++ {
		f = (f + dir + paneCount) % paneCount
		if d.show[f] {
			break
		}
	}
	d.setFocus(f)
}

// toggle shows or hides a pane; a pane shown gets the focus.
func (d *Dashboard) toggle(p int) {
	small := !d.wide() && isLower(p)
	if small && d.show[p] && d.lowerPane() != p {
		d.lower = p // shown but hidden by the other: bring it up instead of hiding it
	} else {
		d.show[p] = !d.show[p]
		if d.show[p] && small {
			d.lower = p
		}
	}
	if p == paneHeap {
		d.heapP.updateSegments()
	}
	d.relayout()
	if p == paneLog {
		d.logP.Update(ChangeAll)
	}
	if d.show[p] {
		d.setFocus(p)
	}
}

// showStack shows the stack of the thread under the cursor.
func (d *Dashboard) showStack() {
	if !d.show[paneStack] {
		d.show[paneStack] = true
	}
	if !d.wide() && d.lower != paneStack {
		d.lower = paneStack
		d.relayout()
	}
	d.stackP.fetch()
}

func (d *Dashboard) move(delta int) {
	if s, ok := d.panes[d.focus].(Scroller); ok {
		s.Move(delta)
	}
}

func (d *Dashboard) page(dir int) {
	if s, ok := d.panes[d.focus].(Scroller); ok {
		s.Move(dir * s.PageSize())
	}
}

func (d *Dashboard) activate() {
	if a, ok := d.panes[d.focus].(Activator); ok {
		a.Activate()
	}
}

// escape clears the focused pane's filter, or else the VM list's.
func (d *Dashboard) escape() {
	if f, ok := d.panes[d.focus].(Filterable); ok && f.Filter() != "" {
		f.SetFilter("")
		return
	}
	if d.vmsP.filter != "" {
		d.vmsP.SetFilter("")
		d.fitVMPane() // the list's width by content
	}
}

// The Dashboard is the panes' navigator (paneEnv.nav) and the overlays'
// shell: the few methods below, with selectVM, setFocus, toggle,
// fitVMPane, showStack and threadCopy, are all that panes and overlays
// ask of it.

// shown reports whether pane p is shown.
func (d *Dashboard) shown(p int) bool { return d.show[p] }

// focused reports whether pane p has the focus.
func (d *Dashboard) focused(p int) bool { return d.focus == p }

// threadMoved: the stack follows the thread table's cursor while it shows
// and the thread table has the focus.
func (d *Dashboard) threadMoved() {
	if d.show[paneStack] && d.focus == paneThreads {
		d.stackP.fetch()
	}
}

// selectedThread is the thread under the thread table's cursor.
func (d *Dashboard) selectedThread() (uint64, bool) { return d.threadsP.selected() }

// size is the screen's size (0, 0 before the first draw).
func (d *Dashboard) size() (w, h int) { return d.width, d.height }

// focusOn gives the keyboard focus to an overlay's widget.
func (d *Dashboard) focusOn(p tview.Primitive) { d.app.SetFocus(p) }

// filterTarget is the pane the / prompt filters: the focused one, else
// the thread table (the VM list when the threads are hidden), which then
// takes the focus.
func (d *Dashboard) filterTarget() (Filterable, string) {
	f, ok := d.panes[d.focus].(Filterable)
	if !ok {
		d.focus = paneVMs
		if d.show[paneThreads] {
			d.focus = paneThreads
		}
		f = d.panes[d.focus].(Filterable)
	}
	return f, d.panes[d.focus].Title()
}
