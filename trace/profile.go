package trace

import (
	"slices"
)

// Indexes of the two pseudo-methods at the start of Profile.Methods, as in
// dmtracedump (TOPLEVEL_INDEX, UNKNOWN_INDEX).
const (
	// TopLevel is the caller of every call made with an empty stack; its
	// inclusive time is the thread's traced time (last − first record).
	TopLevel int32 = 0
	// Unknown stands for every method id that is not in the key.
	Unknown int32 = 1
	// firstKeyMethod is the profile index of Header.Methods[0].
	firstKeyMethod = 2
)

// Stats are a method's totals, in µs per Clock (only the profile's clocks
// are filled). The definitions are dmtracedump's (spec §4):
//   - Inclusive counts only outermost calls: a recursive call's time is
//     already inside its outer call's.
//   - Exclusive is the time the method was on top of the stack, in every
//     frame, recursive or not; so Exclusive ≤ Inclusive.
//   - Calls counts every call, RecursiveCalls those made while the method was
//     already on the stack.
type Stats struct {
	Calls          int64
	RecursiveCalls int64
	Inclusive      [2]uint64
	Exclusive      [2]uint64
}

// MethodStats are the stats of the method at profile index Index.
type MethodStats struct {
	Index int32
	Stats
}

// Edge is a caller → callee pair: the calls the callee received from that
// caller, the recursive ones among them, and the time of those calls
// (inclusive, every call counted, as dmtracedump's parent/child lists).
type Edge struct {
	Caller, Callee int32 // profile indexes; Caller is TopLevel for calls with an empty stack
	Calls          int64
	RecursiveCalls int64
	Inclusive      [2]uint64
}

// Graph is a method table and call graph for one thread or all of them.
type Graph struct {
	Methods  []MethodStats // methods with any activity, by ascending Index; TopLevel first
	Edges    []Edge        // by ascending (Caller, Callee)
	byCallee []int32       // indexes into Edges, by (Callee, Caller)
}

// Stats returns the stats of method i (zero when it had no activity).
func (g *Graph) Stats(i int32) Stats {
	k, ok := slices.BinarySearchFunc(g.Methods, i, func(m MethodStats, i int32) int { return int(m.Index) - int(i) })
	if !ok {
		return Stats{}
	}
	return g.Methods[k].Stats
}

// Total is the traced time per clock: for each thread, its last record's
// time minus its first one's, summed ("Total cycles" in dmtracedump).
func (g *Graph) Total() [2]uint64 { return g.Stats(TopLevel).Inclusive }

// Callees returns the edges from method i to the methods it called.
func (g *Graph) Callees(i int32) []Edge {
	lo, _ := slices.BinarySearchFunc(g.Edges, i, func(e Edge, i int32) int { return int(e.Caller) - int(i) })
	hi := lo
	for hi < len(g.Edges) && g.Edges[hi].Caller == i {
		hi++
	}
	return g.Edges[lo:hi]
}

// Callers returns the edges into method i from its callers.
func (g *Graph) Callers(i int32) []Edge {
	lo, _ := slices.BinarySearchFunc(g.byCallee, i, func(k int32, i int32) int { return int(g.Edges[k].Callee) - int(i) })
	var out []Edge
	for k := lo; k < len(g.byCallee) && g.Edges[g.byCallee[k]].Callee == i; k++ {
		out = append(out, g.Edges[g.byCallee[k]])
	}
	return out
}

func (g *Graph) index() {
	slices.SortFunc(g.Methods, func(a, b MethodStats) int { return int(a.Index) - int(b.Index) })
	slices.SortFunc(g.Edges, func(a, b Edge) int {
		if a.Caller != b.Caller {
			return int(a.Caller) - int(b.Caller)
		}
		return int(a.Callee) - int(b.Callee)
	})
	g.byCallee = make([]int32, len(g.Edges))
	for i := range g.byCallee {
		g.byCallee[i] = int32(i)
	}
	slices.SortFunc(g.byCallee, func(a, b int32) int {
		ea, eb := &g.Edges[a], &g.Edges[b]
		if ea.Callee != eb.Callee {
			return int(ea.Callee) - int(eb.Callee)
		}
		return int(ea.Caller) - int(eb.Caller)
	})
}

// ThreadProfile is the profile of one thread.
type ThreadProfile struct {
	ID      uint32 // the key's id when the key names the thread, else the records' id
	Name    string // from the key; empty when the key does not name it
	Records int64
	// First and Last are the times of its first and last records, µs on
	// each clock (0 when it has none).
	First, Last [2]uint64
	Graph
	// Tree is the calling-context tree, when BuildOptions.CallTree was set.
	Tree *CallTree
	// Index is the thread's calls by time, when BuildOptions.CallIndex
	// was set.
	Index *CallIndex
}

// Profile is the analysis of a whole trace.
type Profile struct {
	Header *Header
	Clocks Clocks
	// Methods is indexed by profile index: TopLevel, Unknown, then the key's
	// methods in key order (Header.Methods[i] is Methods[i+2]).
	Methods []Method
	// All is the profile of every thread together.
	All Graph
	// Threads: threads named in the key, in key order, then threads that
	// only appear in records, in order of their first record.
	Threads          []ThreadProfile
	Records          int64
	UnknownMethodIDs []uint32
	Warnings         Warnings
}

// Name returns "class.method" for profile index i.
func (p *Profile) Name(i int32) string {
	if i < 0 || int(i) >= len(p.Methods) {
		return "(invalid)"
	}
	return p.Methods[i].FullName()
}

// Span is the whole trace's time on the wall clock: from the first record
// of any thread to the last one of any thread (µs), and false when the
// trace has no wall clock or no records. Graph.Total is a sum over the
// threads, each from its own first record to its last: with 28 threads in
// a 3.5 s capture it can say 98 s. The thread-CPU clock has no whole-trace
// span (each thread's counter is its own).
func (p *Profile) Span() (uint64, bool) {
	if !p.Clocks.Has(ClockWall) {
		return 0, false
	}
	var lo, hi uint64
	seen := false
	for i := range p.Threads {
		tp := &p.Threads[i]
		if tp.Records == 0 {
			continue
		}
		if !seen || tp.First[ClockWall] < lo {
			lo = tp.First[ClockWall]
		}
		hi = max(hi, tp.Last[ClockWall])
		seen = true
	}
	return hi - lo, seen
}

// ThreadsWithRecords counts the threads that have records (those Total
// sums over).
func (p *Profile) ThreadsWithRecords() int {
	n := 0
	for i := range p.Threads {
		if p.Threads[i].Records > 0 {
			n++
		}
	}
	return n
}

// Thread returns the profile of the thread with key or record id id.
func (p *Profile) Thread(id uint32) *ThreadProfile {
	for i := range p.Threads {
		if p.Threads[i].ID == id {
			return &p.Threads[i]
		}
	}
	return nil
}

// CallKind says how a call reported to BuildOptions.OnCall ended.
type CallKind uint8

// Kinds of calls.
const (
	CallReturned  CallKind = iota // an exit record matched its entry
	CallUnmatched                 // an exit with an empty stack: entered before tracing; Entry is 0
	CallUnwound                   // popped because an exit further down the stack had no match
	CallOpen                      // still on the stack at the end; Exit is the thread's last time
)

// Call is one completed call, as reported to BuildOptions.OnCall.
type Call struct {
	Thread      uint32
	Method      int32 // profile index
	Depth       int   // 0 for a call made with an empty stack
	Entry, Exit [2]uint64
	Kind        CallKind
}
