package trace

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sync"
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
	Graph
	// Tree is the calling-context tree, when BuildOptions.CallTree was set.
	Tree *CallTree
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

// BuildOptions configure a ProfileBuilder.
type BuildOptions struct {
	Limits Limits
	// CallTree builds each thread's calling-context tree (ThreadProfile.Tree),
	// which folded-stack export needs.
	CallTree bool
	// OnCall, if set, is called for every call when it ends, in the order of
	// the records (inner calls before outer ones); calls open at the end of
	// the trace come last. The Chrome export uses it. The *Call is reused:
	// copy it to keep it.
	OnCall func(*Call)
}

// ProfileBuilder computes a Profile from records, one batch at a time, in
// memory proportional to the number of distinct methods, edges and threads
// (not records).
type ProfileBuilder struct {
	hdr         *Header
	startClocks Clocks
	opt         BuildOptions
	threads     []*threadState
	byID        map[uint32]*threadState
	cur         *threadState
	records     int64
	ws          *Warnings
	ownWarnings Warnings
	part        string
	call        Call
}

type threadState struct {
	id      uint32
	records int64
	first   [2]uint64
	firstAt int64 // offset of the thread's first record (orders shards' threads)
	last    [2]uint64
	topSelf [2]uint64 // time with an empty stack before an entry (dmtracedump's toplevel exclusive)
	stack   []frame
	slotOf  indexTable // profile method index → slot in local, past slotDense
	// slotDense maps profile method indexes below its length to slot+1
	// (0: none yet): a direct array when the method table is not huge.
	slotDense []int32
	local     paged[localMethod]
	edgeOf    indexTable // caller<<32 | callee → index in edges
	edges     paged[Edge]
	tree      *CallTree
}

type localMethod struct {
	method  int32
	onStack int32
	// The edges of this method's last calls from two callers: most calls
	// of a method come from a caller of its recent calls, so this skips
	// the edge table.
	lastCaller, lastEdge [2]int32
	Stats
}

type frame struct {
	entry  [2]uint64
	method int32
	slot   int32 // in threadState.local
	below  int32 // frames of the same method under this one
	node   int32 // call-tree node
}

// NewProfileBuilder returns a builder for records of the trace with header h.
// h may grow while records are read (streaming traces); the builder reads it
// again in Finish.
func NewProfileBuilder(h *Header, opt BuildOptions) *ProfileBuilder {
	opt.Limits = opt.Limits.withDefaults()
	b := &ProfileBuilder{hdr: h, startClocks: h.Clocks, opt: opt, byID: make(map[uint32]*threadState)}
	b.ownWarnings.limit = opt.Limits.MaxWarnings
	b.ws = &b.ownWarnings
	return b
}

func (b *ProfileBuilder) warn(kind WarningKind, off int64, format string, args ...any) {
	b.ws.add(Warning{Kind: kind, Part: b.part, Offset: off, Message: fmt.Sprintf(format, args...)})
}

func (b *ProfileBuilder) thread(id uint32) *threadState {
	if ts := b.byID[id]; ts != nil {
		return ts
	}
	ts := &threadState{id: id}
	if n := firstKeyMethod + len(b.hdr.Methods); n <= maxDenseSlots {
		ts.slotDense = make([]int32, n)
	}
	if b.opt.CallTree {
		ts.tree = newCallTree()
	}
	b.byID[id] = ts
	b.threads = append(b.threads, ts)
	return ts
}

// maxDenseSlots bounds a thread's direct slot array (1 MiB of int32).
const maxDenseSlots = 1 << 18

// slot returns the thread-local slot of profile method m.
func (ts *threadState) slot(m int32) int32 {
	if uint(m) < uint(len(ts.slotDense)) {
		if s := ts.slotDense[m]; s > 0 {
			return s - 1
		}
		s := ts.local.add(localMethod{method: m, lastCaller: [2]int32{-1, -1}})
		ts.slotDense[m] = s + 1
		return s
	}
	s, added := ts.slotOf.getOrPut(uint64(m), int32(ts.local.len()))
	if added {
		ts.local.add(localMethod{method: m, lastCaller: [2]int32{-1, -1}})
	}
	return s
}

func (ts *threadState) edge(caller, callee int32) int32 {
	k, added := ts.edgeOf.getOrPut(uint64(uint32(caller))<<32|uint64(uint32(callee)), int32(ts.edges.len()))
	if added {
		ts.edges.add(Edge{Caller: caller, Callee: callee})
	}
	return k
}

