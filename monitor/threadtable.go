package monitor

import (
	"slices"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
)

// threadTable is a session's thread table: rows sorted by id and updated in
// place, so that a THST reply (which lists threads in id order) costs one
// pass over the rows and publishing costs one copy, no sort and no map.
// Guarded by the session's mu.
type threadTable struct {
	rows []Thread     // sorted by ID, no two alike
	meta []threadMeta // parallel to rows
	// gen counts the THST replies applied; meta.seen == gen marks the rows
	// the current reply listed (a thread it does not list is gone).
	gen uint32
	// cpuTime is the input time of the last THST reply; cpuScale turns a
	// thread's ticks since the reply before into CPU%.
	cpuTime  time.Time
	cpuScale float64
	family   ddm.VMFamily       // of the last THST reply
	fresh    []ddm.ThreadStatus // scratch: entries of a reply that are not rows yet
	// base is the time meta.changed counts from (the first THST reply's).
	base time.Time
}

// threadMeta is what the table keeps beside a row.
type threadMeta struct {
	seen uint32 // the THST reply (gen) that last listed the thread
	// thst: a THST reply set the row's Status, whose State (the name) is
	// brought up to date by sync, not per reply; changed is when a reply
	// last changed Status (ns since the table's base).
	thst    bool
	changed int64
	// total is utime+stime at the latest reply that listed the thread (if
	// sampled); before is what total was before that reply (if beforeOK).
	sampled, beforeOK bool
	total, before     int
}

func (t *threadTable) len() int { return len(t.rows) }

// find returns the index of the row with id, or where it would be inserted.
func (t *threadTable) find(id uint64) (int, bool) {
	return searchID(t.rows, 0, id)
}

