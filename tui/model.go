package tui

import (
	"sort"
	"time"

	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/monitor"
)

// Change says which parts of the model an event batch moved; panes redraw
// only for the changes they show.
type Change uint8

// Changes.
const (
	ChangeVMs       Change = 1 << iota // the VM list (appeared, gone, identity, debugger)
	ChangeThreads                      // the selected VM's threads
	ChangeHeap                         // the selected VM's heap summary or segments
	ChangeSelection                    // another VM was selected
	ChangeTick                         // time passed (blinks, expiries)
	ChangeAll       Change = 0xff
)

const (
	blinkFor = 1500 * time.Millisecond
	newFor   = 2 * time.Second
	diedFor  = 3 * time.Second
	// goneGrace is how long a VM whose session ended stays listed (dimmed)
	// before it is dropped: a DDM VM's session re-opens after a debugger
	// detaches, and adb briefly loses a VM when its transport restarts.
	// While it is listed it keeps the selection, and with it the
	// selected-VM debugger port (8700).
	goneGrace = 10 * time.Second
)

type deadThread struct {
	t  monitor.Thread
	at time.Time
}

// model is the dashboard's copy of the monitor's state, folded from bus
// events on the UI goroutine; panes render from it.
type model struct {
	vms     []monitor.VM
	sel     string // key of the selected VM
	threads map[string][]monitor.Thread
	died    map[string]map[uint64]deadThread
	heaps   map[string][]monitor.Heap
	snaps   map[string]*heap.Snapshot
	native  map[string]*heap.Snapshot
	gone    map[string]time.Time  // VMs whose session ended, kept listed until goneGrace passes
	history map[string]*vmHistory // the timeline's samples (history.go)
	// preloaded: history holds a whole recording's (Config.History)
	preloaded bool
	// failed holds endpoints that never worked as a VM (monitor.VMGone's
	// Failed) and why: listed greyed, not selected, until they work or
	// stay away for goneGrace.
	failed map[string]string
}

func newModel() *model {
	return &model{threads: map[string][]monitor.Thread{}, died: map[string]map[uint64]deadThread{},
		heaps: map[string][]monitor.Heap{}, snaps: map[string]*heap.Snapshot{}, native: map[string]*heap.Snapshot{},
		gone: map[string]time.Time{}, history: map[string]*vmHistory{}, failed: map[string]string{}}
}

// load starts from the store's state; at starts the VMs' timelines.
func (m *model) load(vms []monitor.VM, store *monitor.Store, at time.Time) {
	m.vms = vms
	for _, vm := range vms {
		h := m.historyOf(vm.Key, at)
		h.threads(at, vm.Threads)
		h.heaps(at, vm.Heaps)
		if vm.Memory != nil {
			h.memory(at, *vm.Memory)
		}
		m.threads[vm.Key] = vm.Threads
		m.heaps[vm.Key] = vm.Heaps
		if store == nil {
			continue
		}
		if s := store.Segments(vm.Key); s != nil {
			m.snaps[vm.Key] = s
		}
		if s := store.NativeSegments(vm.Key); s != nil {
			m.native[vm.Key] = s
		}
	}
}

// apply folds events in and says what changed. now is the wall clock
// (blinks, expiries); at the session's clock the timeline samples are
// stamped with (the replay's position in a replay).
func (m *model) apply(evs []monitor.Event, now, at time.Time) Change {
	var ch Change
	m.record(evs, at)
	for _, ev := range evs {
		switch e := ev.(type) {
		case monitor.VMUpdated:
			m.upsertVM(e.VM)
			ch |= ChangeVMs
		case monitor.VMGone:
			if e.Failed {
				m.failed[e.Key] = e.Reason
			}
			m.markGone(e.Key, now)
			ch |= ChangeVMs
		case monitor.ThreadsUpdated:
			m.setThreads(e.Key, e.Threads, now)
			if e.Key == m.sel {
				ch |= ChangeThreads
			}
		case monitor.HeapUpdated:
			m.heaps[e.Key] = e.Heaps
			if e.Key == m.sel {
				ch |= ChangeHeap
			}
		case monitor.SegmentsUpdated:
			m.snaps[e.Key] = e.Snapshot
			if e.Key == m.sel {
				ch |= ChangeHeap
			}
		case monitor.MemoryUpdated:
			if i, ok := m.index(e.Key); ok {
				mem := e.Memory
				m.vms[i].Memory = &mem
				if e.Key == m.sel {
					ch |= ChangeHeap
				}
			}
		case monitor.NativeSegmentsUpdated:
			m.native[e.Key] = e.Snapshot
			if e.Key == m.sel {
				ch |= ChangeHeap
			}
		}
	}
	return ch
}

