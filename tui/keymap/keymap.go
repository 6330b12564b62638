// Package keymap declares keyboard bindings once, with their descriptions, so
// that a view's key handling and its `?` help screen come from the same table
// and cannot drift apart.
package keymap

import (
	"strings"
	"sync"

	"github.com/gdamore/tcell/v2"
)

// Binding is one key and what it does.
type Binding struct {
	Key    tcell.Key // tcell.KeyRune for printable keys
	Rune   rune      // the rune when Key is tcell.KeyRune
	Mod    tcell.ModMask
	Label  string // how help shows the key, e.g. "j/↓"; derived when empty
	Help   string // what it does, one short line
	Group  string // section in the help screen
	Action func()
	Hidden bool // handled but not listed (an alias shown in another row's Label)
	// Name is the action's stable name ("quit", "gc", "toggle-heap"): what
	// help, the configuration's [keys] table and tests refer to, whatever key is
	// bound. Aliases carry the name of the action they stand for.
	Name string
	// Scope, when set, names where the binding acts instead of everywhere
	// (e.g. "log pane": only while that pane has the focus). Handle skips
	// scoped bindings; HandleScope runs one scope's. A key may mean one
	// thing in a scope and another outside it.
	Scope string
	// Commands are more names the `:` prompt knows the action by (e.g.
	// "hprof" for "heap-dump"); the stable name always works there.
	Commands []string
}

// As returns b with its stable action name set.
func (b Binding) As(name string) Binding { b.Name = name; return b }

// Also returns b known to the `:` prompt by more names as well.
func (b Binding) Also(cmds ...string) Binding {
	b.Commands = append(append([]string(nil), b.Commands...), cmds...)
	return b
}

// In returns b acting only in scope.
func (b Binding) In(scope string) Binding { b.Scope = scope; return b }

// Map is an ordered set of bindings.
type Map struct {
	bindings []Binding
	// eff caches the bindings with the configured rebinding applied (Use);
	// mu guards it (help may be read off the UI goroutine).
	mu     sync.Mutex
	eff    []Binding
	effGen int64
	effLen int
}

// New returns a map with the given bindings.
func New(b ...Binding) *Map { return &Map{bindings: append([]Binding(nil), b...)} }

// Add appends bindings.
func (m *Map) Add(b ...Binding) { m.bindings = append(m.bindings, b...) }

// Set replaces the map's bindings: a view whose keys are assembled from
// parts (a viewer frame and its pages) rebuilds its map in place, so whoever
// holds the *Map sees the change.
func (m *Map) Set(b ...Binding) {
	m.mu.Lock()
	m.bindings = append([]Binding(nil), b...)
	m.eff = nil
	m.mu.Unlock()
}

// Matches reports whether ev is one of the keys bound to the action name
// (as rebound by the configuration), in any scope.
func (m *Map) Matches(ev *tcell.EventKey, name string) bool {
	for _, b := range m.effective() {
		if b.Name == name && b.matches(ev) {
			return true
		}
	}
	return false
}

// Rune is shorthand for a printable-key binding.
func Rune(r rune, help string, action func()) Binding {
	return Binding{Key: tcell.KeyRune, Rune: r, Help: help, Action: action}
}

// Key is shorthand for a special-key binding.
func Key(k tcell.Key, help string, action func()) Binding {
	return Binding{Key: k, Help: help, Action: action}
}

// Bindings returns the map's bindings in declaration order, as rebound by
// the configuration (Use).
func (m *Map) Bindings() []Binding { return append([]Binding(nil), m.effective()...) }

// Lookup returns the first binding carrying the action name.
func (m *Map) Lookup(name string) (Binding, bool) {
	for _, b := range m.effective() {
		if b.Name == name {
			return b, true
		}
	}
	return Binding{}, false
}

// Names lists the distinct action names in declaration order.
func (m *Map) Names() []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range m.bindings {
		if b.Name != "" && !seen[b.Name] {
			seen[b.Name] = true
			out = append(out, b.Name)
		}
	}
	return out
}

// Handle runs the action bound to ev and reports whether one was found.
func (m *Map) Handle(ev *tcell.EventKey) bool { return m.HandleScope(ev, "") }

// HandleScope runs the binding of scope ("" for the unscoped ones) that
// matches ev, if any.
func (m *Map) HandleScope(ev *tcell.EventKey, scope string) bool {
	for _, b := range m.effective() {
		if b.Scope == scope && b.matches(ev) {
			if b.Action != nil {
				b.Action()
			}
			return true
		}
	}
	return false
}

func (b Binding) matches(ev *tcell.EventKey) bool {
	if b.Key == tcell.KeyRune {
		return ev.Key() == tcell.KeyRune && ev.Rune() == b.Rune && ev.Modifiers()&^tcell.ModShift == b.Mod
	}
	if ev.Key() != b.Key {
		return false
	}
	// Ctrl-letter keys arrive with ModCtrl set; compare only Alt and Shift.
	return ev.Modifiers()&(tcell.ModAlt|tcell.ModShift) == b.Mod&(tcell.ModAlt|tcell.ModShift)
}

