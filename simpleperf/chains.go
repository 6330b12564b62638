package simpleperf

import "fmt"

// Call chains of a stream read with rawChains become methods
// (frameMethod's) in two steps, one on each of Load's goroutines, decoding
// only what a thread's previous sample did not have: a thread's
// consecutive samples share their outer frames, and the entries of a
// shared frame are the same bytes at the same distance from the chain's
// end (the root). The reading side (chainBytes) compares the entries from
// the root with the previous sample's, byte for byte, and hands on how
// many are the same and the bytes of the others; the building side
// (chainMethods) decodes (and checks) those and interns them.

// chainBytes keeps each thread's previous call chain as bytes.
type chainBytes struct {
	threads threadsOf[prevBytes]
}

type prevBytes struct {
	bytes []byte  // its entries (as Reader.chainBytes)
	ends  []int32 // (as Reader.chainEnds)
}

// split returns how many of the entries of rd's current sample, from the
// root, are those of its thread's previous sample, and keeps the sample
// as the thread's previous one. The others are the first n−same entries:
// rd.chainBytes[:entryStart(rd.chainEnds, n−same)].
func (c *chainBytes) split(rd *Reader) int {
	t := c.threads.of(rd.Sample.ThreadID)
	cur, ends := rd.chainBytes, rd.chainEnds
	n, pn := len(ends), len(t.ends)
	total, ptotal := int32(len(cur)), int32(len(t.bytes))
	// The entries whose bounds match, from the root; then their bytes:
	// the k outermost entries are the same when the bytes from the
	// first of them to the end are, so all of them at once (a repeated
	// stack), else all but the leaf (a thread's next sample most often
	// differs at its leaf only), else the largest such k by halves.
	same := 0
	for same < n && same < pn && total-entryStart(ends, n-1-same) == ptotal-entryStart(t.ends, pn-1-same) {
		same++
	}
	sameBytes := func(k int) bool {
		d := total - entryStart(ends, n-k)
		return string(cur[total-d:]) == string(t.bytes[ptotal-d:])
	}
	if same > 0 && !sameBytes(same) {
		lo, hi := 0, same-1 // sameBytes(lo) holds; the answer is in [lo, hi]
		if sameBytes(hi) {
			lo = hi
		} else {
			hi--
		}
		for lo < hi {
			if mid := (lo + hi + 1) / 2; sameBytes(mid) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		same = lo
	}
	t.ends = append(t.ends[:0], ends...)
	t.bytes = append(t.bytes[:0], cur...)
	return same
}

// chainMethods keeps each thread's previous stack as methods.
type chainMethods struct {
	fm      frameMethod
	threads threadsOf[[]int32]
	scratch Frame
}

// stack returns the methods of a sample of thread, root first: the first
// same of its previous sample's, then those of the entries raw (leaf
// first, ending at ends), decoded; valid until the thread's next sample.
func (c *chainMethods) stack(thread int32, same int, raw []byte, ends []int32) ([]int32, error) {
	t := c.threads.of(thread)
	st := (*t)[:same]
	for i := len(ends) - 1; i >= 0; i-- {
		f := &c.scratch
		if err := decodeFrame(f, entryBody(raw[entryStart(ends, i):ends[i]])); err != nil {
			return nil, fmt.Errorf("sample.callchain[%d]: %w", i, err)
		}
		st = append(st, c.fm.of(f))
	}
	*t = st
	return st, nil
}

func entryStart(ends []int32, i int) int32 {
	if i == 0 {
		return 0
	}
	return ends[i-1]
}

// threadsOf keeps a T per thread id: the first few in a list searched
// in a line (a recording's busy threads take turns, so the last one looked
// up is seldom the next), the others in a map.
type threadsOf[T any] struct {
	ids  []int32
	list []*T
	byID map[int32]*T
}

// threadsListed is how many threads threadsOf keeps in its list.
const threadsListed = 16

func (m *threadsOf[T]) of(id int32) *T {
	for i, x := range m.ids {
		if x == id {
			return m.list[i]
		}
	}
	if t := m.byID[id]; t != nil {
		return t
	}
	t := new(T)
	if len(m.ids) < threadsListed {
		m.ids, m.list = append(m.ids, id), append(m.list, t)
		return t
	}
	if m.byID == nil {
		m.byID = map[int32]*T{}
	}
	m.byID[id] = t
	return t
}
