package trace

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A sampled profile's call index mapped (CallIndex.Mapped) is the index
// the builder makes of the mapped stacks themselves: the samples of three
// threads, stacks of methods 2–7, each stack a change of the previous one
// at a random depth; odd methods left out (as "Java only" leaves native
// frames out), or each odd method made its even neighbour (as a method
// seen interpreted and JIT-compiled is made one).
func TestCallIndexMapped(t *testing.T) {
	for name, to := range map[string]func(int32) int32{
		"left out": func(m int32) int32 {
			if m%2 == 0 {
				return m
			}
			return -1
		},
		"merged": func(m int32) int32 { return m &^ 1 },
	} {
		t.Run(name, func(t *testing.T) { testMapped(t, to) })
	}
}

func testMapped(t *testing.T, to func(int32) int32) {
	rng := rand.New(rand.NewPCG(7, 36))
	full := NewSampleBuilder(SampleOptions{CallIndex: true})
	kept := NewSampleBuilder(SampleOptions{CallIndex: true})
	stacks := make([][]int32, 3)
	var at uint64
	for range 3000 {
		th := rng.IntN(3)
		st := stacks[th]
		st = st[:rng.IntN(len(st)+1)]
		for len(st) < 1+rng.IntN(8) {
			st = append(st, int32(2+rng.IntN(6)))
		}
		stacks[th] = st
		at += uint64(1 + rng.IntN(3))
		full.AddRootFirst(uint32(th), st, at, 1, 1)
		var ks []int32
		for _, m := range st {
			if m := to(m); m >= 0 {
				ks = append(ks, m)
			}
		}
		kept.AddRootFirst(uint32(th), ks, at, 1, 1)
	}
	methods := make([]Method, 8)
	fp := full.Finish(methods, Sampling{}, nil)
	calls := make([]int, len(fp.Threads))
	for i := range fp.Threads {
		calls[i] = len(fp.Threads[i].Index.Calls)
	}
	p := fp.Mapped(to)
	inPlace := fp.Remap(to) // fp's indexes are gone after it
	want := kept.Finish(methods, Sampling{}, nil)
	fewer := 0
	for i := range want.Threads {
		got, w := p.Threads[i].Index, want.Threads[i].Index
		if ip := inPlace.Threads[i].Index; !slices.Equal(ip.Calls, got.Calls) || !slices.EqualFunc(ip.ByDepth, got.ByDepth, slices.Equal) {
			t.Fatalf("thread %d: mapped in place differs", i)
		}
		if !slices.Equal(got.Calls, w.Calls) {
			for k := range min(len(got.Calls), len(w.Calls)) {
				if got.Calls[k] != w.Calls[k] {
					t.Fatalf("thread %d: call %d: %+v, want %+v", i, k, got.Calls[k], w.Calls[k])
				}
			}
			t.Fatalf("thread %d: %d calls, want %d", i, len(got.Calls), len(w.Calls))
		}
		if !slices.EqualFunc(got.ByDepth, w.ByDepth, slices.Equal) || got.First != w.First || got.Last != w.Last {
			t.Fatalf("thread %d: by depth or span differ", i)
		}
		fewer += calls[i] - len(got.Calls)
		if tr, wt := p.Threads[i].Tree, want.Threads[i].Tree; tr.Len() != wt.Len() || tr.Inclusive(0, ClockCPU) != wt.Inclusive(0, ClockCPU) {
			t.Fatalf("thread %d: trees of %d and %d nodes", i, tr.Len(), wt.Len())
		}
		rt, wt := got.RangeTree(ClockCPU, 100, 400), w.RangeTree(ClockCPU, 100, 400)
		if rt.Len() != wt.Len() || rt.Inclusive(0, ClockCPU) != wt.Inclusive(0, ClockCPU) {
			t.Fatalf("thread %d: range trees of %d and %d nodes", i, rt.Len(), wt.Len())
		}
	}
	if fewer == 0 {
		t.Fatal("as many calls as before")
	}
}
