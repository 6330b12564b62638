package allocs

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// GroupBy chooses how entries are grouped.
type GroupBy int

// Groupings.
const (
	ByClass  GroupBy = iota // allocated class
	BySite                  // allocation site: the innermost frame
	ByStack                 // the whole stack
	ByThread                // allocating thread
	Flat                    // no grouping: one row per entry
)

// Groupings lists every GroupBy in the order a view cycles through them.
var Groupings = []GroupBy{ByClass, BySite, ByStack, ByThread, Flat}

func (g GroupBy) String() string {
	switch g {
	case ByClass:
		return "class"
	case BySite:
		return "site"
	case ByStack:
		return "stack"
	case ByThread:
		return "thread"
	case Flat:
		return "flat"
	}
	return "GroupBy(" + strconv.Itoa(int(g)) + ")"
}

// ParseGroupBy parses a GroupBy's String form.
func ParseGroupBy(s string) (GroupBy, error) {
	for _, g := range Groupings {
		if strings.EqualFold(s, g.String()) {
			return g, nil
		}
	}
	return 0, fmt.Errorf("unknown grouping %q (want class, site, stack, thread or flat)", s)
}

// Group is a set of entries sharing a class, site, stack or thread.
type Group struct {
	By GroupBy
	// Key identifies the group: the class; the site's text; the whole
	// stack, one frame's text a line; the thread id in decimal.
	Key string
	// Class is the allocated class for ByClass, else the class allocated
	// most often in the group (ties: the first by name).
	Class string
	// Site is the allocation site for BySite and ByStack, else the site
	// seen most often in the group (ties: the first by text).
	Site string
	// Frames are the group's frames: the site frame (BySite) or the whole
	// stack (ByStack); nil for the other groupings and for NoSite.
	Frames   []Frame
	ThreadID uint16 // ByThread
	Count    int
	Bytes    uint64
	Newest   int   // the highest Entry.Index in the group
	Entries  []int // positions in Table.Entries, newest first
}

// Mean is the mean allocation size in bytes.
func (g *Group) Mean() float64 {
	if g.Count == 0 {
		return 0
	}
	return float64(g.Bytes) / float64(g.Count)
}

// Groups groups the entries at the given positions (as Filter returns
// them). The groups come sorted by SortCount; Flat gives nil.
func (t *Table) Groups(by GroupBy, rows []int) []Group {
	if by == Flat {
		return nil
	}
	index := map[string]int{}
	var groups []Group
	for _, i := range rows {
		e := &t.Entries[i]
		st := &t.stacks[e.stack]
		var key string
		switch by {
		case ByClass:
			key = e.Class
		case BySite:
			key = st.site
		case ByStack:
			key = stackKey(st)
		case ByThread:
			key = strconv.Itoa(int(e.ThreadID))
		}
		gi, ok := index[key]
		if !ok {
			gi = len(groups)
			index[key] = gi
			g := Group{By: by, Key: key}
			switch by {
			case ByClass:
				g.Class = key
			case BySite:
				g.Site = key
				if len(st.frames) > 0 {
					g.Frames = st.frames[:1:1]
				}
			case ByStack:
				g.Site = st.site
				if len(st.frames) > 0 {
					g.Frames = st.frames
				}
			case ByThread:
				g.ThreadID = e.ThreadID
			}
			groups = append(groups, g)
		}
		g := &groups[gi]
		g.Count++
		g.Bytes += uint64(e.Size)
		g.Newest = max(g.Newest, e.Index)
		g.Entries = append(g.Entries, i)
	}
	for gi := range groups {
		g := &groups[gi]
		slices.SortFunc(g.Entries, func(a, b int) int { return cmp.Compare(t.Entries[b].Index, t.Entries[a].Index) })
		if g.Class == "" {
			g.Class = commonest(g.Entries, func(i int) string { return t.Entries[i].Class })
		}
		if g.Site == "" {
			g.Site = commonest(g.Entries, t.Site)
		}
	}
	SortGroups(groups, SortCount, false)
	return groups
}

// stackKey is the whole stack as text, a frame a line.
func stackKey(st *stackInfo) string {
	if len(st.frames) == 0 {
		return NoSite
	}
	parts := make([]string, len(st.frames))
	for i, f := range st.frames {
		parts[i] = f.String()
	}
	return strings.Join(parts, "\n")
}

