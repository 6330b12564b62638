package heap

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Budget bounds the segment data held at once by every Assembler that
// shares it: the sets being assembled and the snapshots they produced until
// those are released (Snapshot.Release: the model does it when a VM's map is
// replaced or the VM goes). HPSG packets are small, so the connection's
// packet budget never sees a map's total: without this, VMs cycling
// HPST / thousands of HPSG / HPEN held their per-set bound each, twice
// (the set being built and the last one kept). A nil Budget is no budget.
type Budget struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
}

// NewBudget returns a budget of limit bytes (≤ 0: no limit, only counted).
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// DefaultProcessBudget is the budget a monitor gives the heap maps of all
// its VMs together. Maps are asked of one VM at a time (the dashboard's
// selected VM, `ddmtui heap`), and a real VM's merged map is a few MiB (a
// 512 MiB heap's included; the worst real one, every object its own run,
// is one byte per 8-byte unit of heap), so VMs that send maps unasked are
// the ones that find it spent.
const DefaultProcessBudget = 32 << 20

// ErrBudget is wrapped (beside ErrSetTooLarge) by the Assembler error for a
// set dropped because the process-wide budget was spent.
var ErrBudget = errors.New("heap: the process-wide budget for heap maps is spent")

func (b *Budget) take(n uint64) bool {
	if b == nil {
		return true
	}
	for {
		u := b.used.Load()
		if b.limit > 0 && u+int64(n) > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+int64(n)) {
			for p := b.peak.Load(); u+int64(n) > p && !b.peak.CompareAndSwap(p, u+int64(n)); p = b.peak.Load() {
			}
			return true
		}
	}
}

func (b *Budget) give(n uint64) {
	if b != nil && n > 0 {
		b.used.Add(-int64(n))
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

// charge is what a snapshot holds of a budget, given back once.
type charge struct {
	b    *Budget
	n    uint64
	once sync.Once
}

// Release gives the snapshot's bytes back to the budget of the assembler
// that built it (once; later calls and snapshots built otherwise do
// nothing). The snapshot stays readable: the budget counts what the model
// keeps, and the model lets go of a released snapshot.
func (s *Snapshot) Release() {
	if s != nil && s.charge != nil {
		s.charge.once.Do(func() { s.charge.b.give(s.charge.n) })
	}
}
