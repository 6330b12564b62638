package trace

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// treeTestTraces are the traces every tree test runs on: hand-built ones
// with each special case, and generated ones of every version and clock.
func treeTestTraces(t *testing.T) map[string]*Trace {
	t.Helper()
	out := map[string]*Trace{
		"spec-example": specExampleModel(),
		"edge-cases":   edgeCaseTrace(),
		"hand":         handTreeTrace(),
	}
	for name, s := range map[string]Synth{
		"v3-dual":        {Seed: 1, Records: 20000, Threads: 5},
		"v2-unknown":     {Seed: 2, Records: 10000, Version: 2, UnknownMethods: 6, Methods: 120},
		"v2-wall-unroll": {Seed: 3, Records: 10000, Version: 2, Clocks: WallOnly, Unroll: 30},
		"v1":             {Seed: 4, Records: 10000, Version: 1, Threads: 3},
		"deep-recursion": {Seed: 5, Records: 20000, Methods: 12, MaxDepth: 300, Threads: 2},
		"streaming":      {Seed: 6, Records: 8000, Streaming: true, Threads: 3},
	} {
		tr, err := s.Trace()
		if err != nil {
			t.Fatal(err)
		}
		out[name] = tr
	}
	return out
}

// handTreeTrace: thread 1 starts inside b (an exit with an empty stack),
// recurses a → a → c, and ends with a and c open; thread 2 calls a → c.
// Times are CPU µs (wall = 2 × CPU).
func handTreeTrace() *Trace {
	tr := &Trace{Header: Header{Version: 3, Clocks: Dual,
		Threads: []Thread{{1, "main"}, {2, "bg"}},
		Methods: []Method{
			{ID: 4, Class: "x.A", Name: "a", Signature: "()V"},
			{ID: 8, Class: "x.B", Name: "b", Signature: "()V"},
			{ID: 12, Class: "x.C", Name: "c", Signature: "()V"},
		}}}
	ev := func(th uint16, a Action, id uint32, cpu uint32) {
		tr.Events = append(tr.Events, Event{Thread: th, Action: a, MethodID: id, Time: [2]uint32{cpu, 2 * cpu}})
	}
	ev(1, Exit, 8, 10)  // b returns: entered before the trace; 10 µs from the start
	ev(1, Enter, 4, 12) // a
	ev(1, Enter, 4, 15) // a (recursive)
	ev(1, Enter, 12, 16)
	ev(1, Exit, 12, 20)
	ev(1, Exit, 4, 21)
	ev(2, Enter, 4, 30)
	ev(2, Enter, 12, 31)
	ev(2, Exit, 12, 35)
	ev(2, Exit, 4, 40)
	ev(1, Enter, 12, 26) // c, open at the end (under the outer a, open too)
	ev(1, Exit, 8, 27)   // b is not on the stack: ignored
	ev(1, Enter, 8, 30)  // b, open; the thread's last record
	return tr
}

