package logcat

import "sync"

// DefaultRingSize is how many entries a device's Ring keeps by default.
const DefaultRingSize = 200_000

// Ring is a device's bounded log history. Entries get increasing sequence
// numbers (from 1); a reader keeps the sequence it has seen and asks for
// what came after, so views can follow the log without the ring knowing
// them. When the ring is full the oldest entries are dropped; a reader that
// fell behind learns how many it missed. Append runs the Classifier, so
// entries in a ring carry their crash and stack-trace flags. Safe for
// concurrent use.
type Ring struct {
	mu      sync.Mutex
	buf     []Entry
	next    uint64 // sequence of the next entry
	class   Classifier
	changed chan struct{}
}

// NewRing returns a ring of capacity entries (DefaultRingSize when <= 0).
func NewRing(capacity int) *Ring {
	if capacity <= 0 {
		capacity = DefaultRingSize
	}
	return &Ring{buf: make([]Entry, capacity), next: 1, changed: make(chan struct{})}
}

// Cap is the ring's capacity.
func (r *Ring) Cap() int { return len(r.buf) }

// Append classifies e, stores it with the next sequence number, and returns
// that number.
func (r *Ring) Append(e Entry) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.class.Classify(&e)
	e.Seq = r.next
	r.buf[r.next%uint64(len(r.buf))] = e
	r.next++
	close(r.changed)
	r.changed = make(chan struct{})
	return e.Seq
}

// Bounds returns the oldest sequence still held and the sequence the next
// entry will get; the ring holds [first, next).
func (r *Ring) Bounds() (first, next uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.firstLocked(), r.next
}

func (r *Ring) firstLocked() uint64 {
	if n := uint64(len(r.buf)); r.next > n {
		return r.next - n
	}
	return 1
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
	first := r.firstLocked()
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
