package budget

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Rank orders what reclaimers let go of when a budget must make room:
// lower ranks go first. What can be had again goes before what is lost for
// good.
type Rank int

const (
	// RankPicture: decoded pictures kept for drawing (a view's capture, a
	// heap viewer's bitmap); decoded again from their bytes when shown.
	RankPicture Rank = iota + 1
	// RankHeapMap: the heap maps kept of VMs nobody looks at; a VM sends a
	// new one at its next GC.
	RankHeapMap
	// RankViewTree: view trees not on screen; dumped again when asked.
	RankViewTree
	// RankLog: the oldest entries of a device log; lost for good.
	RankLog

	// rankLive is a take for what nothing may reclaim (a packet being
	// read): it may ask every reclaimer.
	rankLive Rank = 1 << 30
)

// maxRounds bounds how often one take makes room and tries again.
const maxRounds = 4

// Reclaim gives back at least need bytes of what its holder keeps if it
// can (more is fine: a holder frees in steps worth a log line), by calling
// Give on its budget, and returns the bytes it gave back and what they
// were ("the oldest entries of emulator-5554's log"). It is called from
// another goroutine's Take, possibly while that goroutine holds its own
// locks: it must never block (take the holder's lock with TryLock and give
// nothing back when it is busy) and never Take.
type Reclaim func(need int64) (freed int64, what string)

// reclaimer is one registered holder.
type reclaimer struct {
	b    *Budget
	rank Rank
	fn   Reclaim
}

// registry is a budget tree's reclaimers (in rank order) and drops.
type registry struct {
	mu    sync.Mutex
	list  []*reclaimer
	last  Drop
	drops atomic.Int64
	freed atomic.Int64
	log   atomic.Pointer[slog.Logger]
}

// Drop is one thing let go of to make room.
type Drop struct {
	At    time.Time
	What  string // what was let go of
	Bytes int64  // the bytes it gave back
}

// Note is the drop said in a few words for a status line: "dropped 3 MiB:
// the oldest entries of emulator-5554's log".
func (d Drop) Note() string {
	if d.At.IsZero() {
		return ""
	}
	return fmt.Sprintf("dropped %s: %s", mib(d.Bytes), d.What)
}

// Reclaimer registers fn as a holder of b's bytes of rank r; b's takes and
// those of every budget b draws from may ask it to make room. stop
// unregisters it (call it before the holder goes; later calls do nothing).
func (b *Budget) Reclaimer(r Rank, fn Reclaim) (stop func()) {
	if b == nil {
		return func() {}
	}
	rc := &reclaimer{b: b, rank: r, fn: fn}
	g := b.reg
	g.mu.Lock()
	i, _ := slices.BinarySearchFunc(g.list, r, func(x *reclaimer, r Rank) int { return int(x.rank - r) })
	for i < len(g.list) && g.list[i].rank == r {
		i++ // after those of its rank: first come, first asked
	}
	g.list = slices.Insert(g.list, i, rc)
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if i := slices.Index(g.list, rc); i >= 0 {
			g.list = slices.Delete(g.list, i, i+1)
		}
	}
}

// Reclaimers is how many holders are registered in b's tree.
func (b *Budget) Reclaimers() int {
	if b == nil {
		return 0
	}
	b.reg.mu.Lock()
	defer b.reg.mu.Unlock()
	return len(b.reg.list)
}

// makeRoom asks the reclaimers ranked before r that hold bytes of the
// budget n more bytes would pass (b or a parent), cheapest first, until
// that budget has room, and returns the bytes they gave back.
func (b *Budget) makeRoom(n int64, r Rank) int64 {
	if b == nil {
		return 0
	}
	full := b.over(n)
	if full == nil {
		return 1 // room appeared meanwhile: try again
	}
	// The ones to ask, in rank order, taken under the lock (a log ring
	// at its share's limit asks on every entry: no allocation when none
	// qualifies).
	g := b.reg
	var list []*reclaimer
	g.mu.Lock()
	for _, rc := range g.list {
		if rc.rank < r && rc.b.within(full) {
			list = append(list, rc)
		}
	}
	g.mu.Unlock()
	var total int64
	for _, rc := range list {
		need := full.used.Load() + n - full.limit.Load()
		if need <= 0 {
			break
		}
		freed, what := rc.fn(need)
		if freed <= 0 {
			continue
		}
		total += freed
		g.dropped(Drop{At: time.Now(), What: what, Bytes: freed}, n, full)
	}
	return total
}

// within reports whether b is d or draws from d.
func (b *Budget) within(d *Budget) bool {
	for ; b != nil; b = b.parent {
		if b == d {
			return true
		}
	}
	return false
}

// dropped notes d and writes its log line.
func (g *registry) dropped(d Drop, wanted int64, full *Budget) {
	g.drops.Add(1)
	g.freed.Add(d.Bytes)
	g.mu.Lock()
	g.last = d
	g.mu.Unlock()
	if l := g.log.Load(); l != nil {
		l.Warn("memory budget spent: dropped to make room", "what", d.What, "bytes", d.Bytes,
			"for_bytes", wanted, "budget", full.String())
	}
}

// Stats is what a budget tree holds and has dropped, for the status line
// and the JSON outputs.
type Stats struct {
	Used  int64 `json:"used_bytes"`
	Limit int64 `json:"limit_bytes"` // 0: no limit
	Peak  int64 `json:"peak_bytes"`
	// Drops is how many things were let go of to make room, DroppedBytes
	// their bytes, LastDrop the last one's note ("" when none).
	Drops        int64  `json:"drops"`
	DroppedBytes int64  `json:"dropped_bytes"`
	LastDrop     string `json:"last_drop,omitempty"`
	LastDropAt   string `json:"last_drop_at,omitempty"` // RFC 3339
}

// LastDrop is the last thing let go of in b's tree (zero At: none).
func (b *Budget) LastDrop() Drop {
	if b == nil {
		return Drop{}
	}
	b.reg.mu.Lock()
	defer b.reg.mu.Unlock()
	return b.reg.last
}

// Stats returns b's figures and its tree's drops.
func (b *Budget) Stats() Stats {
	if b == nil {
		return Stats{}
	}
	s := Stats{Used: b.Used(), Limit: max(b.Limit(), 0), Peak: b.Peak(),
		Drops: b.reg.drops.Load(), DroppedBytes: b.reg.freed.Load()}
	if d := b.LastDrop(); !d.At.IsZero() {
		s.LastDrop, s.LastDropAt = d.Note(), d.At.UTC().Format(time.RFC3339)
	}
	return s
}

// mib says n bytes in MiB (KiB below one MiB).
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", (n+1023)>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
