package monitor

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/record"
)

// DefaultMaxThreads caps a VM's thread table: far above real apps (a few
// hundred threads; ART itself fails long before), low enough that a VM
// flooding THCR with new ids cannot grow the monitor without bound.
const DefaultMaxThreads = 10000

// MaxThreadName is the most bytes of a thread's name the table keeps
// (real names are a few dozen; a VM's wire allows a megabyte): a longer
// one is cut at a character boundary and ends in "…". With DefaultMaxThreads
// it bounds a table's names at 10 MiB.
const MaxThreadName = 1024

// threadName bounds a name from a VM (MaxThreadName).
func threadName(s string) string {
	if len(s) <= MaxThreadName {
		return s
	}
	n := MaxThreadName - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// threadPublishInterval is the most often a session publishes its thread
// table when changes come faster (a THCR flood): each publish copies and
// sorts the table, so a flood costs a bounded rate of copies instead of one
// per chunk.
const threadPublishInterval = 100 * time.Millisecond

// threadBook keeps a VM's thread table from its DDM and JDWP sources
// (THCR/THNM/THDE, THST replies, JDWP polls) and publishes it to the
// store at a bounded rate. The /proc source publishes its own table
// (deviceSources).
type threadBook struct {
	entry      *vmEntry
	conn       *vmConn // the VM's family (for THST), and whether the session is live
	maxThreads int
	input      func(func(now time.Time)) // the session's: for the flush timer

	mu     sync.Mutex
	table  threadTable // threadtable.go
	misses int         // THST polls missed in a row (the poller's count)
	// Publishing; times are the inputs' own (recorded ones in a replay),
	// so a replay publishes exactly when the live session did.
	lastPublish time.Time   // input time of the last publish
	pending     bool        // the table changed since, and waits for lastPublish+threadPublishInterval
	flushTimer  *time.Timer // live sessions: publishes a pending table when its time comes
	// tooMany is set when the cap refused a thread; tooManyShown once the
	// VM in the store says so.
	tooMany, tooManyShown bool
	// charged is what the table and its published copy are charged to the
	// store's thread budget (chargeLocked); overBudget is set while that
	// budget is spent: no thread is added until a publish finds room.
	charged    int64
	overBudget bool
	closed     bool // the session ended: nothing more is charged
}

// threadRowCost is what a thread costs beyond its name: its row in the
// table and in the store's copy, and the row's meta.
const threadRowCost = int64(2*unsafe.Sizeof(Thread{}) + unsafe.Sizeof(threadMeta{}))

// threadRoom is the room a thread budget must have before an over-budget
// table takes threads again (a hundred rows), so that a table at the edge
// does not flip on every publish.
const threadRoom = 100 * (threadRowCost + 64)

// chargeLocked charges the table being published to the store's thread
// budget: its rows and names. The bytes are held whatever the budget
// says; when they do not fit, the table is marked over budget and takes
// no new thread (as at the cap, the VM says so) until a later publish
// finds room. Called with the table's snapshot.
func (b *threadBook) chargeLocked(table []Thread) {
	if b.closed {
		return
	}
	mem := b.entry.store.threadBudget
	cost := int64(len(table)) * threadRowCost
	for i := range table {
		cost += int64(len(table[i].Name))
	}
	delta := cost - b.charged
	b.charged = cost
	switch {
	case delta > 0 && !mem.Take(delta):
		mem.Give(-delta) // held all the same
		b.overBudget, b.tooMany = true, true
	case delta < 0:
		mem.Give(-delta)
	}
	if b.overBudget && delta <= 0 && mem.Fits(threadRoom) {
		b.overBudget = false
	}
}

// fit returns how many of offered threads a table of another source
// (/proc), now of have rows, keeps: at most the cap, and no more than it
// has while the thread budget is spent. Past it, the VM says it has too
// many threads (showTooMany).
func (b *threadBook) fit(have, offered int) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fitLocked(have, offered)
}

// fitLocked is fit with b.mu held.
func (b *threadBook) fitLocked(have, offered int) int {
	if most := b.mostLocked(have); offered > most {
		b.tooMany = true
		return most
	}
	return offered
}

// mostLocked is how many threads a table of have rows may hold: the cap,
// and no new thread while the thread budget is spent. Every source's table
// (DDM, JDWP, /proc) takes new threads by it.
func (b *threadBook) mostLocked(have int) int {
	if b.overBudget {
		return min(b.maxThreads, have)
	}
	return b.maxThreads
}

// charge charges a table of another source as it is published (/proc:
// the store holds one VM table, whichever source published it last).
func (b *threadBook) charge(table []Thread) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.chargeLocked(table)
}

// release gives the table's charge back (the session ended).
func (b *threadBook) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.entry.store.threadBudget.Give(b.charged)
	b.charged, b.closed = 0, true
}

// roomLocked reports whether the table may take one more thread; the first
// refusal marks the VM as having too many threads.
func (b *threadBook) roomLocked() bool {
	have := b.table.len()
	return b.fitLocked(have, have+1) > have
}