// Add processes records in file order.
func (b *ProfileBuilder) Add(recs []Record) error {
	for i := range recs {
		r := &recs[i]
		ts := b.cur
		if ts == nil || ts.id != r.Thread {
			ts = b.thread(r.Thread)
			b.cur = ts
		}
		m := r.Method + firstKeyMethod
		if r.Method < 0 {
			m = Unknown
		}
		t := [2]uint64{uint64(r.Time[0]), uint64(r.Time[1])}
		if ts.records == 0 {
			ts.first, ts.last = t, t
			ts.firstAt = r.Offset
		} else if t[0] < ts.last[0] || t[1] < ts.last[1] {
			b.warn(WarnTimeBackwards, r.Offset, "thread %d: time %d/%d is before the previous record's %d/%d; using the previous", r.Thread, t[0], t[1], ts.last[0], ts.last[1])
			t[0], t[1] = max(t[0], ts.last[0]), max(t[1], ts.last[1])
		}
		ts.records++
		delta := [2]uint64{t[0] - ts.last[0], t[1] - ts.last[1]}
		if r.Action == Enter {
			if err := b.enter(ts, m, t, delta, r.Offset); err != nil {
				return err
			}
		} else {
			if r.Action == ActionReserved {
				b.warn(WarnReservedAction, r.Offset, "action 3 read as an exit")
			}
			if !b.exit(ts, m, t, delta, r.Offset) {
				continue // ignored record: the time stays with the running frame
			}
		}
		ts.last = t
	}
	b.records += int64(len(recs))
	return nil
}

func (b *ProfileBuilder) enter(ts *threadState, m int32, t, delta [2]uint64, off int64) error {
	if len(ts.stack) >= b.opt.Limits.MaxStackDepth {
		return &FormatError{Part: b.part, Offset: off, What: "method entry", Err: fmt.Errorf("%w: thread %d is more than %d calls deep", ErrLimit, ts.id, b.opt.Limits.MaxStackDepth)}
	}
	parentNode := int32(0)
	if n := len(ts.stack); n > 0 {
		top := &ts.stack[n-1]
		lm := ts.local.at(top.slot)
		lm.Exclusive[0] += delta[0]
		lm.Exclusive[1] += delta[1]
		parentNode = top.node
	} else {
		ts.topSelf[0] += delta[0]
		ts.topSelf[1] += delta[1]
	}
	if ts.tree != nil {
		ts.tree.addSelf(parentNode, delta)
	}
	s := ts.slot(m)
	lm := ts.local.at(s)
	f := frame{entry: t, method: m, slot: s, below: lm.onStack}
	if ts.tree != nil {
		f.node = ts.tree.child(parentNode, m)
	}
	lm.onStack++
	ts.stack = append(ts.stack, f)
	return nil
}

// exit handles an exit or unroll record; it returns false when the record is
// ignored (an exit of a method that is not on the stack at all).
func (b *ProfileBuilder) exit(ts *threadState, m int32, t, delta [2]uint64, off int64) bool {
	n := len(ts.stack)
	if n == 0 {
		// Entered before tracing started: dmtracedump takes the entry time
		// as 0 and the caller as the top level (spec §4).
		b.warn(WarnUnmatchedExit, off, "thread %d: exit from %s with an empty stack; counted from the trace start", ts.id, b.methodName(m))
		s := ts.slot(m)
		lm := ts.local.at(s)
		lm.Exclusive[0] += delta[0]
		lm.Exclusive[1] += delta[1]
		f := frame{method: m, slot: s, below: lm.onStack}
		if ts.tree != nil {
			f.node = ts.tree.child(0, m)
			ts.tree.addSelf(f.node, delta)
		}
		b.complete(ts, &f, TopLevel, 0, t, CallUnmatched)
		return true
	}
	if ts.stack[n-1].method != m {
		// dmtracedump stops here ("does not match stack", exit 1). Unwind to
		// the nearest frame of m, as if the frames above had exited now.
		k := n - 2
		for k >= 0 && ts.stack[k].method != m {
			k--
		}
		if k < 0 {
			b.warn(WarnMismatchedExit, off, "thread %d: exit from %s, which is not on the stack (top is %s); record ignored", ts.id, b.methodName(m), b.methodName(ts.stack[n-1].method))
			return false
		}
		b.warn(WarnMismatchedExit, off, "thread %d: exit from %s while %s is on top; %d frames without exits closed here", ts.id, b.methodName(m), b.methodName(ts.stack[n-1].method), n-1-k)
		top := &ts.stack[n-1]
		lm := ts.local.at(top.slot)
		lm.Exclusive[0] += delta[0]
		lm.Exclusive[1] += delta[1]
		if ts.tree != nil {
			ts.tree.addSelf(top.node, delta)
		}
		delta = [2]uint64{}
		for len(ts.stack) > k+1 {
			b.pop(ts, t, CallUnwound)
		}
	}
	top := &ts.stack[len(ts.stack)-1]
	lm := ts.local.at(top.slot)
	lm.Exclusive[0] += delta[0]
	lm.Exclusive[1] += delta[1]
	if ts.tree != nil {
		ts.tree.addSelf(top.node, delta)
	}
	b.pop(ts, t, CallReturned)
	return true
}

