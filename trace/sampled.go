package trace

import "strconv"

// Sampled profiles (issue 36): stack samples fed into the same call-tree
// model as method traces, so the viewer's tabs, the time range, the JSON,
// folded and Chrome exports serve both. A sampled profile's two "clocks"
// are its two weights: ClockCPU counts samples, ClockWall sums the
// samples' event counts (µs of CPU for cpu-clock and task-clock); a node's
// inclusive weight is that of the samples whose stack starts with its path,
// its self weight that of the samples whose stack is its path. Calls are 0:
// samples see no calls. The call index (call charts, trees over a time
// range) puts on ClockWall the wall time of the samples (µs since the
// profile's first sample; a sample stands for the EventTime before it) and
// on ClockCPU the thread's sample number.

// Sampling describes a profile made from samples rather than a method
// trace; Profile.Sampling is nil for method traces.
type Sampling struct {
	Samples    int64  // samples loaded
	EventCount uint64 // their event counts summed, in the source's unit
	Event      string // the event sampled ("cpu-clock")
	Unit       string // the unit of ClockWall's weights ("µs", or "events")
	// Scale divides the event counts for ClockWall's weights (1000: ns
	// to µs), applied to each call path's self weight once the tree is
	// finished, so that a sample's fraction of a µs is not lost; 0 or 1
	// for none.
	Scale     uint64
	Skipped   int64  // samples left out (documented by the reader)
	Lost      uint64 // samples the kernel lost
	Backward  int64  // samples whose time went backwards on their thread (placed at the previous time)
	Truncated int64  // call chains cut at SampleOptions.MaxDepth
	// IndexDropped: the call indexes passed SampleOptions.MaxIndexCalls
	// and were let go (no call chart, no trees over a time range).
	IndexDropped bool
	JavaMethods  []bool // by profile method index: the frame is a Java method
}

// SampleOptions configure a SampleBuilder.
type SampleOptions struct {
	// CallIndex keeps each thread's frames by time (call charts, trees
	// over a time range): a call per run of consecutive samples that share
	// a frame at the same depth under the same caller.
	CallIndex bool
	// MaxDepth cuts call chains to their outermost MaxDepth frames
	// (default 1 Mi); cut chains are counted in Sampling.Truncated.
	MaxDepth int
	// MaxIndexCalls bounds the calls of all call indexes together
	// (default DefaultMaxIndexCalls, 28 bytes each); past it the indexes
	// are dropped and Sampling.IndexDropped set.
	MaxIndexCalls int
}

// DefaultMaxIndexCalls is the default SampleOptions.MaxIndexCalls: about
// 60 MB of index (and the slices' growth).
const DefaultMaxIndexCalls = 1 << 21

// SampleBuilder builds a Profile from samples, one thread's samples in
// time order. A thread's tree grows by its distinct paths only: the
// path of the previous sample is kept, so a sample finds its nodes by
// walking down from where its stack starts to differ, and only the
// leaf's weight is added (inclusive weights are summed when the tree is
// finished, a pass over the nodes).
type SampleBuilder struct {
	opt      SampleOptions
	threads  []*sampledThread
	byID     map[uint32]int32
	layout   layoutBuffer
	sampling Sampling
	// indexCalls counts the calls of all indexes (SampleOptions.MaxIndexCalls).
	indexCalls int
}

// dropIndexes lets every call index go, for good: they passed their budget.
func (b *SampleBuilder) dropIndexes() {
	for _, ts := range b.threads {
		ts.index, ts.calls = nil, nil
	}
	b.opt.CallIndex = false
	b.sampling.IndexDropped = true
}

type sampledThread struct {
	id      uint32
	tree    *CallTree
	local   localNumbers
	methods []int32 // the previous sample's stack, root first
	nodes   []int32 // its nodes
	same    int     // how many of them the last place kept
	scratch []int32
	samples int64
	first   uint64 // µs of the first sample
	last    uint64 // µs at which the previous sample ended
	index   *CallIndex
	calls   []int32 // the open calls of the index, root first
}