// showTooMany marks the VM in the store once the cap has refused a thread;
// called without b.mu.
func (b *threadBook) showTooMany() {
	b.mu.Lock()
	show := b.tooMany && !b.tooManyShown
	b.tooManyShown = b.tooManyShown || show
	over := b.overBudget
	b.mu.Unlock()
	if show {
		why := fmt.Sprintf("too many threads: more than %d; newer threads are not shown", b.maxThreads)
		if over {
			why = fmt.Sprintf("too many threads: the thread tables hold %s; newer threads are not shown", b.entry.store.threadBudget)
		}
		b.entry.store.UpdateVM(b.entry.key, func(vm *VM) {
			vm.TooManyThreads = true
			vm.Err = why
		})
	}
}

// changedLocked notes a change of the thread table at input time now and
// returns what to call once b.mu is released: a publish when the last one
// is at least threadPublishInterval old, else nothing yet (the table is
// published when that interval has passed, by a timer whose firing is
// recorded so that a replay publishes at the same instant, or by the next
// full table, whichever comes first).
func (b *threadBook) changedLocked(now time.Time) func() {
	// Due (even with a timer pending that has not fired yet, or in a replay
	// of a recording that has no flush record here): published at once.
	if now.Sub(b.lastPublish) >= threadPublishInterval {
		return b.publishLocked(now)
	}
	if !b.pending {
		b.pending = true
		if b.conn.jc != nil { // live; a replay flushes from its own clock (flush)
			b.flushTimer = time.AfterFunc(b.lastPublish.Add(threadPublishInterval).Sub(now), func() {
				b.input(func(now time.Time) {
					// Recorded, so that a replay publishes at this very
					// instant too (timers fire late under load).
					b.entry.rec.json(now, record.KindState, b.entry.key, stateRecord{FlushThreads: true})
					b.flush(now)
				})
			})
		}
	}
	if b.tooMany && !b.tooManyShown {
		return b.showTooMany
	}
	return nothing // a method value would be allocated on every change
}

func nothing() {}

// publishLocked takes the table for publishing at input time now; call the
// result once b.mu is released.
func (b *threadBook) publishLocked(now time.Time) func() {
	b.pending, b.lastPublish = false, now
	if b.flushTimer != nil {
		b.flushTimer.Stop()
		b.flushTimer = nil
	}
	seq, table := threadSeq.Add(1), b.table.snapshot()
	b.chargeLocked(table)
	return func() {
		b.entry.store.setThreads(b.entry.key, seq, table)
		b.showTooMany()
	}
}

// threadSeq numbers the thread tables taken for publishing, across sessions:
// the store keeps a VM's table only if it was taken after the one it holds
// (Store.setThreads), whichever goroutine publishes first.
var threadSeq atomic.Uint64

// flush publishes a pending table at input time now: the live timer's, or
// that recorded time in a replay. It runs as an input (under the
// session's input lock), so it is ordered with every other publish.
func (b *threadBook) flush(now time.Time) {
	b.mu.Lock()
	if !b.pending {
		b.mu.Unlock()
		return
	}
	publish := b.publishLocked(now)
	b.mu.Unlock()
	publish()
}

// close stops publishing: nothing is published for a VM that went.
func (b *threadBook) close() {
	b.mu.Lock()
	if b.flushTimer != nil {
		b.flushTimer.Stop()
		b.flushTimer = nil
	}
	b.pending = false
	b.mu.Unlock()
	b.release()
}

// change applies fn to the table at input time now and publishes the
// result (at a bounded rate).
func (b *threadBook) change(now time.Time, fn func(t *threadTable)) {
	b.mu.Lock()
	fn(&b.table)
	publish := b.changedLocked(now)
	b.mu.Unlock()
	publish()
}

// created applies THCR: a thread created, or renamed when known.
func (b *threadBook) created(m *ddm.ThreadCreated, now time.Time) {
	b.change(now, func(t *threadTable) {
		id := uint64(m.ID)
		if th := t.get(id); th != nil {
			th.Name = threadName(m.Name)
		} else if b.roomLocked() {
			t.insert(Thread{ID: id, Name: threadName(m.Name), Status: -1, State: "unknown", Created: now, Changed: now, Source: SourceDDM})
		}
	})
}

// missed counts a missed THST poll and returns the misses in a row.
func (b *threadBook) missed() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.misses++
	return b.misses
}

// missedNow is the THST polls missed in a row.
func (b *threadBook) missedNow() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.misses
}

// applyJDWP applies a thread table polled with JDWP at now.
func (b *threadBook) applyJDWP(rows []jdwpThread, now time.Time) {
	b.mu.Lock()
	rows = rows[:b.fitLocked(b.table.len(), len(rows))] // the poller asks for no more; a recording may hold more
	b.mu.Unlock()
	fresh := make([]Thread, 0, len(rows))
	for _, r := range rows {
		th := Thread{ID: r.ID, Name: threadName(r.Name), Status: r.Status, State: jdwp.ThreadStatusName(int32(r.Status)), Created: now, Changed: now, Source: SourceJDWP}
		if r.Suspended {
			th.State = "suspended" // by a debugger: not running, whatever its status says
		}
		fresh = append(fresh, th)
	}
	b.mu.Lock()
	for i := range fresh {
		th := &fresh[i]
		if prev := b.table.get(th.ID); prev != nil {
			th.Created = prev.Created
			if prev.State == th.State {
				th.Changed = prev.Changed
			}
		}
	}
	b.table.replace(fresh)
	seq, table := threadSeq.Add(1), b.table.snapshot()
	b.chargeLocked(table)
	b.mu.Unlock()
	b.entry.store.setThreads(b.entry.key, seq, table)
	b.showTooMany()
}
