package hprof

// Tests that kill the mutants scripts/mutation.sh found alive in this
// package (docs/TESTING.md, "Mutation testing"). Each states exact values.

import (
	"testing"
)

// TestDefaultMaxOutput: 16 times the input, at least 16 MiB.
func TestDefaultMaxOutput(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{
		{0, 16 << 20}, {1, 16 << 20}, {1 << 20, 16 << 20}, {1<<20 + 1, 16<<20 + 16}, {3 << 20, 48 << 20},
	} {
		if got := DefaultMaxOutput(tc.in); got != tc.want {
			t.Errorf("DefaultMaxOutput(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
