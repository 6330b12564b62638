package monitor

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/internal/budget"
)

// Store keeps the latest model of every VM and publishes each change on its
// Bus. Sessions write; views and commands read snapshots.
type Store struct {
	bus *Bus

	decodeErrors atomic.Uint64 // malformed chunks the sessions dropped

	mu     sync.RWMutex
	vms    map[string]*VM
	snaps  map[string]*heap.Snapshot // last complete HPSG/HPSO set per VM
	native map[string]*heap.Snapshot // last complete NHSG set per VM
	// threadSeq is the sequence number of each VM's thread table (setThreads).
	threadSeq map[string]uint64
	// viewBudget is what the view trees kept in VM.Views are charged to
	// (setViewDump): DefaultViewTreeBytes of the process-wide budget.
	viewBudget *budget.Budget
	// threadBudget is what the VMs' thread tables are charged to (each
	// session's threadBook, at every publish): DefaultThreadTableBytes of
	// the process-wide budget.
	threadBudget *budget.Budget
}

// DefaultThreadTableBytes is the share of the process-wide budget that the
// VMs' thread tables may hold together: a real app's table is a few dozen
// KiB (200 threads), a VM's cap (DefaultMaxThreads rows, names of up to
// MaxThreadName bytes) about 12 MiB, so a few hostile VMs cannot take the
// budget from the rest.
const DefaultThreadTableBytes = 32 << 20

// DefaultViewTreeBytes is the share of the process-wide budget that the
// view trees a store keeps (VM.Views: each VM's last dump of up to 32
// windows) may hold together.
const DefaultViewTreeBytes = 64 << 20

// NewStore returns an empty store publishing on bus.
func NewStore(bus *Bus) *Store {
	return &Store{bus: bus, vms: map[string]*VM{}, snaps: map[string]*heap.Snapshot{}, native: map[string]*heap.Snapshot{},
		threadSeq: map[string]uint64{}, viewBudget: budget.Process.Child(DefaultViewTreeBytes),
		threadBudget: budget.Process.Child(DefaultThreadTableBytes)}
}

// setViewDump keeps d as its window's latest dump in the VM's model (the
// last maxViewWindows windows), its tree charged to the store's view
// budget: a tree that does not fit, even once cheaper things made room, is
// left out and d says why. The trees it replaces give their bytes back.
func (s *Store) setViewDump(key string, d WindowDump) {
	if n := d.Tree.Bytes(); n > 0 {
		if s.viewBudget.TakeBefore(n, budget.RankViewTree+1) {
			d.held = n
		} else {
			d.Tree, d.Err = nil, fmt.Sprintf("a view tree of %d MiB: more than the memory budget has left (%s)", (n+(1<<20)-1)>>20, s.viewBudget)
		}
	}
	var freed int64
	ok := s.updateExisting(key, func(vm *VM) {
		views := make([]WindowDump, 0, len(vm.Views)+1)
		for _, v := range vm.Views {
			if v.Window != d.Window {
				views = append(views, v)
			} else {
				freed += v.held
			}
		}
		views = append(views, d)
		if len(views) > maxViewWindows {
			for _, v := range views[:len(views)-maxViewWindows] {
				freed += v.held
			}
			views = views[len(views)-maxViewWindows:]
		}
		vm.Views = views
	})
	if !ok {
		freed += d.held
	}
	s.viewBudget.Give(freed)
}

