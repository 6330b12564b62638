// Package profileview is the terminal viewer of a method-trace profile
// (trace.Profile): a sortable method table with inclusive and exclusive time
// on each clock the trace has, a Traceview-like drill-down into each
// method's callers and callees, a per-thread summary that doubles as a
// thread filter, a substring filter, and a `?` help screen generated from the
// key table (tui/keymap).
//
// View is a tview.Primitive that fits into a larger dashboard; Run shows a
// profile full screen in its own application. Every name that comes from a
// trace file goes through safetext before it reaches tview.
package profileview

import (
	"cmp"
	"github.com/ddmtui/ddmtui/internal/textfilter"
	"slices"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/trace"
)

// SortKey is the column the method table is ordered by.
type SortKey int

// Sort keys.
const (
	SortInclusive SortKey = iota
	SortExclusive
	SortCalls
	SortName
)

func (k SortKey) String() string {
	switch k {
	case SortExclusive:
		return "exclusive"
	case SortCalls:
		return "calls"
	case SortName:
		return "name"
	}
	return "inclusive"
}

// methodRows lists the methods of g to show: every method with activity
// except the top level whose name (class.method signature) passes filter
// (textfilter: a case-insensitive substring, a leading ! inverts), ordered by key on clock c (descending for times and
// calls, ascending for names; reversed when reverse is set), ties by name.
func methodRows(p *trace.Profile, g *trace.Graph, filter string, key SortKey, c trace.Clock, reverse bool) []int32 {
	f := textfilter.Parse(filter)
	rows := make([]int32, 0, len(g.Methods))
	stats := make(map[int32]*trace.MethodStats, len(g.Methods))
	for i := range g.Methods {
		ms := &g.Methods[i]
		if ms.Index == trace.TopLevel {
			continue
		}
		if !f.All() && !f.MatchLower(strings.ToLower(searchText(p, ms.Index))) {
			continue
		}
		rows = append(rows, ms.Index)
		stats[ms.Index] = ms
	}
	slices.SortStableFunc(rows, func(a, b int32) int {
		sa, sb := stats[a], stats[b]
		var r int
		switch key {
		case SortInclusive:
			r = cmp.Compare(sb.Inclusive[c], sa.Inclusive[c])
		case SortExclusive:
			r = cmp.Compare(sb.Exclusive[c], sa.Exclusive[c])
		case SortCalls:
			r = cmp.Compare(sb.Calls, sa.Calls)
		}
		if r == 0 {
			r = cmp.Compare(p.Name(a), p.Name(b))
		}
		if r == 0 {
			r = cmp.Compare(a, b)
		}
		if reverse {
			r = -r
		}
		return r
	})
	return rows
}

func searchText(p *trace.Profile, i int32) string {
	return p.Name(i) + " " + p.Methods[i].Signature
}

// callsText is Traceview's "calls+recursive calls".
func callsText(s trace.Stats) string {
	if s.RecursiveCalls == 0 {
		return strconv.FormatInt(s.Calls, 10)
	}
	return strconv.FormatInt(s.Calls-s.RecursiveCalls, 10) + "+" + strconv.FormatInt(s.RecursiveCalls, 10)
}

// millis formats µs as milliseconds with three decimals, as Traceview does.
func millis(us uint64) string {
	return strconv.FormatFloat(float64(us)/1000, 'f', 3, 64)
}

// percent formats part/whole as "12.3%"; an empty whole gives "-".
func percent(part, whole uint64) string {
	if whole == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(part)*100/float64(whole), 'f', 1, 64) + "%"
}

// clockLabel is the short column label of a clock of p.
func clockLabel(p *trace.Profile, c trace.Clock) string {
	if p != nil && p.Sampling != nil {
		if c == trace.ClockWall {
			return "Time"
		}
		return "Samples"
	}
	if c == trace.ClockWall {
		return "Wall"
	}
	return "CPU"
}

// unitTitle is a values column's clock and unit: "CPU ms", "Samples".
func unitTitle(p *trace.Profile, c trace.Clock) string {
	if p.ValueUnit(c) != "" {
		return clockLabel(p, c)
	}
	return clockLabel(p, c) + " ms"
}

// edgeRows orders edges by inclusive time on c, descending, then by name of
// the other end.
func edgeRows(p *trace.Profile, edges []trace.Edge, other func(trace.Edge) int32, c trace.Clock) []trace.Edge {
	out := slices.Clone(edges)
	slices.SortStableFunc(out, func(a, b trace.Edge) int {
		if r := cmp.Compare(b.Inclusive[c], a.Inclusive[c]); r != 0 {
			return r
		}
		return cmp.Compare(p.Name(other(a)), p.Name(other(b)))
	})
	return out
}
