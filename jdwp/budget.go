package jdwp

import "sync/atomic"

// Budget bounds the bytes of large packets held at once, over every reader
// that shares it (a Conn per VM, a debugger connection): a peer that claims
// a huge packet and sends it slowly holds its bytes while they arrive, and
// several such peers together cannot pass the budget. A Conn's packet holds
// them until it is consumed (Route returned, taken from Incoming, handed
// to the request waiting for it). A packet that could not be read whole
// within it fails its connection with ErrBudget before any of it is
// allocated. The zero value and nil are no budget.
type Budget struct {
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// DefaultProcessBudget is the budget ddmtui gives the ordinary traffic of
// its monitor sessions together: room to read one packet of the 32 MiB a VM
// may send unasked (monitor.DefaultVMPacketLen) at 1.5 times its length,
// while what VMs really send needs a few MiB. It was 192 MiB; with the Go
// heap's garbage on top, 12 VMs sending 30 MiB packets unasked then peaked
// at 466-561 MiB resident (issue 30's soak wants 256 MiB).
const DefaultProcessBudget = 48 << 20

// DefaultStreamBudget is the budget of the large transfers a monitor asks
// for (streamed heap dumps): one of the largest packets, read at 1.5 times
// its size.
const DefaultStreamBudget = DefaultMaxPacketLen * 3 / 2

func (b *Budget) acquire(n int64) bool {
	if b == nil || b.limit <= 0 {
		return true
	}
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			for p := b.peak.Load(); u+n > p && !b.peak.CompareAndSwap(p, u+n); p = b.peak.Load() {
			}
			return true
		}
	}
}

// fits reports whether n bytes more would stay within the budget now,
// without taking them: a reader checks that a packet can be read whole
// before it allocates its first piece, so a packet that cannot be read
// costs no memory.
func (b *Budget) fits(n int64) bool {
	return b == nil || b.limit <= 0 || b.used.Load()+n <= b.limit
}

func (b *Budget) release(n int64) {
	if b == nil || b.limit <= 0 || n == 0 {
		return
	}
	b.used.Add(-n)
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
