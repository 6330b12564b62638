package trace

import (
	"fmt"
	"testing"
)

// TestCallTreeCallsOverflow: a path called more often than a node's 16-bit
// count holds keeps its exact count in the side table, and the sums still
// equal the flat profile's.
func TestCallTreeCallsOverflow(t *testing.T) {
	const calls = 70_000 // > 2¹⁶−1
	tr := &Trace{Header: Header{Version: 3, Clocks: Dual, Threads: []Thread{{1, "main"}},
		Methods: []Method{{ID: 4, Class: "a", Name: "loop", Signature: "()V"}, {ID: 8, Class: "a", Name: "body", Signature: "()V"}}}}
	now := uint32(0)
	ev := func(a Action, id uint32) {
		tr.Events = append(tr.Events, Event{Thread: 1, Action: a, MethodID: id, Time: [2]uint32{now, 3 * now}})
		now++
	}
	ev(Enter, 4)
	for range calls {
		ev(Enter, 8)
		ev(Exit, 8)
	}
	ev(Exit, 4)
	p := profileOf(t, tr, BuildOptions{CallTree: true, CallIndex: true})
	checkTreesAgainstGraph(t, p)
	tree := p.Threads[0].Tree
	if tree.Len() != 3 || tree.Method(2) != firstKeyMethod+1 {
		t.Fatalf("%d nodes, node 2 is method %d", tree.Len(), tree.Method(2))
	}
	if got := tree.Calls(2); got != calls {
		t.Errorf("body: %d calls, want %d", got, calls)
	}
	if tree.nodes.at(2).calls != maxCalls || tree.bigCalls[2] != calls {
		t.Errorf("body: node count %d, side table %d", tree.nodes.at(2).calls, tree.bigCalls[2])
	}
	if got, want := tree.Inclusive(2, ClockCPU), uint64(calls); got != want {
		t.Errorf("body: inclusive %d, want %d", got, want)
	}
	if got, want := tree.Self(1, ClockWall), uint64(3*(calls+1)); got != want {
		t.Errorf("loop: self %d wall µs, want %d", got, want)
	}
	// The bottom-up first level reads the count from the side table too.
	for _, c := range []Clock{ClockCPU, ClockWall} {
		bu := NewBottomUpView([]*CallTree{tree, tree}, c)
		for n := range bu.Children(0) {
			if nd := &bu.Nodes[n]; nd.Method == firstKeyMethod+1 && nd.Calls != 2*calls {
				t.Errorf("%v: bottom up over the tree twice: %d calls", c, nd.Calls)
			}
		}
	}
	// So does a tree over a time range.
	rt := p.Threads[0].Index.RangeTree(ClockCPU, 0, now)
	if rt.Len() != 3 || rt.Calls(2) != calls {
		t.Errorf("range tree: %d nodes, %d calls", rt.Len(), rt.Calls(2))
	}
}

// TestCallTreeManyMethods: past 2¹⁶−1 methods on one thread, a node's
// local method number is in the side table, and the tree still finds,
// names and sums each one.
func TestCallTreeManyMethods(t *testing.T) {
	const methods = 70_000
	tr := &Trace{Header: Header{Version: 3, Clocks: Dual, Threads: []Thread{{1, "main"}}}}
	for i := range methods + 1 {
		tr.Methods = append(tr.Methods, Method{ID: uint32(4 * (i + 1)), Class: "m", Name: fmt.Sprint("f", i), Signature: "()V"})
	}
	now := uint32(0)
	ev := func(a Action, id uint32) {
		tr.Events = append(tr.Events, Event{Thread: 1, Action: a, MethodID: id, Time: [2]uint32{now, now}})
		now++
	}
	// Method 0 calls every other method once, then the last one again
	// (found by the wide table, whose key is the local number).
	ev(Enter, 4)
	for i := 1; i <= methods; i++ {
		ev(Enter, uint32(4*(i+1)))
		ev(Exit, uint32(4*(i+1)))
	}
	ev(Enter, 4*(methods+1))
	ev(Exit, 4*(methods+1))
	ev(Exit, 4)
	p := profileOf(t, tr, BuildOptions{CallTree: true})
	tree := p.Threads[0].Tree
	checkLayout(t, tree)
	checkTotals(t, p, "main", &p.Threads[0].Graph, []*CallTree{tree})
	if tree.Len() != methods+2 {
		t.Fatalf("%d nodes, want %d", tree.Len(), methods+2)
	}
	if len(tree.bigMethod) == 0 {
		t.Fatalf("no local method number past 16 bits")
	}
	seen := map[int32]int64{}
	for n := range tree.Children(1) {
		seen[tree.Method(n)] += tree.Calls(n)
	}
	last := int32(firstKeyMethod + methods)
	if len(seen) != methods || seen[last] != 2 || seen[last-1] != 1 || seen[firstKeyMethod+1] != 1 {
		t.Errorf("%d distinct callees; the last called %d times", len(seen), seen[last])
	}
}

