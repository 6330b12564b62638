// Package dumpview is the terminal viewer of a SIGQUIT / ANR thread dump
// (threaddump.Dump): a process selector when the file holds several
// processes, a thread table coloured by state like the dashboard's, the
// selected thread's stack with its lock lines, a red banner naming each
// deadlock cycle (with a key to jump to its threads), a line saying where the
// main thread is stuck, sorting, a `/` filter and a `?` help screen generated
// from the key table (tui/keymap).
//
// View is a tview.Primitive that fits into a larger dashboard; Run shows a
// dump full screen in its own application. Every string that comes from a
// dump goes through safetext before it reaches tview.
package dumpview

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/internal/textfilter"
	"github.com/ddmtui/ddmtui/threaddump"
)

// SortKey is the order of the thread table.
type SortKey int

// Sort keys.
const (
	SortDump  SortKey = iota // as listed in the dump
	SortName                 // by name
	SortTID                  // by VM thread id (unattached threads by sysTid, after)
	SortState                // by state class, most telling first (see threaddump.ClassOrder)
	SortCPU                  // by utm+stm, highest first
)

func (k SortKey) String() string {
	switch k {
	case SortName:
		return "name"
	case SortTID:
		return "tid"
	case SortState:
		return "state"
	case SortCPU:
		return "cpu"
	}
	return "dump order"
}

// matches reports whether thread t passes filter: a case-insensitive
// substring of its name, state, state class, tid or sysTid; a leading "!"
// inverts the filter.
func matches(t *threaddump.Thread, filter string) bool {
	info := t.StateInfo()
	return textfilter.Match(filter, t.Name, info.Name, info.Class, "tid="+strconv.Itoa(t.TID), "systid="+strconv.Itoa(t.SysTID))
}

// threadRows returns the indices of p's threads to show, filtered and
// sorted; ties keep dump order (reversed with the rest).
func threadRows(p *threaddump.Process, filter string, key SortKey, reverse bool) []int {
	rows := make([]int, 0, len(p.Threads))
	for i, t := range p.Threads {
		if matches(t, filter) {
			rows = append(rows, i)
		}
	}
	rank := make(map[string]int, len(threaddump.ClassOrder))
	for i, c := range threaddump.ClassOrder {
		rank[c] = i
	}
	compare := func(a, b int) int {
		ta, tb := p.Threads[a], p.Threads[b]
		switch key {
		case SortName:
			return cmp.Or(cmp.Compare(strings.ToLower(ta.Name), strings.ToLower(tb.Name)), cmp.Compare(ta.Name, tb.Name))
		case SortTID:
			return cmp.Or(cmp.Compare(boolRank(ta.Unattached), boolRank(tb.Unattached)), cmp.Compare(ta.TID, tb.TID), cmp.Compare(ta.SysTID, tb.SysTID))
		case SortState:
			ia, ib := ta.StateInfo(), tb.StateInfo()
			return cmp.Or(cmp.Compare(rank[ia.Class], rank[ib.Class]), cmp.Compare(ia.Name, ib.Name))
		case SortCPU:
			return cmp.Compare(tb.CPU(), ta.CPU())
		}
		return 0
	}
	slices.SortFunc(rows, func(a, b int) int {
		c := cmp.Or(compare(a, b), cmp.Compare(a, b))
		if reverse {
			c = -c
		}
		return c
	})
	return rows
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
