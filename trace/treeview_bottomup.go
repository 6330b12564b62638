package trace

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// expandBottomUpRoot makes the bottom-up root's children, one per method:
// the sums of group, without listing the members. The sources are cut
// into runs of whole subtrees of their root's children (no node of one
// run is inside a node of another, so each run can be summed alone),
// summed on up to GOMAXPROCS goroutines in one pass in depth-first order
// each, and the sums added up.
func (v *TreeView) expandBottomUpRoot() {
	v.Nodes[0].expanded = true
	methods := int32(0)
	for _, t := range v.src {
		for _, m := range t.methods {
			methods = max(methods, m+1)
		}
	}
	runs := v.bottomUpRuns()
	workers := min(runtime.GOMAXPROCS(0), len(runs))
	sums := make([]*methodSums, max(workers, 1))
	var next atomic.Int32
	var wg sync.WaitGroup
	for w := range sums {
		sums[w] = getMethodSums(methods)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(runs) {
					return
				}
				v.sumRun(sums[w], runs[i], int64(i+1)<<32)
			}
		}()
	}
	wg.Wait()
	total := sums[0]
	for _, s := range sums[1:] {
		total.add(s)
	}
	first, kids := len(v.Nodes), 0
	for m := range total.m {
		if total.m[m].seen {
			kids++
		}
	}
	v.Nodes = slices.Grow(v.Nodes, kids)
	for m := range total.m {
		if ms := &total.m[m]; ms.seen {
			v.Nodes = append(v.Nodes, ViewNode{Parent: 0, Method: int32(m), FirstChild: -1, NextSibling: -1,
				Calls: ms.calls, Inclusive: ms.incl, Self: ms.self, callers: ms.callers})
		}
	}
	for _, s := range sums {
		methodSumsPool.Put(s)
	}
	v.linkChildren(0, first)
}

// bottomUpRun is the nodes from lo up to hi of source src: whole subtrees
// of its root's children.
type bottomUpRun struct {
	src    int
	lo, hi int32
}

// bottomUpRunNodes is about how many nodes a run holds (a subtree is
// never cut).
const bottomUpRunNodes = 1 << 16

func (v *TreeView) bottomUpRuns() []bottomUpRun {
	var runs []bottomUpRun
	for k, t := range v.src {
		end := t.End(0)
		lo := int32(1)
		for r := int32(1); r < end; {
			r = t.End(r)
			if r-lo >= bottomUpRunNodes || r == end {
				runs = append(runs, bottomUpRun{k, lo, r})
				lo = r
			}
		}
	}
	return runs
}

// methodSums are the bottom-up first level's sums per method.
type methodSums struct {
	m    []methodSum
	path []pathNode // sumRun's stack
}

// methodSum is one method's: 64 bytes, one cache line.
type methodSum struct {
	calls      int64
	incl, self [2]uint64
	// lastEnd is the end of the last node of the method counted in
	// incl, above a run's base (run number << 32): a node before it is
	// inside that one.
	lastEnd       int64
	seen, callers bool
}

func (s *methodSums) add(o *methodSums) {
	for m := range s.m {
		d, x := &s.m[m], &o.m[m]
		d.calls += x.calls
		for c := range 2 {
			d.incl[c] += x.incl[c]
			d.self[c] += x.self[c]
		}
		d.seen = d.seen || x.seen
		d.callers = d.callers || x.callers
	}
}

// methodSumsPool keeps methodSums between views: the JSON makes one view
// per thread, and their arrays would otherwise be most of its garbage.
var methodSumsPool sync.Pool

// getMethodSums returns zeroed sums for methods methods.
func getMethodSums(methods int32) *methodSums {
	s, _ := methodSumsPool.Get().(*methodSums)
	if s == nil || cap(s.m) < int(methods) {
		return &methodSums{m: make([]methodSum, methods)}
	}
	s.m = s.m[:methods]
	clear(s.m)
	return s
}

