package heapgraph

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/testkit/hprofref"
)

// dominate computes the view's dominator tree (D7, Cooper-Harvey-Kennedy
// over a reverse postorder) and retained sizes (D8), the super-root being
// id 0.
func (v *view) dominate() (idom, retained map[uint64]uint64) {
	const super = 0
	succ := func(id uint64) []uint64 {
		if id == super {
			var out []uint64
			for _, r := range v.m.Roots {
				out = append(out, r.ID)
			}
			return out
		}
		var out []uint64
		for _, e := range v.edges[id] {
			if _, ok := v.class[e.To]; ok {
				out = append(out, e.To)
			}
		}
		return out
	}
	// Postorder by an iterative DFS.
	post := []uint64{}
	index := map[uint64]int{}
	visited := map[uint64]bool{super: true}
	type frame struct {
		id   uint64
		next []uint64
	}
	stack := []frame{{super, succ(super)}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if len(top.next) == 0 {
			index[top.id] = len(post)
			post = append(post, top.id)
			stack = stack[:len(stack)-1]
			continue
		}
		n := top.next[0]
		top.next = top.next[1:]
		if !visited[n] {
			visited[n] = true
			stack = append(stack, frame{n, succ(n)})
		}
	}
	preds := map[uint64][]uint64{}
	for _, p := range post {
		for _, s := range succ(p) {
			preds[s] = append(preds[s], p)
		}
	}
	idom = map[uint64]uint64{super: super}
	intersect := func(a, b uint64) uint64 {
		for a != b {
			for index[a] < index[b] {
				a = idom[a]
			}
			for index[b] < index[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i := len(post) - 2; i >= 0; i-- { // reverse postorder, the super-root (last) left out
			n := post[i]
			var nd uint64
			have := false
			for _, p := range preds[n] {
				if _, ok := idom[p]; !ok {
					continue
				}
				if !have {
					nd, have = p, true
				} else {
					nd = intersect(p, nd)
				}
			}
			if old, ok := idom[n]; have && (!ok || old != nd) {
				idom[n] = nd
				changed = true
			}
		}
	}
	retained = map[uint64]uint64{}
	for _, n := range post {
		if n == super {
			continue
		}
		retained[n] += v.size[n]
		if d := idom[n]; d != super {
			retained[d] += retained[n]
		}
	}
	delete(idom, super)
	return idom, retained
}

// TestBothFormsAgree analyses the planted scene as HPROF with the
// reference analyser (testkit/hprofref: D1–D16 over the HPROF) and as a
// heap graph of each encoding through the adapter, and compares what a
// heap graph carries: every node's class and shallow size, reachability,
// depth, immediate dominator and retained size, and the scene's known
// retained sizes.
func TestBothFormsAgree(t *testing.T) {
	for _, api := range []int{30, 31, 34} {
		t.Run(fmt.Sprintf("api%d", api), func(t *testing.T) {
			g, hp, e, err := Scene(scene.Options{Seed: 11, API: api, Filler: nil}, WriterOptions{API: api, PID: 5, PacketBytes: 1024})
			if err != nil {
				t.Fatal(err)
			}
			dump, err := hprofref.Read(bytes.NewReader(hp))
			if err != nil {
				t.Fatal(err)
			}
			ref := dump.Analyze()
			v := newView(t, readOne(t, g))
			idom, retained := v.dominate()
			if len(v.class) != len(dump.Nodes) {
				t.Fatalf("%d nodes, HPROF %d", len(v.class), len(dump.Nodes))
			}
			bad := 0
			for id, n := range dump.Nodes {
				if got, want := v.size[id], dump.Shallow(n); got != want {
					t.Errorf("%#x: shallow %d, HPROF %d", id, got, want)
					bad++
				}
				d, reach := ref.Depth[id]
				if got, ok := v.depth[id]; ok != reach || got != d {
					t.Errorf("%#x (%s): depth %d (%v), HPROF %d (%v)", id, v.class[id], got, ok, d, reach)
					bad++
				}
				if !reach {
					continue
				}
				if idom[id] != ref.Idom[id] || retained[id] != ref.Retained[id] {
					t.Errorf("%#x (%s): idom %#x retained %d, HPROF idom %#x retained %d", id, v.class[id], idom[id], retained[id], ref.Idom[id], ref.Retained[id])
					bad++
				}
				if bad > 20 {
					t.Fatal("too many differences")
				}
			}
			for _, o := range e.Retained {
				if retained[uint64(o.ID)] != o.Retained {
					t.Errorf("%s %#x (%s): retained %d, the scene says %d", o.Class, uint64(o.ID), o.Why, retained[uint64(o.ID)], o.Retained)
				}
			}
			for _, l := range e.Leaks {
				if retained[uint64(l.ID)] != l.Retained {
					t.Errorf("leak %s: retained %d, the scene says %d", l, retained[uint64(l.ID)], l.Retained)
				}
			}
		})
	}
}
