package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

// The runtime's limit is the base plus the allowances open, none when
// both are gone; restores and releases put back exactly what they took.
func TestBaseAndAllowances(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	a := Raise(100)
	if limit() != 100 || Limit() != 100 {
		t.Fatalf("one allowance: %d", limit())
	}
	restore := SetBase(1000)
	b := Raise(10)
	if limit() != 1110 || Limit() != 1110 {
		t.Fatalf("base and two allowances: %d", limit())
	}
	a()
	a() // once
	if limit() != 1010 {
		t.Fatalf("one released (twice): %d", limit())
	}
	restore()
	if limit() != 10 {
		t.Fatalf("base restored to none: %d", limit())
	}
	b()
	if limit() != math.MaxInt64 || Limit() != 0 {
		t.Fatalf("nothing left: %d", limit())
	}
	Raise(0)()
	Raise(-5)()
	if limit() != math.MaxInt64 {
		t.Fatalf("empty allowances: %d", limit())
	}
	r1 := SetBase(500)
	r2 := SetBase(-1)
	if limit() != math.MaxInt64 {
		t.Fatalf("base none: %d", limit())
	}
	r2()
	if limit() != 500 {
		t.Fatalf("nested restore: %d", limit())
	}
	r1()
}

func TestForBudget(t *testing.T) {
	for _, c := range []struct{ b, want int64 }{{256 << 20, 224 << 20}, {0, 0}, {-1, 0}, {8, 7}} {
		if got := ForBudget(c.b); got != c.want {
			t.Errorf("ForBudget(%d) = %d, want %d", c.b, got, c.want)
		}
	}
}
