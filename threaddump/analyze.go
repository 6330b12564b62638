package threaddump

import (
	"fmt"
	"slices"
	"strings"
)

// Analysis is what Analyze finds in one process block.
type Analysis struct {
	// States groups the threads by state class, in ClassOrder.
	States []StateGroup
	// Edges is the lock graph (spec §4): one edge per thread blocked on a
	// monitor, in thread order.
	Edges []LockEdge
	// Deadlocks lists each cycle of the lock graph once, in wait order (each
	// edge's owner is the next edge's waiter, the last's is the first's),
	// starting at the member with the lowest tid; cycles are ordered by that
	// tid.
	Deadlocks []Deadlock
	// Main describes where the main thread is stuck; nil when the process
	// has no main thread.
	Main *MainThread
	// CPU ranks the threads with CPU time by utm+stm, highest first.
	CPU []CPUUsage
}

// StateGroup is the threads of one state class.
type StateGroup struct {
	Class string // a Class constant
	Label string // ClassLabel(Class)
	// States are the printed states in the group with their explanations,
	// in order of first appearance.
	States []StateCount
	// Threads are indices into Process.Threads.
	Threads []int
}

// StateCount is one printed state and how many threads are in it.
type StateCount struct {
	StateInfo
	Count int
}

// LockEdge is a thread waiting for a monitor held by another thread.
type LockEdge struct {
	Waiter int   // index into Process.Threads
	Lock   *Lock // the `waiting to lock` (or inflation) line
	// HeldBy is the owner's VM thread id: from the lock line, or else found
	// through another thread's `- locked` line for the same object.
	HeldBy int
	// Owner is the owner's index into Process.Threads, -1 when no thread of
	// the dump has that tid (or nothing names the owner).
	Owner int
	// OwnerFromLocked reports that the owner was found through a `- locked`
	// line because the waiting line did not name it.
	OwnerFromLocked bool
}

// Deadlock is one cycle of the lock graph in wait order.
type Deadlock []LockEdge

// MainThread says where the main thread is and what it waits for.
type MainThread struct {
	Thread int // index into Process.Threads
	// Frame is the index in the thread's Frames of its top Java frame, or of
	// its top native frame when it has no Java frames; -1 when it has none.
	Frame int
	// Wait is the lock line that says what it waits for, or nil.
	Wait *Lock
	// Owner is the index of the thread holding the monitor in Wait, or -1.
	Owner int
	// Idle reports the main looper waiting for messages
	// (MessageQueue.nativePollOnce): a main thread that is not stuck.
	Idle bool
	// Deadlocked reports that the main thread is a member of a deadlock.
	Deadlocked bool
	// Summary is one sentence for people, built from dump text: sanitise it
	// before showing it.
	Summary string
}

// CPUUsage is one thread's CPU time.
type CPUUsage struct {
	Thread  int // index into Process.Threads
	Jiffies int // utm+stm
	// Seconds is Jiffies/HZ, 0 when the dump does not print HZ.
	Seconds float64
}

// Analyze groups p's threads by state, builds its lock graph, finds the
// deadlocks, describes the main thread and ranks CPU use.
func Analyze(p *Process) *Analysis {
	a := &Analysis{}
	a.States = groupStates(p)
	a.Edges = lockEdges(p)
	a.Deadlocks = findDeadlocks(p, a.Edges)
	a.Main = describeMain(p, a)
	a.CPU = rankCPU(p)
	return a
}

// stateKey names one printed state within its class.
type stateKey struct{ class, name string }

func groupStates(p *Process) []StateGroup {
	byClass := map[string]*StateGroup{}
	stateAt := map[stateKey]int{} // index in its group's States
	for i, t := range p.Threads {
		info := t.StateInfo()
		g := byClass[info.Class]
		if g == nil {
			g = &StateGroup{Class: info.Class, Label: ClassLabel(info.Class)}
			byClass[info.Class] = g
		}
		g.Threads = append(g.Threads, i)
		k := stateKey{info.Class, info.Name}
		j, ok := stateAt[k]
		if !ok {
			g.States = append(g.States, StateCount{StateInfo: info})
			j = len(g.States) - 1
			stateAt[k] = j
		}
		g.States[j].Count++
	}
	var groups []StateGroup
	for _, c := range ClassOrder {
		if g := byClass[c]; g != nil {
			groups = append(groups, *g)
		}
	}
	return groups
}