func (b *ProfileBuilder) pop(ts *threadState, t [2]uint64, kind CallKind) {
	n := len(ts.stack)
	f := ts.stack[n-1]
	ts.stack = ts.stack[:n-1]
	ts.local.at(f.slot).onStack--
	caller := TopLevel
	if n >= 2 {
		caller = ts.stack[n-2].method
	}
	b.complete(ts, &f, caller, n-1, t, kind)
}

// complete accounts one call of f.method from caller ending at t
// (dmtracedump addInclusiveTime).
func (b *ProfileBuilder) complete(ts *threadState, f *frame, caller int32, depth int, t [2]uint64, kind CallKind) {
	el := [2]uint64{t[0] - f.entry[0], t[1] - f.entry[1]}
	lm := ts.local.at(f.slot)
	lm.Calls++
	var k int32
	switch caller {
	case lm.lastCaller[0]:
		k = lm.lastEdge[0]
	case lm.lastCaller[1]:
		k = lm.lastEdge[1]
		lm.lastCaller[0], lm.lastCaller[1] = caller, lm.lastCaller[0]
		lm.lastEdge[0], lm.lastEdge[1] = k, lm.lastEdge[0]
	default:
		k = ts.edge(caller, f.method)
		lm.lastCaller[0], lm.lastCaller[1] = caller, lm.lastCaller[0]
		lm.lastEdge[0], lm.lastEdge[1] = k, lm.lastEdge[0]
	}
	e := ts.edges.at(k)
	e.Calls++
	e.Inclusive[0] += el[0]
	e.Inclusive[1] += el[1]
	if f.below == 0 {
		lm.Inclusive[0] += el[0]
		lm.Inclusive[1] += el[1]
	} else {
		lm.RecursiveCalls++
		e.RecursiveCalls++
	}
	if ts.tree != nil {
		ts.tree.addCall(f.node, el)
	}
	if b.opt.OnCall != nil {
		b.call = Call{Thread: ts.id, Method: f.method, Depth: depth, Entry: f.entry, Exit: t, Kind: kind}
		b.opt.OnCall(&b.call)
	}
}

func (b *ProfileBuilder) methodName(m int32) string {
	switch {
	case m == Unknown:
		return "(unknown)"
	case m == TopLevel:
		return "(toplevel)"
	case int(m-firstKeyMethod) < len(b.hdr.Methods):
		return b.hdr.Methods[m-firstKeyMethod].FullName()
	}
	return "(invalid)"
}

