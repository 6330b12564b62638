package trace

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The projection of a sampled profile's call index is the index the
// builder makes of the projected stacks themselves: the samples of three
// threads, stacks of methods 2–7 (odd ones left out, as "Java only"
// leaves native frames out), each stack a change of the previous one at a
// random depth.
func TestCallIndexProjected(t *testing.T) {
	keep := func(m int32) bool { return m%2 == 0 }
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
			if keep(m) {
				ks = append(ks, m)
			}
		}
		kept.AddRootFirst(uint32(th), ks, at, 1, 1)
	}
	methods := make([]Method, 8)
	p := full.Finish(methods, Sampling{}, nil).Projected(keep)
	want := kept.Finish(methods, Sampling{}, nil)
	dropped := 0
	for i := range want.Threads {
		got, w := p.Threads[i].Index, want.Threads[i].Index
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
		dropped += len(full.threads[i].index.Calls) - len(got.Calls)
		rt, wt := got.RangeTree(ClockCPU, 100, 400), w.RangeTree(ClockCPU, 100, 400)
		if rt.Len() != wt.Len() || rt.Inclusive(0, ClockCPU) != wt.Inclusive(0, ClockCPU) {
			t.Fatalf("thread %d: range trees of %d and %d nodes", i, rt.Len(), wt.Len())
		}
	}
	if dropped == 0 {
		t.Fatal("no call left out")
	}
}
