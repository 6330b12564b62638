package tui

import (
	"strings"

	"github.com/ddmtui/ddmtui/mapping"
)

// Mappings are the dashboard's mapping files, by app (package or process
// name, from --mapping PKG=FILE and the config file's [mappings]): each
// app's log lines, thread dumps, allocation stacks and method traces show
// its source names. The obfuscated-names key shows the names as the build
// has them instead: at once in the log pane, for what is fetched next in
// the viewers.
type Mappings struct {
	byApp      map[string]*mapping.Mapping
	obfuscated bool
}

// NewMappings holds byApp (nil or empty: no mappings).
func NewMappings(byApp map[string]*mapping.Mapping) *Mappings {
	return &Mappings{byApp: byApp}
}

// lookup is app's mapping ("com.example:remote" uses com.example's).
func (ms *Mappings) lookup(app string) *mapping.Mapping {
	if ms == nil || app == "" {
		return nil
	}
	if m := ms.byApp[app]; m != nil {
		return m
	}
	if i := strings.IndexByte(app, ':'); i > 0 {
		return ms.byApp[app[:i]]
	}
	return nil
}

// forApp is the mapping to apply to app's names now: nil when it has none
// or the obfuscated names are asked for.
func (ms *Mappings) forApp(app string) *mapping.Mapping {
	if ms == nil || ms.obfuscated {
		return nil
	}
	return ms.lookup(app)
}

// Note is note, for the command line's tests.
func (ms *Mappings) Note(app string) string { return ms.note(app) }

// note is what a title says of app's names: " · mapping", or " ·
// obfuscated names" while the key shows them, or "" without a mapping.
func (ms *Mappings) note(app string) string {
	switch {
	case ms.lookup(app) == nil:
		return ""
	case ms.obfuscated:
		return " · obfuscated names"
	}
	return " · mapping"
}

// toggle switches between source and obfuscated names; it reports the new
// state for the status line, or "" without any mapping.
func (ms *Mappings) toggle() string {
	if ms == nil || len(ms.byApp) == 0 {
		return ""
	}
	ms.obfuscated = !ms.obfuscated
	if ms.obfuscated {
		return "release builds: obfuscated names, as the build has them"
	}
	return "release builds: source names, from their mapping files"
}