// commonest returns the most frequent value of key over rows, the smallest
// such value on a tie.
func commonest(rows []int, key func(int) string) string {
	counts := map[string]int{}
	best, bestN := "", 0
	for _, i := range rows {
		k := key(i)
		counts[k]++
		if n := counts[k]; n > bestN || (n == bestN && k < best) {
			best, bestN = k, n
		}
	}
	return best
}

// SortKey is the order of groups or entries.
type SortKey int

// Sort keys. Counts and sizes sort largest first, names A→Z, order newest
// first; reverse turns any of them around.
const (
	SortCount SortKey = iota // groups: most allocations; entries: as SortOrder
	SortBytes                // groups: most bytes; entries: largest
	SortMean                 // groups: largest mean size; entries: largest
	SortName                 // groups: Key (thread ids by number); entries: class
	SortSite                 // groups: Site; entries: their site
	SortOrder                // groups: most recent allocation; entries: newest
)

func (k SortKey) String() string {
	switch k {
	case SortCount:
		return "count"
	case SortBytes:
		return "bytes"
	case SortMean:
		return "mean"
	case SortName:
		return "name"
	case SortSite:
		return "site"
	case SortOrder:
		return "order"
	}
	return "SortKey(" + strconv.Itoa(int(k)) + ")"
}

// ParseSortKey parses a SortKey's String form.
func ParseSortKey(s string) (SortKey, error) {
	for k := SortCount; k <= SortOrder; k++ {
		if strings.EqualFold(s, k.String()) {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown sort key %q (want count, bytes, mean, name, site or order)", s)
}

// SortGroups sorts groups by key; ties are broken by count, bytes and then
// key, so the order is total.
func SortGroups(groups []Group, key SortKey, reverse bool) {
	slices.SortStableFunc(groups, func(a, b Group) int {
		var c int
		switch key {
		case SortCount:
			c = cmp.Compare(b.Count, a.Count)
		case SortBytes:
			c = cmp.Compare(b.Bytes, a.Bytes)
		case SortMean:
			c = cmp.Compare(b.Mean(), a.Mean())
		case SortName:
			if a.By == ByThread {
				c = cmp.Compare(a.ThreadID, b.ThreadID)
			} else {
				c = cmp.Compare(a.Key, b.Key)
			}
		case SortSite:
			c = cmp.Compare(a.Site, b.Site)
		case SortOrder:
			c = cmp.Compare(b.Newest, a.Newest)
		}
		c = cmp.Or(c, cmp.Compare(b.Count, a.Count), cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Key, b.Key))
		if reverse {
			c = -c
		}
		return c
	})
}

// SortEntries sorts positions in t.Entries by key; ties are broken by
// allocation order, newest first.
func (t *Table) SortEntries(rows []int, key SortKey, reverse bool) {
	slices.SortFunc(rows, func(i, j int) int {
		a, b := &t.Entries[i], &t.Entries[j]
		var c int
		switch key {
		case SortBytes, SortMean:
			c = cmp.Compare(b.Size, a.Size)
		case SortName:
			c = cmp.Compare(a.Class, b.Class)
		case SortSite:
			c = cmp.Compare(t.Site(i), t.Site(j))
		}
		c = cmp.Or(c, cmp.Compare(b.Index, a.Index))
		if reverse {
			c = -c
		}
		return c
	})
}

// Sum returns the number of entries at rows and their total size.
func (t *Table) Sum(rows []int) (count int, bytes uint64) {
	for _, i := range rows {
		bytes += uint64(t.Entries[i].Size)
	}
	return len(rows), bytes
}

// StackCount is one distinct stack among a set of entries.
type StackCount struct {
	Frames []Frame
	Count  int
	Bytes  uint64
	Newest int // highest Entry.Index with this stack
}

// StacksOf returns the distinct stacks of the entries at rows, the most
// frequent first (ties: the most recent first).
func (t *Table) StacksOf(rows []int) []StackCount {
	index := map[int32]int{}
	var out []StackCount
	for _, i := range rows {
		e := &t.Entries[i]
		k, ok := index[e.stack]
		if !ok {
			k = len(out)
			index[e.stack] = k
			out = append(out, StackCount{Frames: e.Frames})
		}
		s := &out[k]
		s.Count++
		s.Bytes += uint64(e.Size)
		s.Newest = max(s.Newest, e.Index)
	}
	slices.SortFunc(out, func(a, b StackCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(b.Newest, a.Newest))
	})
	return out
}
