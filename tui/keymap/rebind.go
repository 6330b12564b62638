package keymap

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// Chord is one key as a configuration names it: a tcell key, or a rune
// (Key == tcell.KeyRune), with Alt when the name starts with "Alt-".
type Chord struct {
	Key  tcell.Key
	Rune rune
	Mod  tcell.ModMask
	Name string // as written in the configuration
}

var keyByName = func() map[string]tcell.Key {
	m := make(map[string]tcell.Key, len(tcell.KeyNames))
	for k, n := range tcell.KeyNames {
		m[strings.ToLower(n)] = k
	}
	return m
}()

// ParseChord reads a key name as tcell spells it (tcell.KeyNames: "Enter",
// "Esc", "Ctrl-G", "F5", "PgDn", ...), a single character ("x", "G"),
// "Space", or either of those after "Alt-".
func ParseChord(s string) (Chord, error) {
	c := Chord{Name: s}
	name := s
	if len(name) > 4 && strings.EqualFold(name[:4], "alt-") {
		c.Mod = tcell.ModAlt
		name = name[4:]
	}
	if utf8.RuneCountInString(name) == 1 {
		r, _ := utf8.DecodeRuneInString(name)
		if r < ' ' || r == utf8.RuneError || r == 0x7f {
			return Chord{}, fmt.Errorf("key %q is not a printable character or a tcell key name", s)
		}
		c.Key, c.Rune = tcell.KeyRune, r
		return c, nil
	}
	if strings.EqualFold(name, "space") {
		c.Key, c.Rune = tcell.KeyRune, ' '
		return c, nil
	}
	k, ok := keyByName[strings.ToLower(name)]
	if !ok {
		return Chord{}, fmt.Errorf("unknown key %q (use a single character or a tcell key name such as Enter, Esc, Ctrl-G, F5, PgDn)", s)
	}
	c.Key = k
	return c, nil
}

func (c Chord) same(b Binding) bool {
	return b.Key == c.Key && (c.Key != tcell.KeyRune || b.Rune == c.Rune) && b.Mod&tcell.ModAlt == c.Mod&tcell.ModAlt
}

// Rebinding maps action names to the keys that replace their defaults.
type Rebinding map[string][]Chord

// QuitAction is the action Ctrl-C always performs: whatever the
// configuration binds to quit, Ctrl-C stays one of its keys, and no other
// action may take Ctrl-C, so a configuration can never leave the dashboard
// without a way out.
const QuitAction = "quit"

// quitChord is the key QuitAction keeps.
var quitChord = Chord{Key: tcell.KeyCtrlC, Name: "Ctrl-C"}

// ParseRebinding reads the configuration's [keys] table: action name to key
// names. Errors name the action. Ctrl-C is reserved (QuitAction): binding
// it to another action is an error, and quit keeps it when rebound.
func ParseRebinding(keys map[string][]string) (Rebinding, map[string]error) {
	r := Rebinding{}
	errs := map[string]error{}
	for name, list := range keys {
		if len(list) == 0 {
			errs[name] = fmt.Errorf("no keys: give at least one (an action cannot be left without a key)")
			continue
		}
		for _, k := range list {
			c, err := ParseChord(k)
			if err == nil && name != QuitAction && quitChord.sameChord(c) {
				err = fmt.Errorf("key %q always quits; it cannot be bound to another action", k)
			}
			if err != nil {
				errs[name] = err
				delete(r, name)
				break
			}
			r[name] = append(r[name], c)
		}
	}
	if keys, ok := r[QuitAction]; ok && !slices.ContainsFunc(keys, quitChord.sameChord) {
		r[QuitAction] = append(keys, quitChord)
	}
	return r, errs
}

func (c Chord) sameChord(o Chord) bool {
	return c.Key == o.Key && (c.Key != tcell.KeyRune || c.Rune == o.Rune) && c.Mod&tcell.ModAlt == o.Mod&tcell.ModAlt
}

var (
	current atomic.Pointer[Rebinding]
	gen     atomic.Int64
)

// Use makes r the rebinding every Map applies from now on (nil: the
// defaults). Call it once at start, before building views.
func Use(r Rebinding) {
	if len(r) == 0 {
		current.Store(nil)
	} else {
		current.Store(&r)
	}
	gen.Add(1)
}