// NewSampleBuilder returns an empty builder.
func NewSampleBuilder(opt SampleOptions) *SampleBuilder {
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = 1 << 20
	}
	if opt.MaxIndexCalls <= 0 {
		opt.MaxIndexCalls = DefaultMaxIndexCalls
	}
	return &SampleBuilder{opt: opt, byID: map[uint32]int32{}}
}

func (b *SampleBuilder) thread(id uint32) *sampledThread {
	// The first threads are searched in a line: a recording's busy
	// threads take turns, and a map lookup a sample is most of a
	// thread lookup's cost.
	for _, ts := range b.threads[:min(len(b.threads), 16)] {
		if ts.id == id {
			return ts
		}
	}
	if k, ok := b.byID[id]; ok {
		return b.threads[k]
	}
	ts := &sampledThread{id: id, tree: newCallTree()}
	if b.opt.CallIndex {
		ts.index = &CallIndex{}
	}
	b.byID[id] = int32(len(b.threads))
	b.threads = append(b.threads, ts)
	return ts
}

// Add adds a sample of thread: its stack leaf first (profile method
// indexes, the caller's numbering; not kept), taken at time µs
// (any origin, the same for every thread) and standing for the eventTime
// µs before it (for the call index), with weight event (its event count in
// the profile's unit).
func (b *SampleBuilder) Add(thread uint32, leafFirst []int32, at, eventTime, event uint64) {
	ts := b.thread(thread)
	ts.scratch = ts.scratch[:0]
	for i := len(leafFirst) - 1; i >= 0; i-- {
		ts.scratch = append(ts.scratch, leafFirst[i])
	}
	b.add(ts, ts.scratch, at, eventTime, event)
}

// AddRootFirst is Add with the stack root first (not kept either).
func (b *SampleBuilder) AddRootFirst(thread uint32, rootFirst []int32, at, eventTime, event uint64) {
	b.add(b.thread(thread), rootFirst, at, eventTime, event)
}

func (b *SampleBuilder) add(ts *sampledThread, rootFirst []int32, at, eventTime, event uint64) {
	b.sampling.Samples++
	b.sampling.EventCount += event
	if len(rootFirst) > b.opt.MaxDepth {
		rootFirst = rootFirst[:b.opt.MaxDepth]
		b.sampling.Truncated++
	}
	node := b.place(ts, rootFirst)
	// During growth a node's inclusive field holds its self weight.
	ts.tree.addWeight(node, [2]uint64{1, event})
	ts.samples++
	if ts.index != nil {
		n := len(ts.index.Calls)
		b.index(ts, ts.same, at, eventTime)
		b.indexCalls += len(ts.index.Calls) - n
		if b.indexCalls > b.opt.MaxIndexCalls {
			b.dropIndexes()
		}
	}
}

// addWeight adds w to node's (self) weight while a sampled tree grows.
func (t *CallTree) addWeight(node int32, w [2]uint64) {
	nd := t.nodes.at(node)
	if s0, s1 := uint64(nd.inclusive[0])+w[0], uint64(nd.inclusive[1])+w[1]; s0 < maxTime && s1 < maxTime && nd.inclusive[0] != maxTime && nd.inclusive[1] != maxTime {
		nd.inclusive = [2]uint32{uint32(s0), uint32(s1)}
		return
	}
	t.setInclusive(node, [2]uint64{t.Inclusive(node, 0) + w[0], t.Inclusive(node, 1) + w[1]})
}