func (m *model) upsertVM(vm monitor.VM) {
	delete(m.gone, vm.Key) // back (a re-opened session): same key, same row, same selection
	if vm.DDM || vm.VMIdent != "" || vm.App != "" {
		delete(m.failed, vm.Key) // it answers as a VM now
	}
	for i := range m.vms {
		if m.vms[i].Key == vm.Key {
			m.vms[i] = vm
			return
		}
	}
	m.vms = append(m.vms, vm)
	sort.SliceStable(m.vms, func(i, j int) bool {
		if m.vms[i].Source != m.vms[j].Source {
			return m.vms[i].Source < m.vms[j].Source
		}
		return m.vms[i].PID < m.vms[j].PID
	})
}

// markGone keeps a VM whose session ended listed for goneGrace; its
// threads and heap are dropped at once (they are stale).
func (m *model) markGone(key string, now time.Time) {
	if _, ok := m.index(key); !ok {
		return
	}
	m.gone[key] = now
	delete(m.threads, key)
	delete(m.died, key)
}

// isFailed reports whether key is an endpoint that failed as a VM, and why.
func (m *model) isFailed(key string) (string, bool) {
	why, ok := m.failed[key]
	return why, ok
}

// firstWorking is the first listed VM that did not fail ("" when none).
func (m *model) firstWorking() string {
	for _, vm := range m.vms {
		if _, bad := m.failed[vm.Key]; !bad {
			return vm.Key
		}
	}
	return ""
}

// isGone reports whether key's session ended and has not come back.
func (m *model) isGone(key string) bool {
	_, ok := m.gone[key]
	return ok
}

// expire drops VMs gone for longer than goneGrace. When the selected VM is
// dropped the selection moves to the VM that took its row (or the one
// above), never back to the first; it reports whether the selection moved.
func (m *model) expire(now time.Time) (selMoved, dropped bool) {
	for key, at := range m.gone {
		if now.Sub(at) < goneGrace {
			continue
		}
		i, ok := m.index(key)
		delete(m.gone, key)
		delete(m.failed, key)
		if !ok {
			continue
		}
		dropped = true
		m.vms = append(m.vms[:i], m.vms[i+1:]...)
		delete(m.heaps, key)
		delete(m.snaps, key)
		delete(m.native, key)
		delete(m.history, key)
		if m.sel == key {
			m.sel = ""
			if len(m.vms) > 0 {
				m.sel = m.vms[min(i, len(m.vms)-1)].Key
			}
			if _, bad := m.failed[m.sel]; bad {
				m.sel = m.firstWorking()
			}
			selMoved = true
		}
	}
	return selMoved, dropped
}

func (m *model) index(key string) (int, bool) {
	for i := range m.vms {
		if m.vms[i].Key == key {
			return i, true
		}
	}
	return 0, false
}

// selected returns the selected VM.
func (m *model) selected() (monitor.VM, bool) {
	if i, ok := m.index(m.sel); ok {
		return m.vms[i], true
	}
	return monitor.VM{}, false
}

func (m *model) setThreads(key string, threads []monitor.Thread, now time.Time) {
	prev := m.threads[key]
	if len(prev) > 0 {
		live := make(map[uint64]bool, len(threads))
		for _, t := range threads {
			live[t.ID] = true
		}
		for _, t := range prev {
			if !live[t.ID] {
				if m.died[key] == nil {
					m.died[key] = map[uint64]deadThread{}
				}
				m.died[key][t.ID] = deadThread{t: t, at: now}
			}
		}
	}
	m.threads[key] = threads
}

// expireDead forgets threads that died more than diedFor ago.
func (m *model) expireDead(now time.Time) {
	for key, dm := range m.died {
		for id, dt := range dm {
			if now.Sub(dt.at) > diedFor {
				delete(dm, id)
			}
		}
		if len(dm) == 0 {
			delete(m.died, key)
		}
	}
}