func profileOf(t *testing.T, tr *Trace, opt BuildOptions) *Profile {
	t.Helper()
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadProfile(bytes.NewReader(b), opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// dumpView prints a view to depth levels: "  name calls incl self" per node.
func dumpView(p *Profile, v *TreeView, c Clock) string {
	var b strings.Builder
	v.Walk(0, func(n int32, depth int) bool {
		nd := &v.Nodes[n]
		fmt.Fprintf(&b, "%s%s %d %d %d\n", strings.Repeat(" ", depth-1), p.Methods[nd.Method].Name, nd.Calls, nd.Inclusive[c], nd.Self[c])
		return true
	})
	return b.String()
}

func TestCallTreeHandBuilt(t *testing.T) {
	p := profileOf(t, handTreeTrace(), BuildOptions{CallTree: true, CallIndex: true})
	main, bg := p.Thread(1).Tree, p.Thread(2).Tree
	if main.FromStart != 1 || main.Ignored != 1 || bg.FromStart != 0 {
		t.Fatalf("unplaced: main %d/%d bg %d", main.FromStart, main.Ignored, bg.FromStart)
	}
	// main: b 10 (from the start); a [12,30 open] → a [15,21] → c [16,20];
	// a → c [26,30 open] → b [30,30 open].
	// b's exit is the thread's first record: inclusive from 0, no self.
	want := `a 1 18 8
 a 1 6 2
  c 1 4 4
 c 1 4 4
  b 1 0 0
b 1 10 0
`
	if got := dumpView(p, NewTopDownView([]*CallTree{main}, ClockCPU), ClockCPU); got != want {
		t.Errorf("main top down:\n%s\nwant:\n%s", got, want)
	}
	if main.Inclusive(0, ClockCPU) != 20 || main.Self(0, ClockCPU) != 2 || main.Inclusive(0, ClockWall) != 40 {
		t.Errorf("main root %d/%d µs, self %d", main.Inclusive(0, ClockCPU), main.Inclusive(0, ClockWall), main.Self(0, ClockCPU))
	}
	// Merged: bg's a → c adds to main's a → c.
	want = `a 2 28 14
 c 2 8 8
  b 1 0 0
 a 1 6 2
  c 1 4 4
b 1 10 0
`
	merged := NewTopDownView([]*CallTree{main, bg}, ClockCPU)
	if got := dumpView(p, merged, ClockCPU); got != want {
		t.Errorf("merged top down:\n%s\nwant:\n%s", got, want)
	}
	if r := merged.Nodes[0]; r.Inclusive[ClockCPU] != 30 || r.Self[ClockCPU] != 2 {
		t.Errorf("merged root %+v", r)
	}
	// Bottom up: a's inclusive counts the outer a only (28, not 34); c is
	// called from a (twice at top depth, once under a → a).
	// Children by inclusive time, descending.
	want = `a 3 28 16
 a 1 6 2
c 3 12 12
 a 3 12 12
  a 1 4 4
b 2 10 0
 c 1 0 0
  a 1 0 0
`
	if got := dumpView(p, NewBottomUpView([]*CallTree{main, bg}, ClockCPU), ClockCPU); got != want {
		t.Errorf("bottom up:\n%s\nwant:\n%s", got, want)
	}
	// Filter: paths through c, top down.
	isC := func(m int32) bool { return p.Methods[m].Name == "c" }
	want = `a 2 28 14
 c 2 8 8
  b 1 0 0
 a 1 6 2
  c 1 4 4
`
	if got := dumpView(p, NewFilteredView([]*CallTree{main, bg}, false, ClockCPU, isC), ClockCPU); got != want {
		t.Errorf("filtered:\n%s\nwant:\n%s", got, want)
	}
	// The call index: main's calls by depth, b (from the start) left out.
	ix := p.Thread(1).Index
	if ix.FromStart != 1 || ix.Ignored != 1 || ix.Depth() != 3 || len(ix.Calls) != 5 {
		t.Fatalf("index: %+v", ix)
	}
	var got []string
	for d := range ix.Depth() {
		ix.Visible(ClockCPU, d, 0, 100, 1, func(id int32, until uint32) {
			c := ix.Calls[id]
			got = append(got, fmt.Sprintf("%d:%s[%d,%d]", d, p.Methods[c.Method].Name, c.Start[0], c.End[0]))
		})
	}
	if s := strings.Join(got, " "); s != "0:a[12,30] 1:a[15,21] 1:c[26,30] 2:c[16,20] 2:b[30,30]" {
		t.Errorf("visible calls: %s", s)
	}
	// A range [16, 27): a 11 (self: 16..16 none, 20..21, 21..26), its
	// inner a 5 (self 1), c 4 and c 1.
	want = `a 1 11 5
 a 1 5 1
  c 1 4 4
 c 1 1 1
`
	rt := ix.RangeTree(ClockCPU, 16, 27)
	if got := dumpView(p, NewTopDownView([]*CallTree{rt}, ClockCPU), ClockCPU); got != want {
		t.Errorf("range tree:\n%s\nwant:\n%s", got, want)
	}
	if rt.Inclusive(0, ClockCPU) != 11 || rt.Self(0, ClockCPU) != 0 {
		t.Errorf("range root %d µs, self %d", rt.Inclusive(0, ClockCPU), rt.Self(0, ClockCPU))
	}
}

// checkTreesAgainstGraph states that the trees' per-method sums are the
// flat profile's: per thread and merged, top down and bottom up.
func checkTreesAgainstGraph(t *testing.T, p *Profile) {
	t.Helper()
	var trees []*CallTree
	for i := range p.Threads {
		tp := &p.Threads[i]
		if tp.Tree == nil {
			if tp.Records > 0 {
				t.Fatalf("thread %d: no tree", tp.ID)
			}
			continue
		}
		trees = append(trees, tp.Tree)
		checkLayout(t, tp.Tree)
		checkTotals(t, p, fmt.Sprintf("thread %d", tp.ID), &tp.Graph, []*CallTree{tp.Tree})
	}
	checkTotals(t, p, "merged", &p.All, trees)
}

func checkTotals(t *testing.T, p *Profile, what string, g *Graph, trees []*CallTree) {
	t.Helper()
	for _, c := range p.Clocks.List() {
		td := NewTopDownView(trees, c)
		perMethod := make([]Stats, len(p.Methods))
		self := td.Nodes[0].Self[c]
		td.Walk(0, func(n int32, _ int) bool {
			nd := &td.Nodes[n]
			perMethod[nd.Method].Exclusive[c] += nd.Self[c]
			perMethod[nd.Method].Calls += nd.Calls
			self += nd.Self[c]
			return true
		})
		if total := g.Total()[c]; self != total || td.Nodes[0].Inclusive[c] != total {
			t.Errorf("%s %v: top-down self sums to %d, root %d, traced %d", what, c, self, td.Nodes[0].Inclusive[c], total)
		}
		if td.Nodes[0].Self[c] != g.Stats(TopLevel).Exclusive[c] {
			t.Errorf("%s %v: root self %d, top level exclusive %d", what, c, td.Nodes[0].Self[c], g.Stats(TopLevel).Exclusive[c])
		}
		bu := NewBottomUpView(trees, c)
		seen := 0
		for n := range bu.Children(0) {
			nd := &bu.Nodes[n]
			s := g.Stats(nd.Method)
			if nd.Calls != s.Calls || nd.Inclusive[c] != s.Inclusive[c] || nd.Self[c] != s.Exclusive[c] {
				t.Errorf("%s %v %s: bottom up calls %d incl %d self %d; flat %d %d %d", what, c, p.Name(nd.Method),
					nd.Calls, nd.Inclusive[c], nd.Self[c], s.Calls, s.Inclusive[c], s.Exclusive[c])
			}
			if pm := perMethod[nd.Method]; pm.Exclusive[c] != s.Exclusive[c] || pm.Calls != s.Calls {
				t.Errorf("%s %v %s: top down self %d calls %d; flat %d %d", what, c, p.Name(nd.Method), pm.Exclusive[c], pm.Calls, s.Exclusive[c], s.Calls)
			}
			seen++
		}
		if want := len(g.Methods) - 1; seen != want {
			t.Errorf("%s %v: %d methods bottom up, %d in the profile", what, c, seen, want)
		}
		if len(trees) == 1 {
			tot := trees[0].MethodTotals(len(p.Methods))
			for _, ms := range g.Methods {
				if ms.Index != TopLevel && (tot[ms.Index].Inclusive != ms.Inclusive || tot[ms.Index].RecursiveCalls != ms.RecursiveCalls) {
					t.Errorf("%s %s: MethodTotals %+v, flat %+v", what, p.Name(ms.Index), tot[ms.Index], ms.Stats)
				}
			}
		}
	}
}

func TestCallTreesEqualFlatProfile(t *testing.T) {
	for name, tr := range treeTestTraces(t) {
		t.Run(name, func(t *testing.T) {
			checkTreesAgainstGraph(t, profileOf(t, tr, BuildOptions{CallTree: true}))
		})
	}
}

// TestCallTreeDeepRecursion: 100,000 nested calls build, expand, walk and
// sum without a deep Go stack.
func TestCallTreeDeepRecursion(t *testing.T) {
	const depth = 100_000
	tr := deepTrace(depth, true)
	p := profileOf(t, tr, BuildOptions{CallTree: true, CallIndex: true})
	tree := p.Threads[0].Tree
	if tree.Len() != depth+2 {
		t.Fatalf("%d nodes", tree.Len())
	}
	checkTreesAgainstGraph(t, p)
	bu := NewBottomUpView([]*CallTree{tree}, ClockCPU)
	path := bu.HotPath(0, 100)
	if len(path) != 100 || bu.Nodes[path[99]].Calls != depth-99 {
		t.Fatalf("hot path %d nodes", len(path))
	}
	if ix := p.Threads[0].Index; ix.Depth() != depth+1 {
		t.Fatalf("index depth %d", ix.Depth())
	}
	rt := p.Threads[0].Index.RangeTree(ClockCPU, 0, 1<<31)
	if rt.Len() != depth+2 {
		t.Fatalf("range tree %d nodes", rt.Len())
	}
}

// deepTrace is one thread entering a.f depth times, then a.leaf, then
// exiting everything; with timed, each record is 1 µs after the previous,
// else only the leaf takes time (1 µs).
func deepTrace(depth int, timed bool) *Trace {
	tr := &Trace{Header: Header{Version: 3, Clocks: Dual, Threads: []Thread{{1, "main"}},
		Methods: []Method{{ID: 4, Class: "a", Name: "f", Signature: "()V"}, {ID: 8, Class: "a", Name: "leaf", Signature: "()V"}}}}
	tr.Events = make([]Event, 0, 2*depth+2)
	now := uint32(0)
	ev := func(a Action, id uint32) {
		tr.Events = append(tr.Events, Event{Thread: 1, Action: a, MethodID: id, Time: [2]uint32{now, now}})
		if timed {
			now++
		}
	}
	for range depth {
		ev(Enter, 4)
	}
	ev(Enter, 8)
	if !timed {
		now++
	}
	ev(Exit, 8)
	for range depth {
		ev(Exit, 4)
	}
	return tr
}

// checkIndex states the call index's invariants: calls of one depth in
// order and apart, each inside its caller, and Visible over the whole time
// at a 1 µs cell visiting every call with a place in time.
func checkIndex(t *testing.T, ix *CallIndex) {
	t.Helper()
	seen := 0
	for d, row := range ix.ByDepth {
		for k, id := range row {
			c := &ix.Calls[id]
			for clk := range 2 {
				if c.End[clk] < c.Start[clk] {
					t.Fatalf("call %d ends before it starts: %+v", id, c)
				}
				if k > 0 && ix.Calls[row[k-1]].End[clk] > c.Start[clk] {
					t.Fatalf("depth %d: calls %d and %d overlap", d, row[k-1], id)
				}
				if c.Parent >= 0 {
					if p := &ix.Calls[c.Parent]; p.Start[clk] > c.Start[clk] || p.End[clk] < c.End[clk] {
						t.Fatalf("call %+v outside its caller %+v", c, p)
					}
				}
			}
		}
		var visited []int32
		ix.Visible(ClockWall, d, 0, ^uint32(0), 1, func(id int32, until uint32) { visited = append(visited, id) })
		for i, id := range visited {
			if i > 0 && id <= visited[i-1] {
				t.Fatalf("depth %d: visited out of order", d)
			}
		}
		seen += len(row)
	}
	if seen != len(ix.Calls) {
		t.Fatalf("%d calls by depth, %d in all", seen, len(ix.Calls))
	}
}

// TestCallIndexVisible: at any window and cell width, Visible returns the
// calls a full scan finds overlapping the window, less those hidden inside a
// visited call's span, and never two whose spans overlap.
func TestCallIndexVisible(t *testing.T) {
	tr, _ := Synth{Seed: 7, Records: 20000, Threads: 1, MaxDepth: 12}.Trace()
	// Leave out the exits of calls entered before the trace: they have no
	// place in time, and the range tree below is compared with the tree.
	depth := 0
	events := tr.Events[:0]
	for _, e := range tr.Events {
		if e.Action == Enter {
			depth++
		} else if depth == 0 {
			continue
		} else {
			depth--
		}
		events = append(events, e)
	}
	tr.Events = events
	p := profileOf(t, tr, BuildOptions{CallIndex: true})
	ix := p.Threads[0].Index
	checkIndex(t, ix)
	c := ClockWall
	last := ix.Last[c]
	for _, win := range [][3]uint32{{0, last + 1, 1}, {0, last + 1, last / 200}, {last / 3, last / 2, 1}, {last / 3, last/3 + 50, 7}, {last / 2, last, last / 10}} {
		from, to, cell := win[0], win[1], win[2]
		for d := range ix.Depth() {
			var want []int32
			for _, id := range ix.ByDepth[d] {
				call := &ix.Calls[id]
				if call.Start[c] < to && (call.End[c] > from || call.Start[c] >= from) {
					want = append(want, id)
				}
			}
			k := 0
			prevUntil := uint32(0)
			ix.Visible(c, d, from, to, cell, func(id int32, until uint32) {
				call := &ix.Calls[id]
				if until < call.End[c] {
					t.Fatalf("until %d before the call's end %d", until, call.End[c])
				}
				if k > 0 && call.Start[c] < prevUntil && call.End[c] <= prevUntil {
					t.Fatalf("window %v depth %d: call %d hidden by the previous one was visited", win, d, id)
				}
				// Every call skipped since the last visit ends inside that span.
				for k < len(want) && want[k] != id {
					if ix.Calls[want[k]].End[c] > prevUntil {
						t.Fatalf("window %v depth %d: call %d skipped but ends at %d after %d", win, d, want[k], ix.Calls[want[k]].End[c], prevUntil)
					}
					k++
				}
				if k == len(want) {
					t.Fatalf("window %v depth %d: visited %d, not in the window", win, d, id)
				}
				k++
				prevUntil = until
			})
			for ; k < len(want); k++ {
				if ix.Calls[want[k]].End[c] > prevUntil {
					t.Fatalf("window %v depth %d: call %d never visited", win, d, want[k])
				}
			}
			if cell == 1 && len(want) > 0 && prevUntil == 0 {
				t.Fatalf("nothing visited")
			}
		}
	}
	// A range tree over the whole time is the thread's tree on clock c.
	full := ix.RangeTree(c, 0, ^uint32(0))
	p2 := profileOf(t, tr, BuildOptions{CallTree: true})
	a, b := NewTopDownView([]*CallTree{full}, c), NewTopDownView([]*CallTree{p2.Threads[0].Tree}, c)
	got, want := strings.Split(dumpView(p, a, c), "\n"), strings.Split(dumpView(p2, b, c), "\n")
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("full-range tree differs from the tree at line %d: %q, want %q", i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("full-range tree: %d lines, tree %d", len(got), len(want))
	}
}

// TestCallTreesV2: ART's format V2 (versions 4 and 5, block and streaming
// layouts) builds the same kind of trees, and they add up to its profile.
func TestCallTreesV2(t *testing.T) {
	tr := renumbered(must(Synth{Seed: 8, Records: 8000, Version: 3, Threads: 3, Methods: 40}.Trace()))
	for _, streaming := range []bool{false, true} {
		var buf bytes.Buffer
		if err := EncodeV2(&buf, tr, V2Options{BlockRecords: 100, Streaming: streaming}); err != nil {
			t.Fatal(err)
		}
		p, err := ReadProfile(bytes.NewReader(buf.Bytes()), BuildOptions{CallTree: true, CallIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		if p.Header.Version != VersionDualClockV2 || p.Threads[0].Tree == nil || p.Threads[0].Index == nil {
			t.Fatalf("streaming=%v: version %d", streaming, p.Header.Version)
		}
		checkTreesAgainstGraph(t, p)
		for i := range p.Threads {
			if ix := p.Threads[i].Index; ix != nil {
				checkIndex(t, ix)
			}
		}
	}
}

// checkLayout states a finished tree's layout: depth-first numbers, each
// subtree a range inside its parent's, the first child next, a child's
// next sibling at its end, no two children of one method; and the self
// times kept beside the nodes only where a node is a call from the
// trace's start or has one among its children.
func checkLayout(t *testing.T, tr *CallTree) {
	t.Helper()
	if unsafe.Sizeof(treeNode{}) != 20 {
		t.Fatalf("treeNode is %d bytes", unsafe.Sizeof(treeNode{}))
	}
	if tr.building || tr.wide.slots != nil {
		t.Fatalf("tree still growing")
	}
	size := int32(tr.Len())
	if tr.Parent(0) != -1 || tr.Method(0) != TopLevel || tr.End(0) != size {
		t.Fatalf("root: parent %d method %d end %d of %d nodes", tr.Parent(0), tr.Method(0), tr.End(0), size)
	}
	for n := int32(1); n < size; n++ {
		end, p := tr.End(n), tr.Parent(n)
		if p < 0 || p >= n || end <= n || end > tr.End(p) {
			t.Fatalf("node %d (end %d) outside parent %d (end %d)", n, end, p, tr.End(p))
		}
		if end > n+1 && tr.Parent(n+1) != n {
			t.Fatalf("node %d: the next node %d is not its child", n, n+1)
		}
		if end < tr.End(p) && tr.Parent(end) != p {
			t.Fatalf("node %d: next sibling %d has parent %d, not %d", n, end, tr.Parent(end), p)
		}
		if p > 0 && n > p+1 && tr.Parent(n-1) != p && tr.End(n-1) != n {
			t.Fatalf("node %d: the node before is neither a sibling nor the end of one", n)
		}
	}
	kids := make([]int32, size) // nodes whose parent each node is
	for n := int32(1); n < size; n++ {
		kids[tr.Parent(n)]++
	}
	seen := map[int32]int32{} // method → the last parent it was seen under
	for n := range size {
		for c := range tr.Children(n) {
			if last, ok := seen[tr.Method(c)]; tr.Parent(c) != n || (ok && last == n) {
				t.Fatalf("node %d: child %d (parent %d, method %d)", n, c, tr.Parent(c), tr.Method(c))
			}
			seen[tr.Method(c)] = n
			kids[n]--
		}
		if kids[n] != 0 {
			t.Fatalf("node %d: Children misses %d", n, kids[n])
		}
	}
	if len(tr.self) > int(tr.FromStart)+1 {
		t.Errorf("%d self times kept for %d calls from the start", len(tr.self), tr.FromStart)
	}
	for k := range tr.self {
		if k != 0 && tr.Parent(k) != 0 {
			t.Errorf("node %d (depth %d) keeps its self time", k, tr.Depth(k))
		}
	}
}

// TestSynthEntersAtStart: with EntersAtStart the frames on the stack when
// tracing begins are entered first, as ART writes them, so no exit is
// unmatched; the record count stays exact. Without it they are.
func TestSynthEntersAtStart(t *testing.T) {
	for _, at := range []bool{false, true} {
		s := Synth{Seed: 41, Records: 20000, Threads: 5, EntersAtStart: at}
		tr, err := s.Trace()
		if err != nil {
			t.Fatal(err)
		}
		p := profileOf(t, tr, BuildOptions{})
		n := p.Warnings.Counts[WarnUnmatchedExit]
		if len(tr.Events) != 20000 || (at && n != 0) || (!at && n == 0) {
			t.Errorf("EntersAtStart %v: %d records, %d unmatched exits", at, len(tr.Events), n)
		}
	}
}
