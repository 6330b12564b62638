package tui

import (
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// keyHint is the first key bound to an action, as the status line names
// it: the key in effect, whatever the configuration rebound it to.
func keyHint(keys *keymap.Map, action string) string {
	if keys == nil {
		return "?"
	}
	b, ok := keys.Lookup(action)
	if !ok {
		return "?"
	}
	return style.Escape(keymap.LabelOf(keymap.Binding{Key: b.Key, Rune: b.Rune, Mod: b.Mod}))
}