// TestCallTreeInclusiveOverflow: calls from the trace's start overlap, so
// their inclusive times can sum past 32 bits; the whole sum is kept.
func TestCallTreeInclusiveOverflow(t *testing.T) {
	tr := &Trace{Header: Header{Version: 3, Clocks: Dual, Threads: []Thread{{1, "main"}},
		Methods: []Method{{ID: 4, Class: "a", Name: "outer", Signature: "()V"}, {ID: 8, Class: "a", Name: "inner", Signature: "()V"}}}}
	ev := func(a Action, id uint32, cpu uint32) {
		tr.Events = append(tr.Events, Event{Thread: 1, Action: a, MethodID: id, Time: [2]uint32{cpu, cpu / 2}})
	}
	// Three exits with an empty stack: each call counts from time 0.
	ev(Exit, 4, 3_000_000_000)
	ev(Exit, 4, 3_500_000_000)
	ev(Enter, 8, 3_600_000_000)
	ev(Exit, 8, 3_700_000_000)
	ev(Exit, 4, 4_000_000_000)
	p := profileOf(t, tr, BuildOptions{CallTree: true})
	checkTreesAgainstGraph(t, p)
	tree := p.Threads[0].Tree
	if tree.Len() != 3 {
		t.Fatalf("%d nodes", tree.Len())
	}
	want := [2]uint64{10_500_000_000, 5_250_000_000}
	for c := range 2 {
		if got := tree.Inclusive(1, Clock(c)); got != want[c] {
			t.Errorf("clock %d: outer inclusive %d, want %d", c, got, want[c])
		}
	}
	if tree.nodes.at(1).inclusive[0] != maxTime || tree.Calls(1) != 3 {
		t.Errorf("outer node %+v", *tree.nodes.at(1))
	}
	if s := p.Thread(1).Stats(firstKeyMethod); s.Inclusive != want {
		t.Errorf("flat outer inclusive %v", s.Inclusive)
	}
}

// TestCallTreeLayoutWindows: a tree laid out through windows of a few
// nodes (many passes, nodes moved out of the way) gets the same nodes as
// through one window.
func TestCallTreeLayoutWindows(t *testing.T) {
	for name, tr := range treeTestTraces(t) {
		t.Run(name, func(t *testing.T) {
			want := profileOf(t, tr, BuildOptions{CallTree: true, CallIndex: true})
			old := layoutWindow
			layoutWindow = 3
			defer func() { layoutWindow = old }()
			p := profileOf(t, tr, BuildOptions{CallTree: true, CallIndex: true})
			checkTreesAgainstGraph(t, p)
			for i := range p.Threads {
				a, b := p.Threads[i].Tree, want.Threads[i].Tree
				if a == nil {
					continue
				}
				if a.Len() != b.Len() {
					t.Fatalf("thread %d: %d nodes in small windows, %d in one", p.Threads[i].ID, a.Len(), b.Len())
				}
				for n := range int32(a.Len()) {
					if *a.nodes.at(n) != *b.nodes.at(n) {
						t.Fatalf("thread %d node %d: %+v in small windows, %+v in one", p.Threads[i].ID, n, *a.nodes.at(n), *b.nodes.at(n))
					}
				}
				if ix := p.Threads[i].Index; ix != nil {
					rt := ix.RangeTree(ClockCPU, 0, 1<<31)
					checkLayout(t, rt)
				}
			}
		})
	}
}

// TestBottomUpFilteredFirstLevel: a filter keeps some methods of the
// bottom-up first level with exactly the values they have unfiltered (a
// kept node's self time still loses its callees' times when they are left
// out), on one thread and merged, on every test trace.
func TestBottomUpFilteredFirstLevel(t *testing.T) {
	for name, tr := range treeTestTraces(t) {
		t.Run(name, func(t *testing.T) {
			p := profileOf(t, tr, BuildOptions{CallTree: true})
			var trees []*CallTree
			for i := range p.Threads {
				if p.Threads[i].Tree != nil {
					trees = append(trees, p.Threads[i].Tree)
				}
			}
			for _, src := range [][]*CallTree{trees[:1], trees} {
				for _, c := range p.Clocks.List() {
					all := NewBottomUpView(src, c)
					want := map[int32]ViewNode{}
					for n := range all.Children(0) {
						want[all.Nodes[n].Method] = all.Nodes[n]
					}
					even := func(m int32) bool { return m%2 == 0 }
					fv := NewFilteredView(src, true, c, even)
					got := 0
					for n := range fv.Children(0) {
						nd, w := fv.Nodes[n], want[fv.Nodes[n].Method]
						if !even(nd.Method) || nd.Calls != w.Calls || nd.Inclusive != w.Inclusive || nd.Self != w.Self || nd.callers != w.callers {
							t.Errorf("%v %s: filtered %d/%v/%v, unfiltered %d/%v/%v", c, p.Name(nd.Method), nd.Calls, nd.Inclusive, nd.Self, w.Calls, w.Inclusive, w.Self)
						}
						got++
					}
					kept := 0
					for m := range want {
						if even(m) {
							kept++
						}
					}
					if got != kept {
						t.Errorf("%v: %d methods kept, want %d", c, got, kept)
					}
				}
			}
		})
	}
}