// searchID is a binary search for id in rows[lo:] (sorted by ID).
func searchID(rows []Thread, lo int, id uint64) (int, bool) {
	hi := len(rows)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rows[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(rows) && rows[lo].ID == id
}

// get returns the row with id, valid until the table next changes shape.
func (t *threadTable) get(id uint64) *Thread {
	if i, ok := t.find(id); ok {
		t.sync(i)
		return &t.rows[i]
	}
	return nil
}

// sync brings row i's State (and Changed) up to its Status, if a THST
// reply set that: the name is looked up here, at the rate rows are read,
// not for every entry of every reply. Changed is when the reply that
// changed Status came, if the name changed with it.
func (t *threadTable) sync(i int) {
	m := &t.meta[i]
	if !m.thst {
		return
	}
	th := &t.rows[i]
	if state := ddm.StatusName(t.family, th.Status); state != th.State {
		th.State = state
		th.Changed = t.base.Add(time.Duration(m.changed))
	}
}

// insert adds th, whose id is not in the table, at its place. An id past
// the last (how VMs number new threads) is appended; another moves the
// rows after it (at most the thread cap of them).
func (t *threadTable) insert(th Thread) {
	i, _ := t.find(th.ID)
	t.rows = slices.Insert(t.rows, i, th)
	t.meta = slices.Insert(t.meta, i, threadMeta{})
}

// remove deletes the row with id, if any.
func (t *threadTable) remove(id uint64) {
	if i, ok := t.find(id); ok {
		t.rows = slices.Delete(t.rows, i, i+1)
		t.meta = slices.Delete(t.meta, i, i+1)
	}
}

// replace makes rows (any order; of equal ids the last counts) the table,
// forgetting what was known beside the old rows.
func (t *threadTable) replace(rows []Thread) {
	slices.SortStableFunc(rows, func(a, b Thread) int { return cmpID(a.ID, b.ID) })
	rows = dedupLast(rows, func(th *Thread) uint64 { return th.ID })
	t.rows = rows
	t.meta = slices.Grow(t.meta[:0], len(rows))[:len(rows)]
	clear(t.meta)
}

// snapshot copies the rows for the store: already in id order. CPU% is
// worked out here, at the rate tables are published, from the utime+stime
// of the last two replies that listed each thread.
func (t *threadTable) snapshot() []Thread {
	for i := range t.rows {
		t.sync(i)
	}
	out := make([]Thread, len(t.rows))
	copy(out, t.rows)
	for i := range out {
		if m := &t.meta[i]; m.beforeOK && m.total >= m.before {
			out[i].CPUPercent, out[i].CPUKnown = float64(m.total-m.before)*t.cpuScale, true
		}
	}
	return out
}

func cmpID(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// dedupLast keeps, of each run of equal keys in sorted s, the last element.
func dedupLast[T any](s []T, key func(*T) uint64) []T {
	if len(s) < 2 {
		return s
	}
	w := 0
	for r := 1; r < len(s); r++ {
		if key(&s[r]) != key(&s[w]) {
			w++
		}
		s[w] = s[r]
	}
	return s[:w+1]
}

// applyTHST makes the table what a THST reply received at now lists: rows
// updated in place, threads it does not list removed, new ones inserted
// while the table has fewer than maxThreads rows (lowest ids first), and
// CPU% from each thread's utime+stime since the previous reply that listed
// it (none for a thread new since, or on the first reply). THST lists
// threads in id order, so each entry is found at a cursor that moves
// forward; an entry out of order is found by binary search. It reports
// whether the cap refused a thread. Nothing is allocated unless the table
// grows.
func (t *threadTable) applyTHST(entries *ddm.ThreadStatusEntries, family ddm.VMFamily, now time.Time, maxThreads int) (refused bool) {
	t.gen++
	if t.gen == 0 { // wrapped: old marks could alias new ones
		clear(t.meta)
		t.gen = 1
	}
	g := t.gen
	elapsed := now.Sub(t.cpuTime).Seconds()
	cpuOK := !t.cpuTime.IsZero() && elapsed > 0
	t.cpuScale = 100 / ticksPerSecond / elapsed // percent per tick
	t.cpuTime = now
	// A row's State is named by sync (when the table is read), from the
	// Status set here; a reply only notes when Status changed, without a
	// branch on it (which changes unpredictably).
	sameFamily := family == t.family
	t.family = family
	if t.base.IsZero() {
		t.base = now
	}
	nowOff := int64(now.Sub(t.base))
	rows, meta := t.rows, t.meta
	fresh := t.fresh[:0]
	listed, i := 0, 0
	for k, n := 0, entries.Len(); k < n; k++ {
		eid, estatus, etid, eutime, estime, edaemon := entries.Fields(k)
		id := uint64(eid)
		if i >= len(rows) || rows[i].ID != id {
			j, ok := 0, false
			if i < len(rows) && rows[i].ID < id {
				j, ok = searchID(rows, i+1, id) // a thread before it is gone
			} else {
				j, ok = searchID(rows, 0, id) // out of order
			}
			if !ok {
				fresh = append(fresh, entries.At(k))
				continue
			}
			i = j
		}
		th, m := &rows[i], &meta[i]
		status := int(estatus)
		changed := m.changed
		if status != th.Status {
			changed = nowOff
		}
		if !m.thst || !sameFamily { // the row's State is another source's, or names
			changed = nowOff //           of another family
		}
		m.changed, m.thst = changed, true
		th.Status, th.Source = status, SourceDDM
		th.SysTID, th.UTime, th.STime, th.Daemon = int(etid), int(eutime), int(estime), edaemon
		// CPU% (worked out by snapshot) from utime+stime since the previous
		// reply, if it listed the thread (a thread THCR added has no sample).
		if m.seen != g {
			m.seen = g
			m.before, m.beforeOK = m.total, m.sampled && cpuOK
			m.sampled = true
			listed++
		}
		m.total = th.UTime + th.STime
		i++
	}
	// A thread absent from THST is gone even if THDE was missed.
	if listed < len(rows) {
		w := 0
		for r := range rows {
			if meta[r].seen == g {
				rows[w], meta[w] = rows[r], meta[r]
				w++
			}
		}
		clear(rows[w:]) // no strings kept alive past the end
		rows, meta = rows[:w], meta[:w]
	}
	if len(fresh) > 0 {
		if !slices.IsSortedFunc(fresh, cmpStatus) {
			slices.SortStableFunc(fresh, cmpStatus)
		}
		fresh = dedupLast(fresh, func(e *ddm.ThreadStatus) uint64 { return uint64(e.ID) })
		if room := max(maxThreads-len(rows), 0); len(fresh) > room {
			fresh, refused = fresh[:room], true
		}
		rows, meta = t.merge(rows, meta, fresh, family, now, nowOff, g)
	}
	t.rows, t.meta, t.fresh = rows, meta, fresh[:0]
	return refused
}

func cmpStatus(a, b ddm.ThreadStatus) int { return cmpID(uint64(a.ID), uint64(b.ID)) }

// merge inserts the new threads of fresh (sorted, ids not in rows) into
// rows, from the back so that each row moves once.
func (t *threadTable) merge(rows []Thread, meta []threadMeta, fresh []ddm.ThreadStatus, family ddm.VMFamily, now time.Time, nowOff int64, g uint32) ([]Thread, []threadMeta) {
	n, f := len(rows), len(fresh)
	rows = slices.Grow(rows, f)[:n+f]
	meta = slices.Grow(meta, f)[:n+f]
	r, w := n-1, n+f-1
	for k := f - 1; k >= 0; w-- {
		e := &fresh[k]
		if r >= 0 && rows[r].ID > uint64(e.ID) {
			rows[w], meta[w] = rows[r], meta[r]
			r--
			continue
		}
		state := ddm.StatusName(family, int(e.Status))
		rows[w] = Thread{ID: uint64(e.ID), Status: int(e.Status), State: state, SysTID: int(e.SysTID),
			UTime: int(e.UTime), STime: int(e.STime), Daemon: e.Daemon, Created: now, Changed: now, Source: SourceDDM}
		meta[w] = threadMeta{seen: g, thst: true, changed: nowOff, sampled: true, total: int(e.UTime) + int(e.STime)} // no CPU% yet
		k--
	}
	return rows, meta
}
