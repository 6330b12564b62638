package logcat

import (
	"fmt"
	"sync"

	"github.com/ddmtui/ddmtui/internal/budget"
)

// DefaultRingSize is how many entries a device's Ring keeps by default.
const DefaultRingSize = 200_000

// DefaultRingBytes bounds the text (tag, message, app) a Ring keeps by
// default: 200,000 entries of ordinary log lines (under 100 bytes of text
// each) fit, 200,000 of 4 KB do not.
const DefaultRingBytes = 32 << 20

// DefaultProcessLogBytes is the share of the process-wide budget
// (internal/budget) the rings of one process share (devicelog.Logs: one
// ring per device followed).
const DefaultProcessLogBytes = 96 << 20

// entryOverhead is what an entry's slot costs beside its text, counted in
// its bytes (the ring's slots themselves are allocated once, by entries).
const entryOverhead = 16

// reclaimStep is the least a ring gives back when the budget asks it to
// make room for others: a few hundred ordinary entries, so that a flood
// of small takes is answered by a few drops, each one log line.
const reclaimStep = 256 << 10

// Cost is the bytes an entry counts for in a Ring's byte bound.
func (e *Entry) Cost() int64 {
	return int64(len(e.Tag)+len(e.Message)+len(e.App)) + entryOverhead
}

// Ring is a device's bounded log history. Entries get increasing sequence
// numbers (from 1); a reader keeps the sequence it has seen and asks for
// what came after, so views can follow the log without the ring knowing
// them. When the ring is full — by entries, by the bytes of their text
// (SetLimit), or by a budget shared with other rings — the oldest entries
// are dropped; a reader that fell behind learns how many it missed. Append
// runs the Classifier, so entries in a ring carry their crash and
// stack-trace flags. Safe for concurrent use.
type Ring struct {
	mu       sync.Mutex
	buf      []Entry
	first    uint64 // sequence of the oldest entry held
	next     uint64 // sequence of the next entry
	bytes    int64  // Cost of the entries held
	maxBytes int64
	budget   *budget.Budget
	name     string // the device, in the budget's drop notes
	stop     func() // unregisters the ring's reclaimer (nil: none)
	class    Classifier
	changed  chan struct{}
}

// NewRing returns a ring of capacity entries (DefaultRingSize when <= 0)
// and DefaultRingBytes of text.
func NewRing(capacity int) *Ring {
	if capacity <= 0 {
		capacity = DefaultRingSize
	}
	return &Ring{buf: make([]Entry, capacity), first: 1, next: 1, maxBytes: DefaultRingBytes, changed: make(chan struct{})}
}

// SetLimit bounds the bytes of the entries' text the ring keeps (≤ 0:
// DefaultRingBytes) and makes it draw them from b (nil: none); name is the
// device the budget's drop notes name. Call it before the first Append.
func (r *Ring) SetLimit(maxBytes int64, b *budget.Budget, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if maxBytes <= 0 {
		maxBytes = DefaultRingBytes
	}
	r.maxBytes, r.budget, r.name = maxBytes, b, name
}

// Cap is the ring's capacity in entries.
func (r *Ring) Cap() int { return len(r.buf) }

// Bytes is the Cost of the entries held.
func (r *Ring) Bytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

// Append classifies e, stores it with the next sequence number, and returns
// that number.
func (r *Ring) Append(e Entry) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.class.Classify(&e)
	return r.storeLocked(e)
}

// AppendClassified stores e as the caller classified it (its own
// Classifier saw the entries this ring does not keep).
func (r *Ring) AppendClassified(e Entry) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.storeLocked(e)
}

func (r *Ring) storeLocked(e Entry) uint64 {
	cost := e.Cost()
	if r.next-r.first == uint64(len(r.buf)) {
		r.dropLocked()
	}
	for r.first < r.next && r.bytes+cost > r.maxBytes {
		r.dropLocked()
	}
	if r.budget != nil && r.stop == nil {
		r.stop = r.budget.Reclaimer(budget.RankLog, r.reclaim)
	}
	for !r.budget.TakeBefore(cost, budget.RankLog) {
		if r.first == r.next {
			// Empty: make room from anything (another device's oldest
			// entries), else keep this one entry anyway.
			if !r.budget.Take(cost) {
				r.budget.Give(-cost)
			}
			break
		}
		r.dropLocked()
	}
	e.Seq = r.next
	r.buf[r.next%uint64(len(r.buf))] = e
	r.bytes += cost
	r.next++
	close(r.changed)
	r.changed = make(chan struct{})
	return e.Seq
}

// dropLocked drops the oldest entry (the ring is not empty).
func (r *Ring) dropLocked() {
	slot := &r.buf[r.first%uint64(len(r.buf))]
	cost := slot.Cost()
	r.bytes -= cost
	r.budget.Give(cost)
	*slot = Entry{} // its strings go
	r.first++
}

// reclaim gives back the oldest entries, at least need bytes and
// reclaimStep, for the budget (budget.Reclaim: it never waits for the
// ring's lock).
func (r *Ring) reclaim(need int64) (int64, string) {
	if !r.mu.TryLock() {
		return 0, ""
	}
	defer r.mu.Unlock()
	var freed int64
	n := 0
	for r.first < r.next && freed < max(need, reclaimStep) {
		freed += r.buf[r.first%uint64(len(r.buf))].Cost()
		r.dropLocked()
		n++
	}
	return freed, fmt.Sprintf("the %d oldest entries of %s's log", n, r.name)
}

// Close drops every entry, gives their bytes back to the budget and leaves
// its reclaimers; the ring stays usable.
func (r *Ring) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.first < r.next {
		r.dropLocked()
	}
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
}

// Detach gives the entries' bytes back to the budget and leaves its
// reclaimers, keeping the entries for the readers that still hold the
// ring: its owner is done with it (devicelog.Logs.Close). Entries appended
// afterwards are bounded by the ring alone.
func (r *Ring) Detach() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.budget.Give(r.bytes)
	r.budget = nil
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
}

// Bounds returns the oldest sequence still held and the sequence the next
// entry will get; the ring holds [first, next).
func (r *Ring) Bounds() (first, next uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first, r.next
}

// Len is the number of entries held.
func (r *Ring) Len() int {
	first, next := r.Bounds()
	return int(next - first)
}

// Read appends to dst up to max entries (all when max <= 0) with sequence
// >= from, oldest first, and returns them, the sequence to read from next
// time, and how many entries from `from` on were already dropped.
func (r *Ring) Read(dst []Entry, from uint64, max int) (out []Entry, next uint64, missed uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := r.first
	if from < first {
		missed = first - from
		from = first
	}
	end := r.next
	if max > 0 && end-from > uint64(max) {
		end = from + uint64(max)
	}
	n := uint64(len(r.buf))
	for s := from; s < end; s++ {
		dst = append(dst, r.buf[s%n])
	}
	return dst, end, missed
}

// Changed returns a channel closed at the next Append.
func (r *Ring) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}
