package devshell

import (
	"strings"
	"testing"
)

func TestNewDumpIn(t *testing.T) {
	marker := []byte("----- pid 7 ")
	block := func(at string) string { return "----- pid 7 at " + at + " -----\nx\n----- end 7 -----\n" }
	other := "----- pid 8 at t -----\n----- end 8 -----\n"
	for _, tc := range []struct {
		before, now string
		want        bool
	}{
		{"", block("a"), true},                            // first dump
		{block("a"), block("a"), false},                   // unchanged
		{block("a"), block("a") + other, false},           // another pid's dump appended
		{block("a"), block("a") + block("b"), true},       // appended
		{block("a"), block("b"), true},                    // the file rewritten with the new dump
		{block("a"), block("a") + block("b")[:30], false}, // new block not finished
		{block("a") + block("b"), block("c"), true},       // rewritten, fewer blocks than before
		{other, other + "noise", false},
	} {
		if got := newDumpIn([]byte(tc.now), []byte(tc.before), marker, 7); got != tc.want {
			t.Errorf("before %q now %q: %v, want %v", tc.before, tc.now, got, tc.want)
		}
	}
	if strings.Count(block("a"), string(marker)) != 1 {
		t.Fatal("test blocks changed")
	}
}
