// Package keymap declares keyboard bindings once, with their descriptions, so
// that a view's key handling and its `?` help screen come from the same table
// and cannot drift apart.
package keymap

import (
	"strings"

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
}

// Map is an ordered set of bindings.
type Map struct {
	bindings []Binding
}

// New returns a map with the given bindings.
func New(b ...Binding) *Map { return &Map{bindings: append([]Binding(nil), b...)} }

// Add appends bindings.
func (m *Map) Add(b ...Binding) { m.bindings = append(m.bindings, b...) }

// Rune is shorthand for a printable-key binding.
func Rune(r rune, help string, action func()) Binding {
	return Binding{Key: tcell.KeyRune, Rune: r, Help: help, Action: action}
}

// Key is shorthand for a special-key binding.
func Key(k tcell.Key, help string, action func()) Binding {
	return Binding{Key: k, Help: help, Action: action}
}

// Handle runs the action bound to ev and reports whether one was found.
func (m *Map) Handle(ev *tcell.EventKey) bool {
	for _, b := range m.bindings {
		if b.matches(ev) {
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

// Help lists the visible bindings in declaration order.
func (m *Map) Help() []HelpRow {
	rows := make([]HelpRow, 0, len(m.bindings))
	for _, b := range m.bindings {
		if b.Hidden || b.Help == "" {
			continue
		}
		rows = append(rows, HelpRow{Group: b.Group, Keys: LabelOf(b), Help: b.Help})
	}
	return rows
}

// HelpText renders Help as aligned plain text, grouped.
func (m *Map) HelpText() string {
	rows := m.Help()
	w := 0
	for _, r := range rows {
		if n := len([]rune(r.Keys)); n > w {
			w = n
		}
	}
	var sb strings.Builder
	group := "\x00"
	for _, r := range rows {
		if r.Group != group {
			if group != "\x00" {
				sb.WriteByte('\n')
			}
			group = r.Group
			if group != "" {
				sb.WriteString(group + "\n")
			}
		}
		sb.WriteString("  " + r.Keys + strings.Repeat(" ", w-len([]rune(r.Keys))) + "  " + r.Help + "\n")
	}
	return sb.String()
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
		Bind(tcell.KeyRune, 'j', "j/↓", "next "+item, group, down), Alias(tcell.KeyDown, 0, down),
		Bind(tcell.KeyRune, 'k', "k/↑", "previous "+item, group, up), Alias(tcell.KeyUp, 0, up),
		Bind(tcell.KeyPgDn, 0, "PgDn/Ctrl-F", "next page", group, pgDown), Alias(tcell.KeyCtrlF, 0, pgDown),
		Bind(tcell.KeyPgUp, 0, "PgUp/Ctrl-B", "previous page", group, pgUp), Alias(tcell.KeyCtrlB, 0, pgUp),
	}
	if vimJumps {
		return append(b,
			Bind(tcell.KeyRune, 'g', "g/Home", "first "+item, group, first), Alias(tcell.KeyHome, 0, first),
			Bind(tcell.KeyRune, 'G', "G/End", "last "+item, group, last), Alias(tcell.KeyEnd, 0, last))
	}
	return append(b,
		Bind(tcell.KeyHome, 0, "Home", "first "+item, group, first),
		Bind(tcell.KeyEnd, 0, "End", "last "+item, group, last))
}