// Apply returns bindings with r applied: each rebound action's bindings
// are replaced, where its first one stood, by one binding per configured
// key (the first listed in help with all of them, the others hidden). An
// action that had only hidden aliases gets a help row of its own; a help
// row that spoke for a rebound alias then names its own keys only.
func Apply(bindings []Binding, r Rebinding) []Binding {
	if len(r) == 0 {
		return bindings
	}
	out := make([]Binding, 0, len(bindings))
	done := map[string]bool{}
	for i, b := range bindings {
		keys, rebound := r[b.Name]
		if !rebound || b.Name == "" {
			if !b.Hidden && b.Label != "" && foldsRebound(bindings, i, r) {
				b.Label = ownLabel(bindings, i)
			}
			out = append(out, b)
			continue
		}
		if done[b.Name] {
			continue
		}
		done[b.Name] = true
		first := b
		for _, o := range bindings[i:] {
			if o.Name == b.Name && !o.Hidden {
				first = o
				break
			}
		}
		help := first.Help
		if first.Hidden || help == "" {
			help = b.Name
			for j := i - 1; j >= 0; j-- {
				if !bindings[j].Hidden {
					first.Group = bindings[j].Group
					break
				}
			}
		}
		names := make([]string, len(keys))
		for j, k := range keys {
			names[j] = k.Name
		}
		for j, k := range keys {
			nb := first
			nb.Key, nb.Rune, nb.Mod = k.Key, k.Rune, k.Mod
			nb.Help, nb.Hidden, nb.Label = help, j > 0, ""
			if j == 0 {
				nb.Label = strings.Join(names, " / ")
			}
			out = append(out, nb)
		}
	}
	return out
}

// foldsRebound says whether the visible binding at i is followed by hidden
// aliases of another, rebound action (its Label named their keys).
func foldsRebound(bs []Binding, i int, r Rebinding) bool {
	for _, o := range bs[i+1:] {
		if !o.Hidden {
			return false
		}
		if _, ok := r[o.Name]; ok && o.Name != bs[i].Name && o.Name != "" {
			return true
		}
	}
	return false
}

// ownLabel is the label of the binding at i from its own action's keys.
func ownLabel(bs []Binding, i int) string {
	parts := []string{LabelOf(Binding{Key: bs[i].Key, Rune: bs[i].Rune, Mod: bs[i].Mod})}
	for _, o := range bs[i+1:] {
		if !o.Hidden {
			break
		}
		if o.Name == bs[i].Name {
			parts = append(parts, LabelOf(Binding{Key: o.Key, Rune: o.Rune, Mod: o.Mod}))
		}
	}
	return strings.Join(parts, " / ")
}

// Problem is a rebinding that cannot be applied to a map.
type Problem struct {
	Action string
	Msg    string
}

// Conflicts lists the keys r binds to an action that the map (with r
// applied) also binds to another action: one key, two actions in one
// context. Actions the map does not declare are not its concern. Sorted by
// action.
func Conflicts(bindings []Binding, r Rebinding) []Problem {
	eff := Apply(bindings, r)
	declared := map[string]bool{}
	for _, b := range bindings {
		declared[b.Name] = true
	}
	var out []Problem
	seen := map[string]bool{}
	for name, keys := range r {
		if !declared[name] {
			continue
		}
		for _, k := range keys {
			for _, b := range eff {
				if b.Name != name && k.same(b) {
					other := b.Name
					if other == "" {
						other = strings.TrimSpace(b.Help)
					}
					msg := fmt.Sprintf("key %q is also bound to %q here", k.Name, other)
					if !seen[name+msg] {
						seen[name+msg] = true
						out = append(out, Problem{name, msg})
					}
					break
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Action != out[j].Action {
			return out[i].Action < out[j].Action
		}
		return out[i].Msg < out[j].Msg
	})
	return out
}

// effective is the map's bindings with the current rebinding applied,
// cached until the map or the rebinding changes.
func (m *Map) effective() []Binding {
	r := current.Load()
	if r == nil {
		return m.bindings
	}
	g := gen.Load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.eff == nil || m.effGen != g || m.effLen != len(m.bindings) {
		m.eff, m.effGen, m.effLen = Apply(m.bindings, *r), g, len(m.bindings)
	}
	return m.eff
}

// Declared returns the bindings as declared, before any rebinding.
func (m *Map) Declared() []Binding { return append([]Binding(nil), m.bindings...) }