// dropViewTrees lets go of the view trees kept of windows other than each
// VM's latest dump (in key order) until need bytes are given back: the
// engine's reclaimer of rank budget.RankViewTree. A window let go keeps
// its entry, without a tree, saying so. It never waits for the store's
// lock (budget.Reclaim).
func (s *Store) dropViewTrees(need int64) (freed int64, trees int) {
	if !s.mu.TryLock() {
		return 0, 0
	}
	keys := make([]string, 0, len(s.vms))
	for k, vm := range s.vms {
		if len(vm.Views) > 1 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var updated []VM
	for _, k := range keys {
		if freed >= need {
			break
		}
		vm := s.vms[k]
		views := append([]WindowDump(nil), vm.Views...) // snapshots share the old slice
		changed := false
		for i := range views[:len(views)-1] {
			if views[i].held > 0 && freed < need {
				freed += views[i].held
				trees++
				views[i] = WindowDump{Window: views[i].Window, At: views[i].At, Err: "let go to make room (memory budget): dump it again"}
				changed = true
			}
		}
		if changed {
			vm.Views = views
			updated = append(updated, vm.copy())
		}
	}
	s.mu.Unlock()
	s.viewBudget.Give(freed)
	for _, vm := range updated {
		s.bus.Publish(VMUpdated{VM: vm})
	}
	return freed, trees
}

// Bus returns the store's bus.
func (s *Store) Bus() *Bus { return s.bus }

// UpdateVM applies fn to the VM with key (created if absent) and publishes
// the result.
func (s *Store) UpdateVM(key string, fn func(*VM)) {
	s.mu.Lock()
	vm, ok := s.vms[key]
	if !ok {
		vm = &VM{Key: key, Debugger: DebuggerNone}
		s.vms[key] = vm
	}
	fn(vm)
	snap := vm.copy()
	s.mu.Unlock()
	s.bus.Publish(VMUpdated{VM: snap})
}

// updateExisting applies fn to the VM with key only if it is present, and
// publishes the result.
func (s *Store) updateExisting(key string, fn func(*VM)) bool {
	s.mu.Lock()
	vm, ok := s.vms[key]
	if !ok {
		s.mu.Unlock()
		return false
	}
	fn(vm)
	snap := vm.copy()
	s.mu.Unlock()
	s.bus.Publish(VMUpdated{VM: snap})
	return true
}

// SetThreads replaces a VM's thread table and publishes it.
func (s *Store) SetThreads(key string, threads []Thread) {
	s.setThreads(key, 0, threads)
}

// setThreads replaces a VM's thread table with one taken at sequence number
// seq (threadTableLocked), and publishes it, unless the store holds a table
// taken later: sessions take a table under their lock and publish it after
// unlocking, so an older table must not overwrite a newer one. The bus is
// told under the store's lock, so its subscribers see tables in the same
// order. seq 0 (SetThreads) is unordered: always applied.
func (s *Store) setThreads(key string, seq uint64, threads []Thread) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vm, ok := s.vms[key]
	if !ok {
		return
	}
	if seq != 0 {
		if seq <= s.threadSeq[key] {
			return
		}
		s.threadSeq[key] = seq
	}
	vm.Threads = threads
	s.bus.Publish(ThreadsUpdated{Key: key, Threads: threads})
}

// SetHeaps replaces a VM's heaps and publishes them.
func (s *Store) SetHeaps(key string, heaps []Heap) {
	s.mu.Lock()
	vm, ok := s.vms[key]
	if ok {
		vm.Heaps = heaps
	}
	s.mu.Unlock()
	if ok {
		s.bus.Publish(HeapUpdated{Key: key, Heaps: heaps})
	}
}

// SetSegments stores the latest segment snapshot of a VM's heap. The
// snapshot it replaces is released (heap.Budget), as is snap itself when
// the VM is gone.
func (s *Store) SetSegments(key string, snap *heap.Snapshot) {
	s.setSnapshot(s.snaps, key, snap, func() Event { return SegmentsUpdated{Key: key, Snapshot: snap} })
}

// SetNativeSegments stores the latest native-heap snapshot of a VM, as
// SetSegments does.
func (s *Store) SetNativeSegments(key string, snap *heap.Snapshot) {
	s.setSnapshot(s.native, key, snap, func() Event { return NativeSegmentsUpdated{Key: key, Snapshot: snap} })
}

func (s *Store) setSnapshot(m map[string]*heap.Snapshot, key string, snap *heap.Snapshot, event func() Event) {
	s.mu.Lock()
	_, ok := s.vms[key]
	old := m[key]
	if ok {
		m[key] = snap
	}
	s.mu.Unlock()
	if !ok {
		snap.Release()
		return
	}
	if old != snap {
		old.Release()
	}
	s.bus.Publish(event())
}

