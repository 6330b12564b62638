package tui

import (
	"time"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// paneEnv is what a pane is given when it is built, in place of the
// Dashboard: what it reads (the model, the palette, the configuration, the
// key table, the clock), where its messages go (status), how it works off
// the UI goroutine (work) and the few things it asks of the rest of the
// dashboard (nav, views). No pane holds the Dashboard (env_test.go checks
// it), so a pane can be built and drawn alone with a fake env
// (panes_test.go).
type paneEnv struct {
	// m is the dashboard's copy of the store. Panes only read it; the
	// Dashboard folds events into it and moves the selection (nav.selectVM).
	m *model
	// pal is the palette (NO_COLOR answers no colour for every role).
	pal style.Palette
	// cfg is the dashboard's configuration; panes only read it.
	cfg *Config
	// keys is the key table in effect (built after the panes, so a func):
	// messages name the key an action is bound to now.
	keys func() *keymap.Map
	// now is the clock (tests set the dashboard's).
	now func() time.Time
	// status takes the messages for the status line.
	status statusSink
	// work owns the goroutines a pane starts and hands their results to
	// the UI goroutine.
	work *jobs
	// nav is the dashboard's side of the cross-pane actions.
	nav navigator
	// views opens the full-screen viewers (the overlays).
	views viewers
}

// statusSink is where messages go: the status line (statusLine).
type statusSink interface {
	// flash shows a message for a few seconds and keeps it in the
	// message history (M).
	flash(msg string)
	// show shows a progress line that replaces itself, kept out of the
	// history.
	show(msg string)
}

// navigator is what a pane asks of the dashboard beyond its own widget:
// the selection, the focus and the layout, and the little that one pane
// needs of another (the stack follows the thread table's cursor; a copied
// thread carries the stack pane's frames). The Dashboard implements it.
type navigator interface {
	// selectVM makes key the selected VM (the user chose it).
	selectVM(key string)
	// shown reports whether pane (paneVMs…) is shown.
	shown(pane int) bool
	// focused reports whether pane has the focus.
	focused(pane int) bool
	// setFocus focuses pane, bringing it into the small layout's lower slot.
	setFocus(pane int)
	// toggle shows or hides pane; a pane shown gets the focus.
	toggle(pane int)
	// fitVMPane re-lays out when the VM list's width by content changed.
	fitVMPane()
	// showStack shows the stack of the thread under the thread table's cursor.
	showStack()
	// threadMoved says the thread table's cursor moved (the stack follows).
	threadMoved()
	// selectedThread is the thread under the thread table's cursor.
	selectedThread() (uint64, bool)
	// threadCopy is a thread's name line and, when the stack pane holds
	// its stack, the stack (the copy key).
	threadCopy(key string, tid uint64) (what, text string)
	// confirm runs yes if the next key is y (the question is on the
	// status line already).
	confirm(yes func())
	// choose runs the choice named by the next key; any other key
	// cancels (the question is on the status line already).
	choose(choices map[rune]func())
}

// viewers opens the full-screen views the VM actions lead to. The
// overlays implement it.
type viewers interface {
	openAllocs()
	openViews()
	openSpy()
	showProfile(p *trace.Profile, path string)
	showDump(d *threaddump.Dump)
	// heapSaved opens the heap viewer on a dump saved for app.
	heapSaved(app, path string)
}

func (e paneEnv) flash(msg string) { e.status.flash(msg) }

// keyHint names the key bound to action now.
func (e paneEnv) keyHint(action string) string {
	var m *keymap.Map
	if e.keys != nil {
		m = e.keys()
	}
	return keyHint(m, action)
}

// portError says why a VM has no debugger port ("" when it has one or
// nobody said).
func (e paneEnv) portError(key string) string {
	if e.cfg.PortError == nil {
		return ""
	}
	return e.cfg.PortError(key)
}

// selectedDDM returns the selected VM when requests can be made of it (a
// controller exists and the VM speaks DDM); otherwise it says why in the
// status line. what names the action, e.g. "GC".
func (e paneEnv) selectedDDM(what string) (monitor.VM, bool) {
	vm, ok := e.m.selected()
	if !ok || e.cfg.Controller == nil {
		return vm, false
	}
	if e.m.isGone(vm.Key) {
		e.flash(what + ": the VM's session ended; waiting for it to return")
		return vm, false
	}
	if !vm.DDM {
		e.flash(notDDMWhy(what, vm))
		return vm, false
	}
	return vm, true
}

// notDDMWhy says why what cannot be done on a VM that speaks no DDM: a
// profileable release app has no JDWP at all; any other is a plain JDWP
// VM (a JVM, or a VM that refused HELO). Short enough for 80 columns.
func notDDMWhy(what string, vm monitor.VM) string {
	if vm.ProcessOnly() {
		return what + ": a profileable app without JDWP has no DDM"
	}
	return what + " needs a VM that speaks DDM (this one is a plain JDWP VM)"
}

// unable reports whether vm was decided unable to do f, saying why on the
// status line ("no <what>: <reason>") instead of opening an empty viewer.
func (e paneEnv) unable(vm monitor.VM, f monitor.Feature, what string) bool {
	c, has := vm.Capabilities[f]
	if !has || c.Source != monitor.SourceNone {
		return false
	}
	why := c.Reason
	if why == "" {
		why = "not available for this VM"
	}
	e.flash("no " + what + ": " + why)
	return true
}
