package hprofref

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
)

// randomDump writes n instances of class N (fields f0, f1, f2, and a
// WeakReference-like "referent" declared by java.lang.ref.Reference that N
// extends) pointing at random nodes, some of them roots. It returns the
// file, the node ids, the strong successors of each node by index and the
// root indices.
func randomDump(t *testing.T, rnd *rand.Rand, n int) ([]byte, []uint64, [][]int, []int) {
	t.Helper()
	const cRef, cN = 0x10, 0x20
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(0x1000 + 16*i)
	}
	var buf bytes.Buffer
	w, err := hprof.NewWriter(&buf, hprof.Header{Version: hprof.VersionAndroid, IDSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"java.lang.ref.Reference", "N", "referent", "f0", "f1", "f2"}
	for i, s := range names {
		_ = w.Write(&hprof.UTF8{ID: hprof.ID(i + 1), Text: s})
	}
	_ = w.Write(&hprof.LoadClass{Serial: 1, Class: cRef, Name: 1})
	_ = w.Write(&hprof.LoadClass{Serial: 2, Class: cN, Name: 2})
	_ = w.Write(&hprof.HeapDump{})
	var roots []int
	for i := range n {
		if rnd.IntN(4) == 0 || i == 0 {
			roots = append(roots, i)
			_ = w.Write(&hprof.Root{Kind: hprof.SubRootJNIGlobal, Object: hprof.ID(ids[i])})
		}
	}
	obj := func(name hprof.ID) hprof.Field { return hprof.Field{Name: name, Type: hprof.TypeObject} }
	_ = w.Write(&hprof.ClassDump{Class: cRef, InstanceSize: 4, Fields: []hprof.Field{obj(3)}})
	_ = w.Write(&hprof.ClassDump{Class: cN, Super: cRef, InstanceSize: 12, Fields: []hprof.Field{obj(4), obj(5), obj(6)}})
	succ := make([][]int, n)
	for i := range n {
		var data []byte
		// Own fields f0..f2 first, then Reference.referent (weak).
		for f := range 4 {
			v := uint64(0)
			if k := rnd.IntN(n + 2); k < n {
				v = ids[k]
				if f < 3 {
					succ[i] = append(succ[i], k)
				}
			}
			data = append(data, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
		}
		_ = w.Write(&hprof.InstanceDump{Object: hprof.ID(ids[i]), Class: cN, Data: data})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), ids, succ, roots
}

// allPaths calls fn with the node set of every simple path from the
// super-root to target.
func allPaths(succ [][]int, roots []int, target int, fn func(on []bool)) {
	on := make([]bool, len(succ))
	var walk func(v int)
	walk = func(v int) {
		if on[v] {
			return
		}
		on[v] = true
		if v == target {
			fn(on)
		} else {
			for _, w := range succ[v] {
				walk(w)
			}
		}
		on[v] = false
	}
	for _, r := range roots {
		walk(r)
	}
}

// Dominators and retained sizes on small random graphs against a second
// brute force: d dominates v when d is on every simple path to v.
func TestBruteForceDominators(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 7))
	for round := range 300 {
		n := 2 + rnd.IntN(8)
		data, ids, succ, roots := randomDump(t, rnd, n)
		d, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		a := d.Analyze()
		for v := range n {
			paths := 0
			onAll := make([]bool, n)
			for i := range onAll {
				onAll[i] = true
			}
			allPaths(succ, roots, v, func(on []bool) {
				paths++
				for i := range on {
					onAll[i] = onAll[i] && on[i]
				}
			})
			if (paths > 0) != a.Reachable(ids[v]) {
				t.Fatalf("round %d: node %d reachable %v, %d paths", round, v, a.Reachable(ids[v]), paths)
			}
			if paths == 0 {
				continue
			}
			want := map[uint64]bool{}
			for i, all := range onAll {
				if all && i != v {
					want[ids[i]] = true
				}
			}
			got := map[uint64]bool{}
			for _, dom := range a.Dominators[ids[v]] {
				got[dom] = true
			}
			if len(got) != len(want) {
				t.Fatalf("round %d: dominators of %d: %v, want %v (succ %v roots %v)", round, v, got, want, succ, roots)
			}
			for d := range want {
				found := false
				for _, u := range a.DominatedBy(d) {
					found = found || u == ids[v]
				}
				if !found {
					t.Fatalf("round %d: DominatedBy(%#x) lacks node %d", round, d, v)
				}
			}
			for k := range want {
				if !got[k] {
					t.Fatalf("round %d: dominators of %d: %v, want %v", round, v, got, want)
				}
			}
		}
		// The immediate dominator is dominated by every other dominator.
		for v := range n {
			idom := a.Idom[ids[v]]
			if !a.Reachable(ids[v]) || idom == superRoot {
				if a.Reachable(ids[v]) && len(a.Dominators[ids[v]]) != 0 {
					t.Fatalf("round %d: node %d has dominators but idom is the super-root", round, v)
				}
				continue
			}
			of := map[uint64]bool{idom: true}
			for _, dom := range a.Dominators[idom] {
				of[dom] = true
			}
			for _, dom := range a.Dominators[ids[v]] {
				if !of[dom] {
					t.Fatalf("round %d: idom(%d) = %#x is not dominated by %#x", round, v, idom, dom)
				}
			}
		}
		// Retained: 12 bytes for the node and each node it dominates.
		for v := range n {
			if !a.Reachable(ids[v]) {
				continue
			}
			want := uint64(12)
			for u := range n {
				for _, dom := range a.Dominators[ids[u]] {
					if dom == ids[v] {
						want += 12
					}
				}
			}
			if a.Retained[ids[v]] != want {
				t.Fatalf("round %d: retained(%d) = %d, want %d", round, v, a.Retained[ids[v]], want)
			}
		}
	}
}

// The equations (Analyze) and the definition (DominatedBy: take the node
// out) agree on every node of every scene, filler included.
func TestDominatorMethodsAgree(t *testing.T) {
	for _, o := range sceneVariants {
		a, _, _ := analyzeScene(t, o)
		dominates := map[uint64]map[uint64]bool{}
		for v, doms := range a.Dominators {
			for _, d := range doms {
				if dominates[d] == nil {
					dominates[d] = map[uint64]bool{}
				}
				dominates[d][v] = true
			}
		}
		for d := range a.Depth {
			got := a.DominatedBy(d)
			if len(got) != len(dominates[d]) {
				t.Fatalf("%s: %#x dominates %d nodes by removal, %d by the equations", variantName(o), d, len(got), len(dominates[d]))
			}
			for _, v := range got {
				if !dominates[d][v] {
					t.Fatalf("%s: %#x dominates %#x by removal only", variantName(o), d, v)
				}
			}
		}
	}
}
