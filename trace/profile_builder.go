package trace

import (
	"fmt"
)

// BuildOptions configure a ProfileBuilder.
type BuildOptions struct {
	Limits Limits
	// CallTree builds each thread's calling-context tree (ThreadProfile.Tree),
	// which folded-stack export needs.
	CallTree bool
	// CallIndex keeps every call's start, end, method and caller, per
	// thread (ThreadProfile.Index), for the call chart and for trees over
	// a time range: 20 bytes per call, so only the viewer asks for it.
	CallIndex bool
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
	// layout is the buffer the threads' trees are laid out through, one
	// after the other (CallTree.done).
	layout layoutBuffer
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
	index     *CallIndex
	// profile is set by finish, when the thread has no more records.
	profile *ThreadProfile
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
	call   int32 // in the call index; -1 for none
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
	if b.opt.CallIndex {
		ts.index = &CallIndex{}
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
		s := ts.local.add(newLocalMethod(m))
		ts.slotDense[m] = s + 1
		return s
	}
	s, added := ts.slotOf.getOrPut(uint64(m), int32(ts.local.len()))
	if added {
		ts.local.add(newLocalMethod(m))
	}
	return s
}

// newLocalMethod is a thread's first entry for method m: no cached callers.
func newLocalMethod(m int32) localMethod {
	return localMethod{method: m, lastCaller: [2]int32{-1, -1}}
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
		m := r.Method + firstKeyMethod
		if r.Method < 0 {
			m = Unknown
		}
		if err := b.add(r.Thread, m, [2]uint64{uint64(r.Time[0]), uint64(r.Time[1])}, r.Action, r.Offset); err != nil {
			return err
		}
	}
	b.records += int64(len(recs))
	return nil
}

// add processes one record of thread id: profile method index m, time t,
// at file offset off. It does not count the record in b.records.
func (b *ProfileBuilder) add(id uint32, m int32, t [2]uint64, action Action, off int64) error {
	ts := b.cur
	if ts == nil || ts.id != id {
		ts = b.thread(id)
		b.cur = ts
	}
	if ts.records == 0 {
		ts.first, ts.last = t, t
		ts.firstAt = off
	} else if t[0] < ts.last[0] || t[1] < ts.last[1] {
		b.warn(WarnTimeBackwards, off, "thread %d: time %d/%d is before the previous record's %d/%d; using the previous", id, t[0], t[1], ts.last[0], ts.last[1])
		t[0], t[1] = max(t[0], ts.last[0]), max(t[1], ts.last[1])
	}
	ts.records++
	delta := [2]uint64{t[0] - ts.last[0], t[1] - ts.last[1]}
	if action == Enter {
		if err := b.enter(ts, m, t, delta, off); err != nil {
			return err
		}
	} else {
		if action == ActionReserved {
			b.warn(WarnReservedAction, off, "action 3 read as an exit")
		}
		if !b.exit(ts, m, t, delta, off) {
			return nil // ignored record: the time stays with the running frame
		}
	}
	ts.last = t
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
		ts.tree.addSelf(parentNode, len(ts.stack) <= 1, delta)
	}
	s := ts.slot(m)
	lm := ts.local.at(s)
	f := frame{entry: t, method: m, slot: s, below: lm.onStack, call: -1}
	if ts.tree != nil {
		f.node = ts.tree.child(parentNode, s+1, m)
	}
	if ts.index != nil {
		parentCall := int32(-1)
		if n := len(ts.stack); n > 0 {
			parentCall = ts.stack[n-1].call
		}
		f.call = ts.index.enter(m, parentCall, len(ts.stack), t)
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
		f := frame{method: m, slot: s, below: lm.onStack, call: -1}
		if ts.tree != nil {
			f.node = ts.tree.child(0, s+1, m)
			ts.tree.addSelf(f.node, true, delta)
			ts.tree.FromStart++
		}
		if ts.index != nil {
			ts.index.FromStart++
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
			if ts.tree != nil {
				ts.tree.Ignored++
			}
			if ts.index != nil {
				ts.index.Ignored++
			}
			return false
		}
		b.warn(WarnMismatchedExit, off, "thread %d: exit from %s while %s is on top; %d frames without exits closed here", ts.id, b.methodName(m), b.methodName(ts.stack[n-1].method), n-1-k)
		top := &ts.stack[n-1]
		lm := ts.local.at(top.slot)
		lm.Exclusive[0] += delta[0]
		lm.Exclusive[1] += delta[1]
		if ts.tree != nil {
			ts.tree.addSelf(top.node, n <= 1, delta)
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
		ts.tree.addSelf(top.node, len(ts.stack) <= 1, delta)
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
	if f.call >= 0 {
		ts.index.exit(f.call, t)
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

// closeOpen closes the calls still open at the end of each thread, at that
// thread's last time (inclusive only, as dmtracedump).
func (b *ProfileBuilder) closeOpen() {
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
}

// finish builds the thread's profile (its open calls closed) into
// ts.profile and lets its working state go; its tree is laid out through
// layout.
func (ts *threadState) finish(layout *layoutBuffer) {
	tp := ThreadProfile{ID: uint32(ts.id), Records: ts.records, First: ts.first, Last: ts.last, Tree: ts.tree, Index: ts.index}
	if ts.tree != nil {
		ts.tree.setInclusive(0, [2]uint64{ts.last[0] - ts.first[0], ts.last[1] - ts.first[1]})
		ts.tree.done(layout)
	}
	if ts.index != nil {
		ts.index.finish(ts.first, ts.last)
	}
	top := MethodStats{Index: TopLevel}
	top.Inclusive = [2]uint64{ts.last[0] - ts.first[0], ts.last[1] - ts.first[1]}
	top.Exclusive = ts.topSelf
	tp.Methods = make([]MethodStats, 0, ts.local.len()+1)
	tp.Methods = append(tp.Methods, top)
	for lm := range ts.local.all {
		tp.Methods = append(tp.Methods, MethodStats{Index: lm.method, Stats: lm.Stats})
	}
	tp.Edges = make([]Edge, 0, ts.edges.len())
	for e := range ts.edges.all {
		tp.Edges = append(tp.Edges, *e)
	}
	ts.local, ts.edges, ts.slotOf, ts.edgeOf, ts.slotDense = paged[localMethod]{}, paged[Edge]{}, indexTable{}, indexTable{}, nil
	tp.index()
	ts.profile = &tp
}

// Finish closes the calls still open at the end of each thread (at that
// thread's last time, inclusive only, as dmtracedump) and returns the
// profile. The builder must not be used afterwards.
func (b *ProfileBuilder) Finish() *Profile {
	b.closeOpen()
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
		if ts.profile == nil {
			ts.finish(&b.layout)
		}
		tp := *ts.profile
		ts.profile = nil
		for i := range tp.Methods {
			ms := &tp.Methods[i]
			addStats(&all[ms.Index], &ms.Stats)
			active[ms.Index] = true
		}
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
		recordThreads = append(recordThreads, tp)
		keyOf = append(keyOf, -1)
	}
	b.layout = layoutBuffer{}
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
		if ix := p.Threads[i].Index; ix != nil {
			ix.swapClocks()
		}
	}
}
