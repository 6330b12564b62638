package heapdump

import (
	"runtime"
	"sync"
	"testing"
)

// listHeap builds, through a Builder, the densest heap there is: one root
// holding a linked list of n 16-byte objects (as `hprofgen -chain N`
// writes it). Its dominator tree is n deep.
func listHeap(t testing.TB, n int) *Heap {
	t.Helper()
	b := NewBuilder("test list", Options{})
	b.Grow(n, n, 1)
	b.Type(Type{ID: 1, Name: "Link", InstanceSize: 16, RefFields: []string{"next"}})
	refs := make([]uint64, 1)
	for i := range n {
		refs[0] = 0
		if i+1 < n {
			refs[0] = uint64(0x1000 + (i+1)*16)
		}
		b.Object(Object{ID: uint64(0x1000 + i*16), Type: 1, Kind: KindInstance, Size: SizeOfType, Heap: "app", Refs: refs})
	}
	b.Root(0x1000)
	h, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestDominatorsMemoryPerNode: the dominators, retained sizes, dominator
// tree and histogram of a long list allocate at most 40 bytes a node in
// all (ten 4-byte arrays over the phase, no more than four held at once
// beside the model). Before, a list's walks kept stacks of their own as
// deep as the list (8 bytes a level, grown by doubling), the predecessors
// and semi-dominators of every node were kept, and the BFS for paths ran
// in the same phase: 143 bytes a node.
func TestDominatorsMemoryPerNode(t *testing.T) {
	const n = 1 << 20
	h := listHeap(t, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	dominate(h)
	histogramRetained(h)
	runtime.ReadMemStats(&after)
	perNode := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%.1f bytes a node", perNode)
	if perNode > 42 {
		t.Errorf("the dominator phase allocated %.1f bytes a node, want at most 42", perNode)
	}
	// The answers still hold after the second run.
	first := node(t, h, 0x1000)
	last := node(t, h, uint64(0x1000+(n-1)*16))
	if got := h.Retained(first); got != n*16 {
		t.Errorf("the head retains %d, want %d", got, n*16)
	}
	if got := h.Retained(last); got != 16 {
		t.Errorf("the tail retains %d, want 16", got)
	}
	if d, ok := h.Dominator(last); !ok || d != node(t, h, uint64(0x1000+(n-2)*16)) {
		t.Errorf("the tail's dominator is %d (%v), want its predecessor", d, ok)
	}
	if top := h.Dominators().Top(0); len(top) != 1 || top[0] != first {
		t.Errorf("top dominators %v, want the head alone", top)
	}
	if r := row(t, h, "Link"); r.Retained != n*16 || r.Instances != n {
		t.Errorf("histogram row %+v, want %d objects retaining %d", r, n, n*16)
	}
}

// TestPathParentsOnFirstUse: a heap's shortest-path parents are not built
// until a query asks (most analyses never do), then once for every
// goroutine asking at the same time.
func TestPathParentsOnFirstUse(t *testing.T) {
	const n = 1000
	h := listHeap(t, n)
	if h.bfs.parent != nil {
		t.Fatal("the paths' parents were built before any query")
	}
	last := node(t, h, uint64(0x1000+(n-1)*16))
	var wg sync.WaitGroup
	depths := make([]int, 4)
	for i := range depths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			depths[i] = h.Paths().Depth(last)
		}()
	}
	wg.Wait()
	for i, d := range depths {
		if d != n {
			t.Errorf("goroutine %d: depth %d, want %d", i, d, n)
		}
	}
	if h.bfs.parent == nil {
		t.Error("the parents were not kept after the first query")
	}
}

// TestChunkQueueIsFIFO: the BFS's queue gives nodes back in the order they
// came, across chunk boundaries and with pushes between pops, and reuses an
// emptied chunk rather than allocating one per chunk's worth of pushes.
func TestChunkQueueIsFIFO(t *testing.T) {
	var q chunkQueue
	var want []int32
	next := int32(0)
	push := func(k int) {
		for range k {
			q.push(next)
			want = append(want, next)
			next++
		}
	}
	pop := func(k int) {
		for range k {
			if q.empty() {
				t.Fatalf("empty with %d nodes to come", len(want))
			}
			if v := q.pop(); v != want[0] {
				t.Fatalf("popped %d, want %d", v, want[0])
			}
			want = want[1:]
		}
	}
	push(3*queueChunk + 5)
	pop(queueChunk + 7)
	push(2*queueChunk - 3)
	pop(len(want) - 1)
	push(1)
	pop(2)
	if !q.empty() {
		t.Fatal("not empty after every node was popped")
	}
	// A frontier of one chunk moving along: one chunk in use, one spare.
	allocs := testing.AllocsPerRun(5, func() {
		for range 4 * queueChunk {
			q.push(1)
			q.pop()
		}
	})
	if allocs > 2 {
		t.Errorf("%.0f allocations to move 4 chunks' worth through a queue of one node", allocs)
	}
}
