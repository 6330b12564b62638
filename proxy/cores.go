package proxy

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A poll needs a core of its own (issue 39): while the proxy's thread
// polls, the VM and the debugger must still find a CPU to answer on. The
// moving averages of spinRule notice a contested CPU only after polls have
// cost the waits they took; coreGate looks first. It samples, at most
// every coreSampleEvery, how many cores the rest of the machine keeps busy
// (every CPU's busy time, less this process's own CPU time, which includes
// the polls), and lets a wait be polled for only while more than pollFreeCores
// are left free by others. On a machine whose other work leaves no core
// idle the proxy then never polls; when the work stops it polls again at
// the next sample.

// pollFreeCores is how many cores the rest of the machine must leave idle
// for the gate to open. The sample counts the VM and the debugger among
// the others, and in a session they take turns with the proxy: while it
// polls for a reply the debugger waits and the VM works, while it polls for
// a command the VM waits. Their work alone takes most of a core on a round
// trip back to back (about 0.7 of one here), so an idle 2-core machine
// leaves 1.0–1.3 free and polling fits; a CPU-bound job beside them leaves
// under 0.5, and a poll would take the core the VM needs.
const pollFreeCores = 0.5

// coreSampleEvery is how often the gate samples the machine's CPU use.
const coreSampleEvery = 100 * time.Millisecond

// cpuSample is what one sample reads: the machine's busy and total CPU
// time (in any unit, the same for both; all CPUs together) and this
// process's own CPU time. ok is false where it cannot be read.
type cpuSample struct {
	busy, total uint64
	self        time.Duration
	ok          bool
}

// coreGate reports whether a core is free for a poll. Any goroutine may ask.
type coreGate struct {
	// read takes a sample (readCPU; tests stub it), now the time.
	read func() cpuSample
	now  func() time.Time
	cpus int

	mu      sync.Mutex // held by the one goroutine taking a sample
	prev    cpuSample
	prevAt  time.Time
	next    atomic.Int64 // UnixNano of the next sample
	free    atomic.Bool  // the last sample's answer
	sampled atomic.Bool  // a first sample was taken
}

func newCoreGate() *coreGate {
	g := &coreGate{read: readCPU, now: time.Now, cpus: runtime.NumCPU()}
	g.free.Store(true)
	return g
}

// ok reports whether others leave more than pollFreeCores free, as of the last
// sample; a sample due is taken by the first caller that finds the gate
// unlocked, the others use the last answer.
func (g *coreGate) ok() bool {
	if g == nil {
		return true
	}
	now := g.now()
	if now.UnixNano() < g.next.Load() || !g.mu.TryLock() {
		return g.free.Load()
	}
	defer g.mu.Unlock()
	if now.UnixNano() < g.next.Load() {
		return g.free.Load()
	}
	g.next.Store(now.Add(coreSampleEvery).UnixNano())
	s := g.read()
	if !s.ok {
		g.free.Store(true) // nothing to go by: the averages decide alone
		return true
	}
	if g.sampled.Swap(true) {
		g.free.Store(freeCores(g.prev, s, now.Sub(g.prevAt), g.cpus) > pollFreeCores)
	}
	g.prev, g.prevAt = s, now
	return g.free.Load()
}

// freeCores is how many of cpus cores the rest of the machine left idle
// between samples a and b, wall apart: the machine's busy share of all
// its CPU time, less this process's own CPU time over the wall time.
func freeCores(a, b cpuSample, wall time.Duration, cpus int) float64 {
	if b.total <= a.total || b.busy < a.busy || wall <= 0 {
		return float64(cpus)
	}
	busy := float64(b.busy-a.busy) / float64(b.total-a.total) * float64(cpus)
	busy -= float64(b.self-a.self) / float64(wall)
	return float64(cpus) - max(busy, 0)
}
