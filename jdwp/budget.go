package jdwp

import "github.com/ddmtui/ddmtui/internal/budget"

// Budget bounds the bytes of large packets held at once, over every reader
// that shares it (a Conn per VM, a debugger connection): a peer that claims
// a huge packet and sends it slowly holds its bytes while they arrive, and
// several such peers together cannot pass the budget. A Conn's packet holds
// them until it is consumed (Route returned, taken from Incoming, handed
// to the request waiting for it). A packet that could not be read whole
// within it fails its connection with ErrBudget before any of it is
// allocated. A nil Budget is no budget.
//
// It is the one budget type (internal/budget; a limit ≤ 0 bounds nothing
// and only counts); a monitor's is a share of the process-wide budget.
type Budget = budget.Budget

// NewBudget returns a budget of limit bytes (≤ 0: no limit, only counted).
func NewBudget(limit int64) *Budget { return budget.New(limit) }

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