// dropHeapMaps lets go of the heap maps kept of the VMs drop says may go
// (in key order) until need bytes are given back, and tells the bus (a nil
// snapshot): the engine's reclaimer of rank budget.RankHeapMap. It never
// waits for the store's lock (budget.Reclaim).
func (s *Store) dropHeapMaps(need int64, drop func(key string) bool) (freed int64, maps int) {
	if !s.mu.TryLock() {
		return 0, 0
	}
	keys := make([]string, 0, len(s.snaps)+len(s.native))
	for k := range s.snaps {
		keys = append(keys, k)
	}
	for k := range s.native {
		if _, ok := s.snaps[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var released []*heap.Snapshot
	var events []Event
	for _, k := range keys {
		if freed >= need {
			break
		}
		if !drop(k) {
			continue
		}
		if snap := s.snaps[k]; snap.Held() > 0 {
			freed += snap.Held()
			released = append(released, snap)
			delete(s.snaps, k)
			events = append(events, SegmentsUpdated{Key: k})
		}
		if snap := s.native[k]; snap.Held() > 0 {
			freed += snap.Held()
			released = append(released, snap)
			delete(s.native, k)
			events = append(events, NativeSegmentsUpdated{Key: k})
		}
	}
	s.mu.Unlock()
	for _, snap := range released {
		snap.Release()
	}
	for _, ev := range events {
		s.bus.Publish(ev)
	}
	return freed, len(released)
}

// NativeSegments returns the latest native-heap snapshot of a VM, or nil.
func (s *Store) NativeSegments(key string) *heap.Snapshot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.native[key]
}

// Segments returns the latest segment snapshot of a VM, or nil.
func (s *Store) Segments(key string) *heap.Snapshot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.snaps[key]
}

// Remove forgets a VM and publishes VMGone.
func (s *Store) Remove(key, reason string) { s.remove(key, reason, false) }

// RemoveFailed forgets an endpoint that never worked as a VM and publishes
// VMGone with Failed set.
func (s *Store) RemoveFailed(key, reason string) { s.remove(key, reason, true) }

func (s *Store) remove(key, reason string, failed bool) {
	s.mu.Lock()
	vm, ok := s.vms[key]
	if ok {
		for _, v := range vm.Views {
			s.viewBudget.Give(v.held)
		}
	}
	s.snaps[key].Release()
	s.native[key].Release()
	delete(s.vms, key)
	delete(s.snaps, key)
	delete(s.native, key)
	delete(s.threadSeq, key)
	s.mu.Unlock()
	if ok {
		s.bus.Publish(VMGone{Key: key, Reason: reason, Failed: failed})
	}
}

// VM returns a snapshot of one VM.
func (s *Store) VM(key string) (VM, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	vm, ok := s.vms[key]
	if !ok {
		return VM{}, false
	}
	return vm.copy(), true
}

// VMs returns snapshots of every VM, ordered by source then pid.
func (s *Store) VMs() []VM {
	s.mu.RLock()
	out := make([]VM, 0, len(s.vms))
	for _, vm := range s.vms {
		out = append(out, vm.copy())
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Source != out[j].Source {
			return out[i].Source < out[j].Source
		}
		return out[i].PID < out[j].PID
	})
	return out
}

// copy returns a VM whose slices are not shared with the store's.
func (vm *VM) copy() VM {
	c := *vm
	c.Features = append([]string(nil), vm.Features...)
	c.Capabilities = vm.Capabilities.clone()
	c.Memory = vm.Memory.clone()
	c.Threads = append([]Thread(nil), vm.Threads...)
	c.Heaps = make([]Heap, len(vm.Heaps))
	for i, h := range vm.Heaps {
		c.Heaps[i] = h
		c.Heaps[i].History = append([]HeapSample(nil), h.History...)
		if h.Segments != nil {
			seg := *h.Segments
			c.Heaps[i].Segments = &seg
		}
	}
	return c
}

// SegmentsUpdated says a VM's heap segments were refreshed.
type SegmentsUpdated struct {
	Key      string
	Snapshot *heap.Snapshot
}

// CoalesceKey keeps only the newest segment set per VM.
func (e SegmentsUpdated) CoalesceKey() string { return "segments/" + e.Key }

// NativeSegmentsUpdated says a VM's native heap map was refreshed.
type NativeSegmentsUpdated struct {
	Key      string
	Snapshot *heap.Snapshot
}

// CoalesceKey keeps only the newest native set per VM.
func (e NativeSegmentsUpdated) CoalesceKey() string { return "native/" + e.Key }
