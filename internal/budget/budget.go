// Package budget bounds the bytes that peers and files can make ddmtui hold
// (issue 37, "one budget"): one type for every buffer a peer or a file can
// grow — large packets being read or waiting (jdwp), heap maps being built
// and kept (heap), a replayed recording's records (monitor), decoded
// pictures (internal/pixbound) — and one process-wide budget, Process,
// that each feature's own budget draws from as well.
//
// A feature's budget is a Child of Process with the share it may hold at
// most; a take must fit both, so several features under attack at once
// still stay within Process.
//
// When a take does not fit, the budget first makes room: holders that can
// let go of something (the oldest entries of a device log, the heap maps
// kept of VMs nobody looks at, decoded pictures kept for drawing) are
// Reclaimers, asked cheapest Rank first to give bytes back; each such drop
// writes one log line and leaves a note (LastDrop) that the dashboard's
// status line and the JSON outputs show. What still does not fit is
// refused before it is allocated, and the feature drops that one thing (a
// packet and its connection, a heap map, the rest of a recording, a
// picture) with an error that says so. A packet a session is reading or
// holds is never a Reclaimer: a healthy VM's session is never what goes.
// Standard library only.
package budget

import (
	"fmt"
	"log/slog"
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
	reg    *registry // the reclaimers and drops of the whole tree (its root's)
}

// New returns a budget of limit bytes (≤ 0: no limit, only counted).
func New(limit int64) *Budget {
	b := &Budget{reg: &registry{}}
	b.limit.Store(limit)
	return b
}

// Child returns a budget of limit bytes whose takes are also taken from b
// (a share of b): a take must fit both. It shares b's reclaimers.
func (b *Budget) Child(limit int64) *Budget {
	c := New(limit)
	c.parent, c.reg = b, b.reg
	return c
}

// Parent is the budget b is a share of (nil for a root).
func (b *Budget) Parent() *Budget { return b.parent }

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

// Take takes n bytes if they fit this budget and its parents, making room
// if it must (any Reclaimer may be asked), and reports whether it did; a
// refused take holds nothing.
func (b *Budget) Take(n int64) bool { return b.TakeBefore(n, rankLive) }

// TakeBefore is Take for a holder of rank r: to make room it asks only
// reclaimers that rank before r (cheaper), so a device log that floods
// drops its own oldest entries rather than another device's.
func (b *Budget) TakeBefore(n int64, r Rank) bool {
	for range maxRounds {
		if b.take(n) {
			return true
		}
		if b.makeRoom(n, r) <= 0 {
			return false
		}
	}
	return b.take(n)
}

// take takes n bytes if they fit now.
func (b *Budget) take(n int64) bool {
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
	if !b.parent.take(n) {
		b.used.Add(-n)
		return false
	}
	for p, u := b.peak.Load(), b.used.Load(); u > p && !b.peak.CompareAndSwap(p, u); p = b.peak.Load() {
	}
	return true
}

// Fits reports whether n bytes more would fit, without taking them: a
// reader checks that a whole packet can be read before it allocates its
// first piece. Like Take, it makes room first if it must.
func (b *Budget) Fits(n int64) bool {
	for range maxRounds {
		if b.over(n) == nil {
			return true
		}
		if b.makeRoom(n, rankLive) <= 0 {
			return false
		}
	}
	return b.over(n) == nil
}

// over is the nearest of b and its parents that n bytes more would pass,
// or nil.
func (b *Budget) over(n int64) *Budget {
	for ; b != nil; b = b.parent {
		if l := b.limit.Load(); l > 0 && b.used.Load()+n > l {
			return b
		}
	}
	return nil
}

// SetLog makes the drops of b's tree write their line to l (nil: nowhere).
func (b *Budget) SetLog(l *slog.Logger) {
	if b != nil {
		b.reg.log.Store(l)
	}
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