// index extends the thread's calls by a sample whose first same frames
// (from the root) continue the previous sample's calls.
func (b *SampleBuilder) index(ts *sampledThread, same int, at, eventTime uint64) {
	ix := ts.index
	start := at - min(at, eventTime)
	if ts.samples == 1 {
		ts.first = start
		ts.last = start
	}
	if at < ts.last {
		b.sampling.Backward++
		at = ts.last
	}
	start = max(start, ts.last)
	// Samples on clock 0 are the thread's sample numbers.
	t0 := [2]uint64{uint64(ts.samples - 1), start}
	t1 := [2]uint64{uint64(ts.samples), at}
	// A call's end is written when it exits (the previous sample's end)
	// or when the thread is finished, not at every sample it spans.
	for len(ts.calls) > same {
		ix.exit(ts.calls[len(ts.calls)-1], [2]uint64{uint64(ts.samples - 1), ts.last})
		ts.calls = ts.calls[:len(ts.calls)-1]
	}
	for d := same; d < len(ts.methods); d++ {
		parent := int32(-1)
		if d > 0 {
			parent = ts.calls[d-1]
		}
		c := ix.enter(ts.methods[d], parent, d, t0)
		ix.Calls[c].End = [2]uint32{uint32(t1[0]), uint32(t1[1])}
		ts.calls = append(ts.calls, c)
	}
	ts.last = at
}

// Finish lays out the threads' trees and returns the profile. methods
// names the profile's method indexes (TopLevel and Unknown are set here);
// name names threads (empty for unknown). The builder must not be used
// afterwards.
func (b *SampleBuilder) Finish(methods []Method, info Sampling, name func(id uint32) string) *Profile {
	s := b.sampling
	info.Samples, info.EventCount, info.Truncated, info.IndexDropped = s.Samples, s.EventCount, s.Truncated, s.IndexDropped
	info.Backward += s.Backward
	if len(methods) < firstKeyMethod {
		methods = append(make([]Method, firstKeyMethod-len(methods)), methods...)
	}
	methods[TopLevel] = Method{Class: "(toplevel)"}
	methods[Unknown] = Method{Class: "(unknown)"}
	p := &Profile{Header: &Header{Version: 0, Clocks: Dual}, Clocks: Dual, Methods: methods, Records: s.Samples, Sampling: &info}
	all := make([]Stats, len(methods))
	var allEdges indexTable
	var edges []Edge
	for _, ts := range b.threads {
		t := ts.tree
		t.done(&b.layout)
		if info.Scale > 1 {
			t.scaleWeights(ClockWall, info.Scale) // the self weights, before they are summed
		}
		t.sumWeights()
		tp := ThreadProfile{ID: ts.id, Records: ts.samples, Tree: t, Index: ts.index}
		if name != nil {
			tp.Name = name(ts.id)
		}
		if ts.index != nil {
			for _, c := range ts.calls {
				ts.index.Calls[c].End = [2]uint32{uint32(ts.samples), uint32(ts.last)}
			}
			ts.index.finish([2]uint64{0, ts.first}, [2]uint64{uint64(ts.samples), ts.last})
		}
		tp.Graph = t.graph(len(methods))
		for _, ms := range tp.Methods {
			addStats(&all[ms.Index], &ms.Stats)
		}
		for _, e := range tp.Edges {
			k, added := allEdges.getOrPut(uint64(uint32(e.Caller))<<32|uint64(uint32(e.Callee)), int32(len(edges)))
			if added {
				edges = append(edges, Edge{Caller: e.Caller, Callee: e.Callee})
			}
			edges[k].Inclusive[0] += e.Inclusive[0]
			edges[k].Inclusive[1] += e.Inclusive[1]
		}
		p.Threads = append(p.Threads, tp)
		ts.methods, ts.nodes, ts.calls = nil, nil, nil
	}
	b.layout = layoutBuffer{}
	for i := range all {
		if int32(i) == TopLevel || all[i] != (Stats{}) {
			p.All.Methods = append(p.All.Methods, MethodStats{Index: int32(i), Stats: all[i]})
		}
	}
	p.All.Edges = edges
	p.All.index()
	return p
}

// sumWeights turns a finished sampled tree's self weights (in the
// inclusive fields) into inclusive weights: nodes are depth first, so a
// backward pass meets every child before its parent. Self is then derived
// everywhere.
func (t *CallTree) sumWeights() {
	for n := int32(t.Len()) - 1; n > 0; n-- {
		p := t.Parent(n)
		t.setInclusive(p, [2]uint64{t.Inclusive(p, 0) + t.Inclusive(n, 0), t.Inclusive(p, 1) + t.Inclusive(n, 1)})
	}
	t.self = nil
}