// Finish closes the calls still open at the end of each thread (at that
// thread's last time, inclusive only, as dmtracedump) and returns the
// profile. The builder must not be used afterwards.
func (b *ProfileBuilder) Finish() *Profile {
	for _, ts := range b.threads {
		// dmtracedump walks each stack from the bottom; the sums do not
		// depend on the order, but OnCall reports innermost first.
		for len(ts.stack) > 0 {
			n := len(ts.stack)
			f := ts.stack[n-1]
			ts.stack = ts.stack[:n-1]
			caller := TopLevel
			if n >= 2 {
				caller = ts.stack[n-2].method
			}
			b.complete(ts, &f, caller, n-1, ts.last, CallOpen)
		}
	}
	h := b.hdr
	p := &Profile{Header: h, Clocks: h.Clocks, Records: b.records}
	p.Methods = make([]Method, firstKeyMethod+len(h.Methods))
	p.Methods[TopLevel] = Method{Class: "(toplevel)"}
	p.Methods[Unknown] = Method{Class: "(unknown)"}
	copy(p.Methods[firstKeyMethod:], h.Methods)

	all := make([]Stats, len(p.Methods))
	active := make([]bool, len(p.Methods))
	active[TopLevel] = true
	var allEdges indexTable
	var edges []Edge
	keyTaken := make([]bool, len(h.Threads))
	recordThreads := make([]ThreadProfile, 0, len(b.threads))
	keyOf := make([]int, 0, len(b.threads)) // index in h.Threads, -1 for none
	for _, ts := range b.threads {
		tp := ThreadProfile{ID: uint32(ts.id), Records: ts.records, Tree: ts.tree}
		top := MethodStats{Index: TopLevel}
		top.Inclusive = [2]uint64{ts.last[0] - ts.first[0], ts.last[1] - ts.first[1]}
		top.Exclusive = ts.topSelf
		tp.Methods = make([]MethodStats, 0, ts.local.len()+1)
		tp.Methods = append(tp.Methods, top)
		addStats(&all[TopLevel], &top.Stats)
		for lm := range ts.local.all {
			tp.Methods = append(tp.Methods, MethodStats{Index: lm.method, Stats: lm.Stats})
			addStats(&all[lm.method], &lm.Stats)
			active[lm.method] = true
		}
		tp.Edges = make([]Edge, 0, ts.edges.len())
		for e := range ts.edges.all {
			tp.Edges = append(tp.Edges, *e)
		}
		// The thread's working state is done with: let it go before the
		// next thread's profile is built.
		ts.local, ts.edges, ts.slotOf, ts.edgeOf, ts.slotDense = paged[localMethod]{}, paged[Edge]{}, indexTable{}, indexTable{}, nil
		for _, e := range tp.Edges {
			k, added := allEdges.getOrPut(uint64(uint32(e.Caller))<<32|uint64(uint32(e.Callee)), int32(len(edges)))
			if added {
				edges = append(edges, Edge{Caller: e.Caller, Callee: e.Callee})
			}
			ae := &edges[k]
			ae.Calls += e.Calls
			ae.RecursiveCalls += e.RecursiveCalls
			ae.Inclusive[0] += e.Inclusive[0]
			ae.Inclusive[1] += e.Inclusive[1]
		}
		tp.index()
		recordThreads = append(recordThreads, tp)
		keyOf = append(keyOf, -1)
	}
	// Name each record thread from the key: the exact id first, then in a
	// second round a key id whose low 16 bits match (ART-2016 tids, spec §2.2).
	for round := 0; round < 2; round++ {
		for i := range recordThreads {
			if keyOf[i] >= 0 {
				continue
			}
			for k, kt := range h.Threads {
				match := kt.ID == recordThreads[i].ID
				if round == 1 {
					match = kt.ID&0xFFFF == recordThreads[i].ID
				}
				if match && !keyTaken[k] {
					keyOf[i], keyTaken[k] = k, true
					recordThreads[i].ID, recordThreads[i].Name = kt.ID, kt.Name
					break
				}
			}
		}
	}
	// Key order first (threads without records get an empty profile), then
	// threads that only appear in records.
	byKey := make([]int, len(h.Threads))
	for k := range byKey {
		byKey[k] = -1
	}
	for i, k := range keyOf {
		if k >= 0 {
			byKey[k] = i
		}
	}
	for k, kt := range h.Threads {
		if i := byKey[k]; i >= 0 {
			p.Threads = append(p.Threads, recordThreads[i])
			continue
		}
		tp := ThreadProfile{ID: kt.ID, Name: kt.Name}
		tp.Methods = []MethodStats{{Index: TopLevel}}
		p.Threads = append(p.Threads, tp)
	}
	for i, k := range keyOf {
		if k < 0 {
			p.Threads = append(p.Threads, recordThreads[i])
		}
	}

	for i := range all {
		if active[i] {
			p.All.Methods = append(p.All.Methods, MethodStats{Index: int32(i), Stats: all[i]})
		}
	}
	p.All.Edges = edges
	p.All.index()
	if b.startClocks == CPUOnly && h.Clocks == WallOnly {
		p.swapClocks()
	}
	p.Warnings = *b.ws
	return p
}

func addStats(dst, s *Stats) {
	dst.Calls += s.Calls
	dst.RecursiveCalls += s.RecursiveCalls
	for c := range 2 {
		dst.Inclusive[c] += s.Inclusive[c]
		dst.Exclusive[c] += s.Exclusive[c]
	}
}