// sumRun adds run's nodes to s. A node's self time is its inclusive time
// minus its children's: each node adds its inclusive time to its method's
// self time and takes it from its parent's, in one pass in depth-first
// order, with the path to the node on a stack (so a parent costs no
// lookup). The root's children are the exception (CallTree.self): their
// Self is asked. base is above every lastEnd an earlier run of s left.
func (v *TreeView) sumRun(s *methodSums, run bottomUpRun, base int64) {
	t := v.src[run.src]
	var keep []bool
	if v.keep != nil {
		keep = v.keep[run.src]
	}
	path := s.path[:0]
	for r := run.lo; r < run.hi; {
		end := t.End(r)
		if keep == nil || keep[r] {
			ms := &s.m[t.Method(r)]
			ms.seen = true
			ms.calls += t.Calls(r)
			for c := range 2 {
				ms.self[c] += t.Self(r, Clock(c))
			}
			if base+int64(r) >= ms.lastEnd {
				for c := range 2 {
					ms.incl[c] += t.Inclusive(r, Clock(c))
				}
				ms.lastEnd = base + int64(end)
			}
		}
		path = append(path[:0], pathNode{end: end, method: -1}) // r's Self is its own
		for n := r + 1; n < end; n++ {
			nd := t.nodes.at(n)
			incl := [2]uint64{uint64(nd.inclusive[0]), uint64(nd.inclusive[1])}
			if nd.inclusive[0] == maxTime || nd.inclusive[1] == maxTime {
				incl = [2]uint64{t.Inclusive(n, 0), t.Inclusive(n, 1)}
			}
			for path[len(path)-1].end <= n {
				path = path[:len(path)-1]
			}
			if pm := path[len(path)-1].method; pm >= 0 {
				ps := &s.m[pm]
				ps.self[0] -= incl[0]
				ps.self[1] -= incl[1]
			}
			m := t.methods[nd.method]
			if nd.method == wideLocal {
				m = t.Method(n)
			}
			if keep != nil && !keep[n] {
				path = append(path, pathNode{end: nd.a, method: -1})
				continue
			}
			path = append(path, pathNode{end: nd.a, method: m})
			ms := &s.m[m]
			ms.seen, ms.callers = true, true
			if nd.calls != maxCalls {
				ms.calls += int64(nd.calls)
			} else {
				ms.calls += t.Calls(n)
			}
			ms.self[0] += incl[0]
			ms.self[1] += incl[1]
			if base+int64(n) >= ms.lastEnd { // not inside a node of m counted before
				ms.incl[0] += incl[0]
				ms.incl[1] += incl[1]
				ms.lastEnd = base + int64(nd.a)
			}
		}
		r = end
	}
	s.path = path
}

// pathNode is a node on sumRun's path: its end, and the method whose self
// time its children's times come off (-1: none, for a root's child, which
// asks Self, and for a node the filter leaves out).
type pathNode struct {
	end, method int32
}

// FlatGraph is the flat profile of a bottom-up view's trees: per method
// its calls and inclusive and exclusive time on the view's clock (the
// root's children, which have the flat profile's numbers), and the top
// level's (the root's); no edges and no recursive-call counts. It makes a
// flat profile of a time range (CallIndex.RangeTree's trees) for the
// method table. Nil for a top-down view.
func (v *TreeView) FlatGraph() *Graph {
	if !v.bottomUp {
		return nil
	}
	v.Expand(0)
	c := v.clock
	g := &Graph{}
	root := &v.Nodes[0]
	top := MethodStats{Index: TopLevel}
	top.Inclusive[c], top.Exclusive[c] = root.Inclusive[c], root.Self[c]
	g.Methods = append(g.Methods, top)
	for n := root.FirstChild; n >= 0; n = v.Nodes[n].NextSibling {
		nd := &v.Nodes[n]
		ms := MethodStats{Index: nd.Method}
		ms.Calls = nd.Calls
		ms.Inclusive[c], ms.Exclusive[c] = nd.Inclusive[c], nd.Self[c]
		g.Methods = append(g.Methods, ms)
	}
	g.index()
	return g
}
