// Package memlimit keeps the Go collector's soft memory limit
// (runtime/debug.SetMemoryLimit) as the sum of a base and the allowances
// of the large things open now.
//
// The base is the footprint a watching command aims at: the process-wide
// memory budget (--memory-budget) bounds what peers and files make ddmtui
// hold, and the soft limit bounds the garbage those leave between
// collections as well (docs/RELIABILITY.md). An allowance is what one
// large analysis needs on top (a heap dump's model), raised while it is
// open so that a heap larger than the base does not keep the collector
// running. With no base and no allowance there is no limit. Above the
// limit the collector runs more often; nothing fails.
package memlimit

import (
	"math"
	"runtime/debug"
	"sync"
)

var (
	mu     sync.Mutex
	base   int64 // ≤ 0: none
	raised int64 // the allowances open now
)

// ForBudget is the base for a memory budget of b bytes (≤ 0: none): seven
// eighths of it, the rest left to what the collector does not count (the
// program's own pages, memory outside the Go heap) so that the process's
// resident set, not only its Go memory, stays near the budget.
func ForBudget(b int64) int64 {
	if b <= 0 {
		return 0
	}
	return b - b/8
}

// SetBase sets the base to n bytes (≤ 0: none) and returns a function
// that puts back the base it replaced.
func SetBase(n int64) (restore func()) {
	mu.Lock()
	prev := base
	base = max(n, 0)
	apply()
	mu.Unlock()
	return func() {
		mu.Lock()
		base = prev
		apply()
		mu.Unlock()
	}
}

// Raise adds an allowance of n bytes until release is called (once; later
// calls do nothing).
func Raise(n int64) (release func()) {
	if n <= 0 {
		return func() {}
	}
	mu.Lock()
	raised += n
	apply()
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			raised -= n
			apply()
			mu.Unlock()
		})
	}
}

// Limit is the soft limit this package set: base plus allowances (0:
// none).
func Limit() int64 {
	mu.Lock()
	defer mu.Unlock()
	return base + raised
}

// apply sets the runtime's limit; mu is held.
func apply() {
	n := base + raised
	if n <= 0 {
		n = math.MaxInt64
	}
	debug.SetMemoryLimit(n)
}