// scaleWeights divides the weights of clock c by div: the self weights,
// while the inclusive fields hold them, so that a node's inclusive weight
// is the sum of its subtree's scaled self weights (no rounding residue).
func (t *CallTree) scaleWeights(c Clock, div uint64) {
	for n := int32(0); n < int32(t.Len()); n++ {
		v := [2]uint64{t.Inclusive(n, 0), t.Inclusive(n, 1)}
		v[c] /= div
		t.setInclusive(n, v)
	}
}

// graph is the flat profile of a sampled tree: per method its self and
// (outermost) inclusive weights, and its caller → callee edges.
func (t *CallTree) graph(methods int) Graph {
	totals := t.MethodTotals(methods)
	var g Graph
	for i := range totals {
		if int32(i) == TopLevel || totals[i] != (Stats{}) {
			st := totals[i]
			if int32(i) == TopLevel {
				st.Inclusive = [2]uint64{t.Inclusive(0, 0), t.Inclusive(0, 1)}
				st.Exclusive = [2]uint64{t.Self(0, 0), t.Self(0, 1)}
			}
			g.Methods = append(g.Methods, MethodStats{Index: int32(i), Stats: st})
		}
	}
	var table indexTable
	onPath := map[uint64]int32{} // caller<<32|callee edges on the walk's path
	var path []int32
	t.Walk(func(n int32, depth int) bool {
		for len(path) >= depth {
			top := path[len(path)-1]
			onPath[edgeKey(t.Method(t.Parent(top)), t.Method(top))]--
			path = path[:len(path)-1]
		}
		key := edgeKey(t.Method(t.Parent(n)), t.Method(n))
		k, added := table.getOrPut(key, int32(len(g.Edges)))
		if added {
			g.Edges = append(g.Edges, Edge{Caller: t.Method(t.Parent(n)), Callee: t.Method(n)})
		}
		if onPath[key] == 0 {
			g.Edges[k].Inclusive[0] += t.Inclusive(n, 0)
			g.Edges[k].Inclusive[1] += t.Inclusive(n, 1)
		}
		onPath[key]++
		path = append(path, n)
		return true
	})
	g.index()
	return g
}

func edgeKey(caller, callee int32) uint64 { return uint64(uint32(caller))<<32 | uint64(uint32(callee)) }

// ClockName names clock c of p: "thread-cpu" and "wall" for method
// traces; "samples" and "time" (the event counts, µs for clock events)
// for sampled profiles.
func (p *Profile) ClockName(c Clock) string {
	if p.Sampling == nil {
		return c.String()
	}
	if c == ClockWall {
		return "time"
	}
	return "samples"
}

// appendJSON appends the sampling summary of WriteTreeJSON's head.
func (s *Sampling) appendJSON(b []byte) []byte {
	b = append(b, `{"samples": `...)
	b = strconv.AppendInt(b, s.Samples, 10)
	b = append(b, `, "event_count": `...)
	b = strconv.AppendUint(b, s.EventCount, 10)
	b = append(b, `, "event": `...)
	b = appendJSONString(b, s.Event)
	b = append(b, `, "time_unit": `...)
	b = appendJSONString(b, s.Unit)
	for _, f := range []struct {
		k string
		v int64
	}{{"lost", int64(s.Lost)}, {"skipped", s.Skipped}, {"times_backward", s.Backward}, {"chains_truncated", s.Truncated}} {
		if f.v != 0 {
			b = append(b, `, "`...)
			b = append(b, f.k...)
			b = append(b, `": `...)
			b = strconv.AppendInt(b, f.v, 10)
		}
	}
	return append(b, '}')
}