// lockEdges builds the graph of spec §4: for each thread blocked on a
// monitor (class monitor: Blocked, WaitingForLockInflation, MONITOR) with a
// waiting-to-lock line, an edge to the owner named by "held by", or else to
// the thread whose `- locked` lines hold the same object (ART only: object
// identities are compared within this process block only). Owners are
// looked up in indexes built once, so the graph costs time linear in the
// dump.
func lockEdges(p *Process) []LockEdge {
	byTID := tidIndex(p)
	var holders map[string][2]int // built on first need
	var edges []LockEdge
	for i, t := range p.Threads {
		if t.Unattached || t.StateInfo().Class != ClassMonitor {
			continue
		}
		l := t.WaitingToLock()
		if l == nil {
			continue
		}
		e := LockEdge{Waiter: i, Lock: l, HeldBy: l.HeldBy, Owner: -1}
		if e.HeldBy != 0 {
			if j, ok := byTID[e.HeldBy]; ok {
				e.Owner = j
			}
		} else if !l.UnknownObject && l.Object != "" {
			if holders == nil {
				holders = holderIndex(p)
			}
			if h, ok := holders[l.Object]; ok {
				e.Owner = h[0]
				if e.Owner == i {
					e.Owner = h[1]
				}
			}
			if e.Owner >= 0 {
				e.HeldBy = p.Threads[e.Owner].TID
				e.OwnerFromLocked = true
			}
		}
		edges = append(edges, e)
	}
	return edges
}

// tidIndex maps each VM thread id to its first attached thread (as
// Process.Thread finds it).
func tidIndex(p *Process) map[int]int {
	m := make(map[int]int, len(p.Threads))
	for i, t := range p.Threads {
		if t.Unattached || t.TID <= 0 {
			continue
		}
		if _, dup := m[t.TID]; !dup {
			m[t.TID] = i
		}
	}
	return m
}

// holderIndex maps each object named by a `- locked` line of an attached
// thread to the first two threads (in order) holding it, -1 for none: the
// holder of an object for any waiter, the waiter itself excepted.
func holderIndex(p *Process) map[string][2]int {
	m := map[string][2]int{}
	for j, t := range p.Threads {
		if t.Unattached || t.TID <= 0 {
			continue
		}
		for _, l := range t.Locks {
			if l.Kind != LockHeld || l.UnknownObject {
				continue
			}
			h, ok := m[l.Object]
			switch {
			case !ok:
				m[l.Object] = [2]int{j, -1}
			case h[0] != j && h[1] < 0:
				h[1] = j
				m[l.Object] = h
			}
		}
	}
	return m
}

// findDeadlocks finds the cycles of the lock graph. Each thread waits for at
// most one monitor, so every thread has at most one outgoing edge and each
// cycle is found by following edges from any of its members; a thread
// waiting for itself (monitors are re-entrant) is not a cycle.
func findDeadlocks(p *Process, edges []LockEdge) []Deadlock {
	next := map[int]int{} // waiter -> edge index
	for k, e := range edges {
		if e.Owner >= 0 && e.Owner != e.Waiter {
			next[e.Waiter] = k
		}
	}
	const (
		unvisited = iota
		onPath
		done
	)
	mark := make([]int, len(p.Threads))
	var cycles []Deadlock
	for start := range p.Threads {
		if mark[start] != unvisited {
			continue
		}
		var path []int // thread indices in walk order
		cur := start
		for {
			if mark[cur] == onPath {
				// The cycle is the part of path from cur's first position.
				from := slices.Index(path, cur)
				cycles = append(cycles, makeCycle(p, edges, next, path[from:]))
				break
			}
			if mark[cur] == done {
				break
			}
			mark[cur] = onPath
			path = append(path, cur)
			k, ok := next[cur]
			if !ok {
				break
			}
			cur = edges[k].Owner
		}
		for _, t := range path {
			mark[t] = done
		}
	}
	slices.SortFunc(cycles, func(a, b Deadlock) int {
		ta, tb := p.Threads[a[0].Waiter].TID, p.Threads[b[0].Waiter].TID
		if ta != tb {
			return ta - tb
		}
		return a[0].Waiter - b[0].Waiter
	})
	return cycles
}

