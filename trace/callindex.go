package trace

import (
	"sort"
)

// CallIndex is one thread's calls ordered by time, for a call chart (x =
// time, y = depth) and for call trees over a time range. Calls are kept in
// the order they were entered, so a call's callees follow it; ByDepth lists
// the calls of each depth, which do not overlap, so both their starts and
// their ends ascend and a time window is found by binary search. It is
// built by a ProfileBuilder with BuildOptions.CallIndex: 28 bytes per call.
type CallIndex struct {
	Calls   []IndexedCall
	ByDepth [][]int32 // ByDepth[d]: indexes in Calls of the calls at depth d (0: called with an empty stack)
	// First and Last are the thread's first and last record times.
	First, Last [2]uint32
	// Calls that have no place in time: exits with an empty stack (their
	// entry is before the trace) and exits of methods not on the stack.
	FromStart, Ignored int64
}

// IndexedCall is one call: entry and exit time per clock (a call still
// open at the end exits at the thread's last time), method (profile index)
// and caller (index in CallIndex.Calls, -1 at the top level).
type IndexedCall struct {
	Start, End [2]uint32
	Method     int32
	Parent     int32
}

func (ix *CallIndex) enter(m, parent int32, depth int, t [2]uint64) int32 {
	id := int32(len(ix.Calls))
	st := [2]uint32{uint32(t[0]), uint32(t[1])}
	ix.Calls = append(ix.Calls, IndexedCall{Start: st, End: st, Method: m, Parent: parent})
	for len(ix.ByDepth) <= depth {
		ix.ByDepth = append(ix.ByDepth, nil)
	}
	ix.ByDepth[depth] = append(ix.ByDepth[depth], id)
	return id
}

func (ix *CallIndex) exit(id int32, t [2]uint64) {
	ix.Calls[id].End = [2]uint32{uint32(t[0]), uint32(t[1])}
}

func (ix *CallIndex) finish(first, last [2]uint64) {
	ix.First = [2]uint32{uint32(first[0]), uint32(first[1])}
	ix.Last = [2]uint32{uint32(last[0]), uint32(last[1])}
	// Trim the appends' spare capacity: the index lives as long as the view.
	ix.Calls = ix.Calls[:len(ix.Calls):len(ix.Calls)]
}

func (ix *CallIndex) swapClocks() {
	sw := func(a *[2]uint32) { a[0], a[1] = a[1], a[0] }
	for i := range ix.Calls {
		sw(&ix.Calls[i].Start)
		sw(&ix.Calls[i].End)
	}
	sw(&ix.First)
	sw(&ix.Last)
}

// Depth is the number of depths that have calls.
func (ix *CallIndex) Depth() int { return len(ix.ByDepth) }

// Visible calls visit with the calls at depth that overlap [from, to) on
// clock c, in order of time, without walking the others: where several
// calls fall into one cell of width cell (µs; the time one column of a chart
// covers), only the first of them is visited, together with the time up to
// which it stands for the calls it hides. So a row costs
// O(cells × log calls), whatever the zoom.
func (ix *CallIndex) Visible(c Clock, depth int, from, to, cell uint32, visit func(id int32, until uint32)) {
	if depth < 0 || depth >= len(ix.ByDepth) || to <= from {
		return
	}
	row := ix.ByDepth[depth]
	cell = max(cell, 1)
	i := sort.Search(len(row), func(k int) bool { return ix.Calls[row[k]].End[c] > from || ix.Calls[row[k]].Start[c] >= from })
	for i < len(row) {
		call := &ix.Calls[row[i]]
		if call.Start[c] >= to {
			return
		}
		// The call covers its own time and, if narrower than a cell, the
		// rest of the cell it starts in.
		until := call.End[c]
		if s := max(call.Start[c], from); until-s < cell {
			cellEnd := from + ((s-from)/cell+1)*cell
			if cellEnd < from { // wrapped
				cellEnd = ^uint32(0)
			}
			until = max(until, cellEnd)
		}
		// Hide the calls that end inside that span; a longer one that
		// starts there is visited next.
		j := ix.firstEndAfter(row, i+1, c, until)
		visit(row[i], until)
		i = j
	}
}

// firstEndAfter returns the first index from j on in row whose call ends
// after t: a galloping search, as it is most often a few steps away.
func (ix *CallIndex) firstEndAfter(row []int32, j int, c Clock, t uint32) int {
	lo, hi, step := j, j, 1
	for hi < len(row) && ix.Calls[row[hi]].End[c] <= t {
		lo = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(row))
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ix.Calls[row[mid]].End[c] <= t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// RangeTree builds the top-down tree of the thread's calls clipped to
// [from, to) on clock c: each call counts with the part of its time inside
// the range, and its self time is that minus its callees' parts. Only clock
// c is filled in; the root's inclusive time is the thread's traced time
// inside the range. Calls without a place in time (FromStart) are left out.
func (ix *CallIndex) RangeTree(c Clock, from, to uint32) *CallTree {
	t := newCallTree()
	t.FromStart, t.Ignored = ix.FromStart, ix.Ignored
	clip := func(s, e uint32) uint64 {
		s, e = max(s, from), min(e, to)
		if e <= s {
			return 0
		}
		return uint64(e - s)
	}
	var all [2]uint64
	all[c] = clip(ix.First[c], ix.Last[c])
	t.setInclusive(0, all)
	t.addSelf(0, true, all)
	var locals localNumbers
	type open struct{ call, node int32 }
	var stack []open
	for id := range ix.Calls {
		call := &ix.Calls[id]
		if call.Start[c] >= to {
			break // entry order: every later call starts later
		}
		if call.End[c] <= from && call.Start[c] < from {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].call != call.Parent {
			stack = stack[:len(stack)-1]
		}
		parent := int32(0)
		if len(stack) > 0 {
			parent = stack[len(stack)-1].node
		} else if call.Parent >= 0 {
			continue // its caller ended before the range: nothing of it is inside
		}
		n := t.child(parent, locals.of(call.Method), call.Method)
		el := clip(call.Start[c], call.End[c]) // < 2³²: inside one call of the thread
		var d [2]uint64
		d[c] = el
		t.addCall(n, d)
		t.addSelf(n, parent == 0, d)
		if s, ok := t.self[parent]; ok { // kept for the root and its children only
			s[c] -= min(uint32(el), s[c])
			t.self[parent] = s
		}
		stack = append(stack, open{int32(id), n})
	}
	t.done(nil)
	return t
}

// localNumbers numbers profile method indexes densely from 1, in order of
// first use, for CallTree.child.
type localNumbers struct {
	dense  []int32 // index+1 for method indexes below maxDenseSlots
	sparse map[int32]int32
	n      int32
}

func (l *localNumbers) of(m int32) int32 {
	if m >= 0 && m < maxDenseSlots {
		if int(m) >= len(l.dense) {
			l.dense = append(l.dense, make([]int32, int(m)+1-len(l.dense))...)
		}
		if l.dense[m] == 0 {
			l.n++
			l.dense[m] = l.n
		}
		return l.dense[m]
	}
	if l.sparse == nil {
		l.sparse = map[int32]int32{}
	}
	k, ok := l.sparse[m]
	if !ok {
		l.n++
		k = l.n
		l.sparse[m] = k
	}
	return k
}
