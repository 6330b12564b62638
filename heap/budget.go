package heap

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/ddmtui/ddmtui/internal/budget"
)

// Budget bounds the segment data held at once by every Assembler that
// shares it: the sets being assembled and the snapshots they produced until
// those are released (Snapshot.Release: the model does it when a VM's map is
// replaced or the VM goes). HPSG packets are small, so the connection's
// packet budget never sees a map's total: without this, VMs cycling
// HPST / thousands of HPSG / HPEN held their per-set bound each, twice
// (the set being built and the last one kept). A nil Budget is no budget.
// It is the one budget type (internal/budget); a monitor's is a share of
// the process-wide budget.
type Budget = budget.Budget

// NewBudget returns a budget of limit bytes (≤ 0: no limit, only counted).
func NewBudget(limit int64) *Budget { return budget.New(limit) }

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

// charge is what a snapshot holds of a budget, given back once.
type charge struct {
	b        *Budget
	n        uint64
	once     sync.Once
	released atomic.Bool
}

// Release gives the snapshot's bytes back to the budget of the assembler
// that built it (once; later calls and snapshots built otherwise do
// nothing). The snapshot stays readable: the budget counts what the model
// keeps, and the model lets go of a released snapshot.
func (s *Snapshot) Release() {
	if s != nil && s.charge != nil {
		s.charge.once.Do(func() {
			s.charge.released.Store(true)
			s.charge.b.Give(int64(s.charge.n))
		})
	}
}

// Held is the bytes the snapshot holds of its budget until it is released
// (0 once released, or for a snapshot built otherwise).
func (s *Snapshot) Held() int64 {
	if s == nil || s.charge == nil || s.charge.released.Load() {
		return 0
	}
	return int64(s.charge.n)
}
