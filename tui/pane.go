package tui

import (
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/internal/textfilter"
	"github.com/ddmtui/ddmtui/tui/keymap"
)

// Pane is one component of the dashboard: the VM list, the threads, the
// heap (with the process-memory view inside it), the stack, the log and
// the status line are panes. A pane owns its widget, renders it from the
// dashboard's model, declares its keys (which join the dashboard's key
// table, so help is generated from them) and runs its actions. The
// Dashboard only lays panes out, moves the focus between them, pumps
// events and routes keys.
//
// A pane is built with a paneEnv (env.go), never with the Dashboard: the
// model and the configuration to read, the palette, the key table, the
// clock, a status sink for its messages, the owned jobs it works with,
// and a navigator for the few cross-pane actions (select a VM, focus,
// show or hide a pane, show the stack). So a pane can be built and drawn
// alone with a fake env (panes_test.go).
//
// To add a pane: implement Pane (and Scroller, Activator or Filterable as
// it needs) with a constructor taking a paneEnv, give it a slot in
// Dashboard.relayout, and list it in Dashboard.build and Dashboard.panes.
// Its key bindings carry stable action names (keymap.Binding.As) so they
// can be rebound.
type Pane interface {
	// Name is the pane's stable name ("vms", "threads", "heap", "stack", "log",
	// "status"): focus, toggles and tests refer to it.
	Name() string
	// Title is what help and prompts call it ("VM list", "Threads").
	Title() string
	// Widget is what the layout places and the focus goes to.
	Widget() tview.Primitive
	// Frame is the bordered box highlighted when the pane has the focus
	// (nil for panes that never take it).
	Frame() *tview.Box
	// Keys are the bindings the pane contributes to the dashboard's table.
	// They work whichever pane has the focus (an action may look at the
	// focus itself).
	Keys() []keymap.Binding
	// Update redraws the pane after the model changed; c says what did.
	Update(c Change)
}

// Scroller is a pane that takes the shared movement keys (j/k, pages,
// Home/End) while it has the focus. delta is in rows; ±1<<30 means the
// ends.
type Scroller interface {
	Move(delta int)
	PageSize() int
}

// Activator is a pane that does something with Enter while focused.
type Activator interface{ Activate() }

// Filterable is a pane that the / prompt filters while focused.
type Filterable interface {
	Filter() string
	SetFilter(string)
}

// Focus order (Tab) of the panes that can take the focus.
const (
	paneVMs = iota
	paneThreads
	paneHeap
	paneStack
	paneLog
	paneCount
)

// matchFilter applies a pane's filter (textfilter: case-insensitive
// substring, a leading '!' inverts) to a row's fields.
func matchFilter(filter string, fields ...string) bool { return textfilter.Match(filter, fields...) }
