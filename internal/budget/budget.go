// Package budget bounds the bytes that peers and files can make ddmtui hold
// (issue 37, "one budget"): one type for every buffer a peer or a file can
// grow — large packets being read or waiting (jdwp), heap maps being built
// and kept (heap), a replayed recording's records (monitor), decoded
// pictures (internal/pixbound) — and one process-wide budget, Process,
// that each feature's own budget draws from as well.
//
// A feature's budget is a Child of Process with the share it may hold at
// most; a take must fit both, so several features under attack at once
// still stay within Process. What does not fit is refused before it is
// allocated, and the feature drops that one thing (a packet and its
// connection, a heap map, the rest of a recording, a picture) with an
// error that says so; what other VMs' sessions hold is never taken back.
// Standard library only.
package budget

import (
	"fmt"
	"sync/atomic"
)

// DefaultProcess is Process's limit unless --memory-budget (config
// limits.memory_budget) says otherwise.
const DefaultProcess = 256 << 20

// Process is the process-wide budget. Its limit is set once at start
// (SetLimit) from the flag.
var Process = New(DefaultProcess)

// Budget bounds the bytes held at once by everything that shares it, and
// counts them. A nil Budget bounds and counts nothing; a limit ≤ 0 bounds
// nothing and only counts.
type Budget struct {
	limit  atomic.Int64
	parent *Budget
	used   atomic.Int64
	peak   atomic.Int64
}

// New returns a budget of limit bytes (≤ 0: no limit, only counted).
func New(limit int64) *Budget {
	b := &Budget{}
	b.limit.Store(limit)
	return b
}

// Child returns a budget of limit bytes whose takes are also taken from b
// (a share of b): a take must fit both.
func (b *Budget) Child(limit int64) *Budget {
	c := New(limit)
	c.parent = b
	return c
}

// SetLimit changes the limit (≤ 0: none); bytes held stay held.
func (b *Budget) SetLimit(limit int64) {
	if b != nil {
		b.limit.Store(limit)
	}
}

// Limit is the limit (≤ 0: none).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit.Load()
}

// Take takes n bytes if they fit this budget and its parents, reporting
// whether it did; a refused take holds nothing.
func (b *Budget) Take(n int64) bool {
	if b == nil || n <= 0 {
		return true
	}
	for {
		u := b.used.Load()
		if l := b.limit.Load(); l > 0 && u+n > l {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			break
		}
	}
	if !b.parent.Take(n) {
		b.used.Add(-n)
		return false
	}
	for p, u := b.peak.Load(), b.used.Load(); u > p && !b.peak.CompareAndSwap(p, u); p = b.peak.Load() {
	}
	return true
}

// Fits reports whether n bytes more would fit now, without taking them:
// a reader checks that a whole packet can be read before it allocates its
// first piece.
func (b *Budget) Fits(n int64) bool {
	for ; b != nil; b = b.parent {
		if l := b.limit.Load(); l > 0 && b.used.Load()+n > l {
			return false
		}
	}
	return true
}

// Give gives back n bytes taken. A negative n holds -n bytes more without
// a check: a holder setting what it holds to an exact figure it already
// has (a packet read into pieces, then held at its length).
func (b *Budget) Give(n int64) {
	if n == 0 {
		return
	}
	for ; b != nil; b = b.parent {
		u := b.used.Add(-n)
		for p := b.peak.Load(); u > p && !b.peak.CompareAndSwap(p, u); p = b.peak.Load() {
		}
	}
}

// Used is the bytes held now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Peak is the most bytes held at once.
func (b *Budget) Peak() int64 {
	if b == nil {
		return 0
	}
	return b.peak.Load()
}

// String says what is held: "12 of 256 MiB".
func (b *Budget) String() string {
	if b.Limit() <= 0 {
		return fmt.Sprintf("%d MiB, no limit", b.Used()>>20)
	}
	return fmt.Sprintf("%d of %d MiB", b.Used()>>20, b.Limit()>>20)
}