// appendSampleCounts appends a tree node's sample counts (a sampled
// profile's ClockCPU) to its JSON.
func appendSampleCounts(b []byte, nd *ViewNode) []byte {
	b = append(b, ',')
	b = strconv.AppendUint(b, nd.Inclusive[ClockCPU], 10)
	b = append(b, ',')
	return strconv.AppendUint(b, nd.Self[ClockCPU], 10)
}

// Projected returns p with each thread's tree keeping only the frames
// keep accepts (the others are left out of every path, their weight going
// to the nearest kept caller): "Java only" is p.Projected of the Java
// methods. See Mapped.
func (p *Profile) Projected(keep func(method int32) bool) *Profile {
	return p.Mapped(func(m int32) int32 {
		if keep(m) {
			return m
		}
		return -1
	})
}

// Mapped returns p with each frame's method m replaced by to(m), or left
// out of every path when to(m) is negative (its weight going to the
// nearest kept caller); frames that become the same method under the same
// caller are one. The trees are rebuilt from p's, node by node (a node's
// self weight along its mapped path), so it costs the trees' size, not
// the samples'; the call indexes likewise (CallIndex.Mapped), so the call
// chart and the trees over a time range show the same frames.
func (p *Profile) Mapped(to func(method int32) int32) *Profile {
	return p.mapped(to, false)
}

// Remap is Mapped for a profile no one else holds: its call indexes are
// mapped in place (no second copy of the largest part of a profile).
func (p *Profile) Remap(to func(method int32) int32) *Profile {
	return p.mapped(to, true)
}

func (p *Profile) mapped(to func(method int32) int32, inPlace bool) *Profile {
	b := NewSampleBuilder(SampleOptions{})
	var path []int32 // mapped methods of the walk's path, leaf last
	var kept []bool  // whether each node on the path was kept
	for i := range p.Threads {
		tp := &p.Threads[i]
		t := tp.Tree
		st := b.thread(tp.ID)
		path, kept = path[:0], kept[:0]
		if w := [2]uint64{t.Self(0, 0), t.Self(0, 1)}; w != ([2]uint64{}) {
			st.tree.addWeight(b.place(st, nil), w)
		}
		t.Walk(func(n int32, depth int) bool {
			for len(kept) >= depth {
				if kept[len(kept)-1] {
					path = path[:len(path)-1]
				}
				kept = kept[:len(kept)-1]
			}
			m := to(t.Method(n))
			if m >= 0 {
				path = append(path, m)
			}
			kept = append(kept, m >= 0)
			if w := [2]uint64{t.Self(n, 0), t.Self(n, 1)}; w != ([2]uint64{}) {
				st.tree.addWeight(b.place(st, path), w)
			}
			return true
		})
		st.samples = tp.Records
	}
	out := *p
	info := *p.Sampling
	info.Scale = 0
	q := b.Finish(p.Methods, info, nil)
	out.All, out.Threads = q.All, q.Threads
	for i := range out.Threads {
		out.Threads[i].Name = p.Threads[i].Name
		if ix := p.Threads[i].Index; ix != nil {
			out.Threads[i].Index = ix.mapped(to, inPlace)
		}
	}
	return &out
}

// Mapped returns the index of a sampled profile with each call's method m
// replaced by to(m), or left out when to(m) is negative: a call left out
// hands its callees to its nearest kept caller, one depth up, and a kept
// call that follows a call of the same method under the same caller
// without a sample between them (they were apart only by frames left out,
// or by methods mapped to one) is one call with it, as the builder makes a
// call of a run of samples. Calls are in entry order, so a call's caller
// is mapped before it: one pass.
func (ix *CallIndex) Mapped(to func(method int32) int32) *CallIndex {
	return ix.mapped(to, false)
}