// swapClocks moves every value from the CPU slot to the wall slot: for
// streaming single-clock traces whose summary names the clock only at the
// end (spec §5).
func (p *Profile) swapClocks() {
	swapGraph := func(g *Graph) {
		for i := range g.Methods {
			s := &g.Methods[i].Stats
			s.Inclusive[0], s.Inclusive[1] = s.Inclusive[1], s.Inclusive[0]
			s.Exclusive[0], s.Exclusive[1] = s.Exclusive[1], s.Exclusive[0]
		}
		for i := range g.Edges {
			e := &g.Edges[i]
			e.Inclusive[0], e.Inclusive[1] = e.Inclusive[1], e.Inclusive[0]
		}
	}
	swapGraph(&p.All)
	for i := range p.Threads {
		swapGraph(&p.Threads[i].Graph)
		if t := p.Threads[i].Tree; t != nil {
			t.swapClocks()
		}
	}
}

// recordBatch is how many records ReadProfile decodes at a time.
const recordBatch = 1024

// Build reads every record of rd into a profile. For a trace whose header
// is complete before the records (not streaming), decoding runs on its own
// goroutine, a few batches ahead of the profile, so two cores share the
// work; the result is the same as reading and profiling in turn.
func Build(rd *Reader, opt BuildOptions) (*Profile, error) {
	if !rd.hdr.Streaming && rd.v2 == nil {
		return buildPipelined(rd, opt)
	}
	b := NewProfileBuilder(rd.Header(), opt)
	b.part = rd.part
	b.ws = rd.Warnings()
	batch := make([]Record, recordBatch)
	for {
		n, err := rd.Read(batch)
		if n > 0 {
			if berr := b.Add(batch[:n]); berr != nil {
				return nil, berr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	p := b.Finish()
	p.UnknownMethodIDs = rd.UnknownMethodIDs()
	return p, nil
}

// pipelineBatches is how many record batches are in flight between the
// decoding goroutine and the profile.
const pipelineBatches = 4

type decodedBatch struct {
	recs []Record
	n    int
	err  error
}

func buildPipelined(rd *Reader, opt BuildOptions) (*Profile, error) {
	if opt.OnCall == nil {
		return buildSharded(rd, opt)
	}
	b := NewProfileBuilder(rd.Header(), opt)
	b.part = rd.part
	free := make(chan []Record, pipelineBatches)
	full := make(chan decodedBatch, pipelineBatches)
	done := make(chan struct{})
	for range pipelineBatches {
		free <- make([]Record, recordBatch)
	}
	go func() {
		defer close(full)
		for {
			var recs []Record
			select {
			case recs = <-free:
			case <-done:
				return
			}
			n, err := rd.Read(recs)
			full <- decodedBatch{recs: recs, n: n, err: err}
			if err != nil {
				return
			}
		}
	}()
	stop := func() {
		close(done)
		for range full { // let the decoder finish its batch and exit
		}
	}
	for d := range full {
		if d.n > 0 {
			if err := b.Add(d.recs[:d.n]); err != nil {
				stop()
				return nil, err
			}
		}
		if d.err == io.EOF {
			break
		}
		if d.err != nil {
			stop()
			return nil, d.err
		}
		free <- d.recs
	}
	p := b.Finish()
	p.Warnings = mergeWarnings(rd.Warnings(), &p.Warnings)
	p.UnknownMethodIDs = rd.UnknownMethodIDs()
	return p, nil
}

// profileShards is how many goroutines profile a trace's threads (each
// thread belongs to one, in turn by first appearance).
const profileShards = 2

// buildSharded decodes on one goroutine and profiles on profileShards
// others, each owning every profileShards-th thread to appear: per-thread
// work needs nothing from other threads, and each goroutine's tables are
// half as large. The shards' threads and warnings are merged in file order,
// so the profile is the one a single builder makes. (Calls reported to
// OnCall would come out of order, so that option stays on one builder.)
func buildSharded(rd *Reader, opt BuildOptions) (*Profile, error) {
	type shardBatch struct {
		recs []Record
		n    int
	}
	var builders [profileShards]*ProfileBuilder
	var in [profileShards]chan shardBatch
	var free [profileShards]chan []Record
	var errs [profileShards]error
	done := make(chan struct{})
	var wg sync.WaitGroup
	for k := range builders {
		b := NewProfileBuilder(rd.Header(), opt)
		b.part = rd.part
		builders[k] = b
		in[k] = make(chan shardBatch, pipelineBatches)
		free[k] = make(chan []Record, pipelineBatches)
		for range pipelineBatches {
			free[k] <- make([]Record, recordBatch)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sb := range in[k] {
				if errs[k] == nil {
					errs[k] = b.Add(sb.recs[:sb.n])
				}
				free[k] <- sb.recs
			}
		}()
	}
	// Decode here, and deal each record to its thread's shard.
	batch := make([]Record, recordBatch)
	shardOf := make(map[uint32]int)
	var out [profileShards][]Record
	send := func(k int) bool {
		select {
		case in[k] <- shardBatch{recs: out[k], n: len(out[k])}:
			out[k] = nil
			return true
		case <-done:
			return false
		}
	}
	var readErr error
	lastThread, lastShard := uint32(0), -1
	for readErr == nil {
		n, err := rd.Read(batch)
		for i := range batch[:n] {
			r := &batch[i]
			k := lastShard
			if r.Thread != lastThread || k < 0 {
				var ok bool
				if k, ok = shardOf[r.Thread]; !ok {
					k = len(shardOf) % profileShards
					shardOf[r.Thread] = k
				}
				lastThread, lastShard = r.Thread, k
			}
			if out[k] == nil {
				out[k] = (<-free[k])[:0]
			}
			out[k] = append(out[k], *r)
			if len(out[k]) == recordBatch {
				send(k)
			}
		}
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
	}
	for k := range out {
		if len(out[k]) > 0 {
			send(k)
		}
		close(in[k])
	}
	wg.Wait()
	close(done)
	if readErr != nil {
		return nil, readErr
	}
	// The first error in file order, as one builder would have stopped at.
	var first error
	var firstOff int64
	for _, err := range errs {
		if err == nil {
			continue
		}
		off := int64(-1)
		if fe, ok := err.(*FormatError); ok {
			off = fe.Offset
		}
		if first == nil || off < firstOff {
			first, firstOff = err, off
		}
	}
	if first != nil {
		return nil, first
	}
	m := NewProfileBuilder(rd.Header(), opt)
	m.part = rd.part
	ws := *rd.Warnings()
	for _, b := range builders {
		m.threads = append(m.threads, b.threads...)
		m.records += b.records
		ws = mergeWarnings(&ws, b.ws)
	}
	slices.SortStableFunc(m.threads, func(a, b *threadState) int { return cmp.Compare(a.firstAt, b.firstAt) })
	m.ws = &ws
	p := m.Finish()
	p.UnknownMethodIDs = rd.UnknownMethodIDs()
	return p, nil
}

// mergeWarnings combines two sets of warnings (the reader's and a
// profile's, or two profile shards') into one list in file order, keeping
// the first few of each kind as one set would: key warnings first, then
// data warnings by offset, r's first at equal offsets.
func mergeWarnings(r, b *Warnings) Warnings {
	out := Warnings{limit: r.limit}
	for k := range out.Counts {
		out.Counts[k] = r.Counts[k] + b.Counts[k]
	}
	out.List = make([]Warning, 0, len(r.List)+len(b.List))
	lim := out.limit
	if lim == 0 {
		lim = PerKindLimit
	}
	var kept [warnKinds]int
	keep := func(w Warning) {
		if int(w.Kind) < len(kept) && kept[w.Kind] < lim {
			kept[w.Kind]++
			out.List = append(out.List, w)
		}
	}
	i, j := 0, 0
	for i < len(r.List) || j < len(b.List) {
		switch {
		case j == len(b.List):
			keep(r.List[i])
			i++
		case i == len(r.List):
			keep(b.List[j])
			j++
		case r.List[i].Part != b.List[j].Part || r.List[i].Offset <= b.List[j].Offset:
			keep(r.List[i])
			i++
		default:
			keep(b.List[j])
			j++
		}
	}
	return out
}

// ReadProfile parses a trace file (key and data, or a streaming trace) and
// profiles it.
func ReadProfile(r io.Reader, opt BuildOptions) (*Profile, error) {
	rd, err := NewReader(r, opt.Limits)
	if err != nil {
		return nil, err
	}
	return Build(rd, opt)
}

// ReadProfileSplit profiles a trace whose key and data are separate files.
func ReadProfileSplit(key, data io.Reader, opt BuildOptions) (*Profile, error) {
	rd, err := NewSplitReader(key, data, opt.Limits)
	if err != nil {
		return nil, err
	}
	return Build(rd, opt)
}