// makeCycle turns the thread indices of a cycle (in wait order) into edges,
// rotated to start at the member with the lowest tid (then lowest index).
func makeCycle(p *Process, edges []LockEdge, next map[int]int, members []int) Deadlock {
	first := 0
	for i, m := range members {
		best, cand := p.Threads[members[first]], p.Threads[m]
		if cand.TID < best.TID || (cand.TID == best.TID && m < members[first]) {
			first = i
		}
	}
	cycle := make(Deadlock, 0, len(members))
	for i := range members {
		cycle = append(cycle, edges[next[members[(first+i)%len(members)]]])
	}
	return cycle
}

// MainThreadIndex returns the index of the main thread: the attached thread
// with tid 1, else the first thread named "main", else (native processes)
// the thread whose sysTid is the pid; -1 when there is none.
func MainThreadIndex(p *Process) int {
	if i := p.threadIndex(1); i >= 0 {
		return i
	}
	for i, t := range p.Threads {
		if t.Name == "main" {
			return i
		}
	}
	for i, t := range p.Threads {
		if t.SysTID == p.PID && t.SysTID != 0 {
			return i
		}
	}
	return -1
}

func describeMain(p *Process, a *Analysis) *MainThread {
	i := MainThreadIndex(p)
	if i < 0 {
		return nil
	}
	t := p.Threads[i]
	m := &MainThread{Thread: i, Frame: t.TopJavaFrame(), Owner: -1, Wait: t.Waiting()}
	if m.Frame < 0 {
		m.Frame = slices.IndexFunc(t.Frames, func(f Frame) bool { return f.Kind == FrameNative })
	}
	for _, e := range a.Edges {
		if e.Waiter == i {
			m.Owner = e.Owner
		}
	}
	for _, d := range a.Deadlocks {
		for _, e := range d {
			m.Deadlocked = m.Deadlocked || e.Waiter == i
		}
	}
	if m.Frame >= 0 {
		f := t.Frames[m.Frame]
		m.Idle = f.Kind == FrameJava && f.Class == "android.os.MessageQueue" && f.Method == "nativePollOnce"
	}
	m.Summary = mainSummary(p, t, m)
	return m
}

func mainSummary(p *Process, t *Thread, m *MainThread) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q", t.Name)
	if !t.Unattached {
		fmt.Fprintf(&b, " (tid %d)", t.TID)
	}
	info := t.StateInfo()
	if m.Idle {
		b.WriteString(" is idle in its message loop, waiting for input")
	} else {
		fmt.Fprintf(&b, " is %s: %s", info.Name, info.Explanation)
	}
	if m.Frame >= 0 {
		b.WriteString("; at " + t.Frames[m.Frame].String())
	} else {
		b.WriteString("; no stack frames")
	}
	if m.Wait != nil && !m.Idle {
		b.WriteString(", " + m.Wait.Kind.String() + " " + m.Wait.ObjectText())
		if m.Owner >= 0 {
			owner := p.Threads[m.Owner]
			fmt.Fprintf(&b, " held by %q (tid %d)", owner.Name, owner.TID)
		} else if m.Wait.HeldBy != 0 {
			fmt.Fprintf(&b, " held by tid %d", m.Wait.HeldBy)
		}
	}
	if m.Deadlocked {
		b.WriteString("; it is part of a deadlock")
	}
	return b.String()
}

func rankCPU(p *Process) []CPUUsage {
	var ranked []CPUUsage
	for i, t := range p.Threads {
		if t.CPU() <= 0 {
			continue
		}
		u := CPUUsage{Thread: i, Jiffies: t.CPU()}
		if t.HZ > 0 {
			u.Seconds = float64(u.Jiffies) / float64(t.HZ)
		}
		ranked = append(ranked, u)
	}
	slices.SortStableFunc(ranked, func(a, b CPUUsage) int { return b.Jiffies - a.Jiffies })
	return ranked
}