// mapped is Mapped, in ix's own calls when inPlace (a mapped call is
// written at or before the index of the call it comes from, read first).
func (ix *CallIndex) mapped(to func(method int32) int32, inPlace bool) *CallIndex {
	out := &CallIndex{First: ix.First, Last: ix.Last, FromStart: ix.FromStart, Ignored: ix.Ignored}
	if inPlace {
		out.Calls = ix.Calls[:0]
	}
	under := make([]int32, len(ix.Calls)) // per call: the mapped call its callees go under (-1: the top)
	var depth, lastChild []int32          // per mapped call
	topLast := int32(-1)
	for i := range ix.Calls {
		c := ix.Calls[i]
		parent := int32(-1)
		if c.Parent >= 0 {
			parent = under[c.Parent]
		}
		m := to(c.Method)
		if m < 0 {
			under[i] = parent
			continue
		}
		l, d := topLast, 0
		if parent >= 0 {
			l, d = lastChild[parent], int(depth[parent])+1
		}
		if l >= 0 && out.Calls[l].Method == m && out.Calls[l].End[0] == c.Start[0] {
			out.Calls[l].End = c.End
			under[i] = l
			continue
		}
		id := out.enter(m, parent, d, [2]uint64{uint64(c.Start[0]), uint64(c.Start[1])})
		out.Calls[id].End = c.End
		depth, lastChild = append(depth, int32(d)), append(lastChild, -1)
		if parent >= 0 {
			lastChild[parent] = id
		} else {
			topLast = id
		}
		under[i] = id
	}
	out.Calls = out.Calls[:len(out.Calls):len(out.Calls)]
	return out
}

// place finds (adding it when new) the node of a root-first path in a
// growing tree, reusing the thread's previous path where it matches.
func (b *SampleBuilder) place(ts *sampledThread, rootFirst []int32) int32 {
	t := ts.tree
	same := 0
	for same < len(rootFirst) && same < len(ts.methods) && ts.methods[same] == rootFirst[same] {
		same++
	}
	ts.methods, ts.nodes, ts.same = ts.methods[:same], ts.nodes[:same], same
	node := int32(0)
	if same > 0 {
		node = ts.nodes[same-1]
	}
	for _, m := range rootFirst[same:] {
		node = t.child(node, ts.local.of(m), m)
		ts.methods = append(ts.methods, m)
		ts.nodes = append(ts.nodes, node)
	}
	return node
}

// CollectSampledCalls hands each call of a sampled profile's call
// indexes to collect (a ChromeWriter's Collect): a call is a run of
// consecutive samples sharing a frame, from the first sample's start to
// the last one's time.
func CollectSampledCalls(p *Profile, collect func(*Call)) {
	for i := range p.Threads {
		tp := &p.Threads[i]
		ix := tp.Index
		if ix == nil {
			continue
		}
		for d, row := range ix.ByDepth {
			for _, id := range row {
				c := &ix.Calls[id]
				collect(&Call{Thread: tp.ID, Method: c.Method, Depth: d,
					Entry: [2]uint64{uint64(c.Start[0]), uint64(c.Start[1])},
					Exit:  [2]uint64{uint64(c.End[0]), uint64(c.End[1])}})
			}
		}
	}
}

// ValueUnit is how the viewers title a column of clock c's values: ""
// for method traces (their values are µs, shown in ms), "samples" for a
// sampled profile's sample counts, "" for its time.
func (p *Profile) ValueUnit(c Clock) string {
	if p != nil && p.Sampling != nil && c == ClockCPU {
		return "samples"
	}
	return ""
}

// FormatValue formats a value of clock c for a column: µs as ms with
// three decimals, sample counts as integers.
func (p *Profile) FormatValue(c Clock, v uint64) string {
	if p.ValueUnit(c) == "samples" {
		return strconv.FormatUint(v, 10)
	}
	return strconv.FormatFloat(float64(v)/1000, 'f', 3, 64)
}

// FormatDuration formats a value of clock c for a line of text: "12.345
// ms" (µs below 1 ms), or "123 samples".
func (p *Profile) FormatDuration(c Clock, v uint64) string {
	if p.ValueUnit(c) == "samples" {
		return strconv.FormatUint(v, 10) + " samples"
	}
	if v < 1000 {
		return strconv.FormatUint(v, 10) + " µs"
	}
	return strconv.FormatFloat(float64(v)/1000, 'f', 3, 64) + " ms"
}
