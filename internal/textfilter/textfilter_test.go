package textfilter

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		filter string
		fields []string
		want   bool
	}{
		{"", []string{"anything"}, true},
		{"!", []string{"anything"}, true},
		{"main", []string{"Binder", "MainThread"}, true},
		{"MAIN", []string{"main"}, true},
		{"main", []string{"Binder", "worker"}, false},
		{"!main", []string{"Binder", "MainThread"}, false},
		{"!main", []string{"Binder", "worker"}, true},
		{"!!x", []string{"!x"}, false}, // only the first ! inverts
		{"!!x", []string{"y"}, true},
		{"tid=3", []string{"tid=3"}, true},
		{"x", nil, false},
		{"!x", nil, true},
	} {
		if got := Match(tc.filter, tc.fields...); got != tc.want {
			t.Errorf("Match(%q, %q) = %v", tc.filter, tc.fields, got)
		}
		f := Parse(tc.filter)
		hit := false
		for _, s := range tc.fields {
			if f.Needle() != "" && strings.Contains(strings.ToLower(s), f.Needle()) {
				hit = true
			}
		}
		if got := f.Keep(hit); got != tc.want {
			t.Errorf("Keep for %q over %q = %v", tc.filter, tc.fields, got)
		}
	}
	if !Parse("!Ab").MatchLower("xyz") || Parse("!Ab").MatchLower("xaby") || !Parse("ab").MatchLower("xaby") {
		t.Error("MatchLower")
	}
}
