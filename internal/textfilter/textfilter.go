// Package textfilter is the one rule every `/` filter of ddmtui follows:
// a case-insensitive substring of what a row shows; a leading "!" keeps
// the rows that do not contain it. An empty filter (or "!" alone) keeps
// every row. The dashboard's panes, the viewers and the allocation table
// match through it, so the rule is written once.
package textfilter

import "strings"

// Filter is a parsed filter.
type Filter struct {
	needle string // lower case, without the "!"
	invert bool
}

// Parse reads a filter as typed at the `/` prompt.
func Parse(s string) Filter {
	invert := strings.HasPrefix(s, "!")
	return Filter{needle: strings.ToLower(strings.TrimPrefix(s, "!")), invert: invert}
}

// All reports whether the filter keeps every row (it is empty).
func (f Filter) All() bool { return f.needle == "" }

// Inverted reports whether the filter keeps what does not match (a
// leading "!").
func (f Filter) Inverted() bool { return f.invert }

// Needle is the text searched for, in lower case.
func (f Filter) Needle() string { return f.needle }

// Match reports whether a row showing fields passes: one of them contains
// the needle (none does, for an inverted filter).
func (f Filter) Match(fields ...string) bool {
	if f.needle == "" {
		return true
	}
	hit := false
	for _, s := range fields {
		if strings.Contains(strings.ToLower(s), f.needle) {
			hit = true
			break
		}
	}
	return hit != f.invert
}

// MatchLower is Match for one text already in lower case.
func (f Filter) MatchLower(lower string) bool {
	return f.needle == "" || strings.Contains(lower, f.needle) != f.invert
}

// Keep turns whether a row contains the needle, as the caller found it
// (caching per class or per stack), into whether the row passes.
func (f Filter) Keep(hit bool) bool { return f.needle == "" || hit != f.invert }

// Match is Parse(filter).Match(fields...).
func Match(filter string, fields ...string) bool { return Parse(filter).Match(fields...) }