// LabelOf returns how a binding's key is written in help.
func LabelOf(b Binding) string {
	if b.Label != "" {
		return b.Label
	}
	var s string
	if b.Key == tcell.KeyRune {
		s = string(b.Rune)
		if b.Rune == ' ' {
			s = "Space"
		}
	} else {
		s = tcell.KeyNames[b.Key]
		if s == "" {
			s = "?"
		}
	}
	if b.Mod&tcell.ModAlt != 0 {
		s = "Alt-" + s
	}
	return s
}

// HelpRow is one line of the help screen.
type HelpRow struct{ Group, Keys, Help string }

// Help lists the visible bindings in declaration order, each row once: the
// same key with the same help in the same group, bound in several scopes
// (Tab to the detail pane of each table that has one), is one line.
func (m *Map) Help() []HelpRow {
	bs := m.effective()
	rows := make([]HelpRow, 0, len(bs))
	seen := make(map[HelpRow]bool, len(bs))
	for _, b := range bs {
		if b.Hidden || b.Help == "" {
			continue
		}
		r := HelpRow{Group: b.Group, Keys: LabelOf(b), Help: b.Help}
		if seen[r] {
			continue
		}
		seen[r] = true
		rows = append(rows, r)
	}
	return rows
}

// HelpText renders Help as aligned plain text, one section per group
// (a group's rows together, in the order groups first appear).
func (m *Map) HelpText() string {
	return strings.Join(m.HelpSections(), "\n")
}

// HelpSections renders Help as aligned plain text blocks, one per group in
// the order groups first appear, each ending in a newline: a view can lay
// them out in columns.
func (m *Map) HelpSections() []string {
	rows := m.Help()
	w := 0
	var order []string
	byGroup := map[string][]HelpRow{}
	for _, r := range rows {
		if n := len([]rune(r.Keys)); n > w {
			w = n
		}
		if _, ok := byGroup[r.Group]; !ok {
			order = append(order, r.Group)
		}
		byGroup[r.Group] = append(byGroup[r.Group], r)
	}
	out := make([]string, 0, len(order))
	for _, g := range order {
		var sb strings.Builder
		if g != "" {
			sb.WriteString(g + "\n")
		}
		for _, r := range byGroup[g] {
			sb.WriteString("  " + r.Keys + strings.Repeat(" ", w-len([]rune(r.Keys))) + "  " + r.Help + "\n")
		}
		out = append(out, sb.String())
	}
	return out
}

// Bind declares a binding listed in help.
func Bind(k tcell.Key, r rune, label, help, group string, action func()) Binding {
	return Binding{Key: k, Rune: r, Label: label, Help: help, Group: group, Action: action}
}

// Alias declares a binding left out of help: another row's Label names it.
func Alias(k tcell.Key, r rune, action func()) Binding {
	return Binding{Key: k, Rune: r, Hidden: true, Action: action}
}

// MoveKeys is the movement set the viewers share: j/↓ and k/↑ move by one,
// PgDn/Ctrl-F and PgUp/Ctrl-B by page(), and g/Home and G/End (or Home and
// End alone, when a view uses g itself) jump to the ends. item names what
// moves in help: "next "+item.
func MoveKeys(group, item string, vimJumps bool, move func(int), page func() int) []Binding {
	down, up := func() { move(1) }, func() { move(-1) }
	pgDown, pgUp := func() { move(page()) }, func() { move(-page()) }
	first, last := func() { move(-1 << 30) }, func() { move(1 << 30) }
	b := []Binding{
		Bind(tcell.KeyRune, 'j', "j/↓", "next "+item, group, down).As("down"), Alias(tcell.KeyDown, 0, down).As("down"),
		Bind(tcell.KeyRune, 'k', "k/↑", "previous "+item, group, up).As("up"), Alias(tcell.KeyUp, 0, up).As("up"),
		Bind(tcell.KeyPgDn, 0, "PgDn/Ctrl-F", "next page", group, pgDown).As("page-down"), Alias(tcell.KeyCtrlF, 0, pgDown).As("page-down"),
		Bind(tcell.KeyPgUp, 0, "PgUp/Ctrl-B", "previous page", group, pgUp).As("page-up"), Alias(tcell.KeyCtrlB, 0, pgUp).As("page-up"),
	}
	if vimJumps {
		return append(b,
			Bind(tcell.KeyRune, 'g', "g/Home", "first "+item, group, first).As("first"), Alias(tcell.KeyHome, 0, first).As("first"),
			Bind(tcell.KeyRune, 'G', "G/End", "last "+item, group, last).As("last"), Alias(tcell.KeyEnd, 0, last).As("last"))
	}
	return append(b,
		Bind(tcell.KeyHome, 0, "Home", "first "+item, group, first).As("first"),
		Bind(tcell.KeyEnd, 0, "End", "last "+item, group, last).As("last"))
}
