package monitor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
)

// Engine runs a Session for every endpoint discovery hands it and keeps
// them reachable by VM key, so views can ask a VM for a GC, a stack, or
// heap segments.
type Engine struct {
	store   *Store
	opts    SessionOptions
	devices *devshell.Cache // what is read once per device (API level)

	mu       sync.Mutex
	sessions map[string]*Session
	stopping <-chan struct{} // Run's context: done when the monitor stops
	counters engineCounters
	failed   map[string]failure // endpoints that were not working VMs, by key (bounded)
}

// NewEngine returns an engine writing into store.
func NewEngine(store *Store, opts SessionOptions) *Engine {
	opts.fill()
	// The budgets shared by every session are shares of the process-wide
	// budget (internal/budget): VMs under attack in several ways at once
	// stay within it together. The transfers a user asked for (streamed
	// heap dumps, traces) have a budget of their own.
	if opts.Budget == nil {
		opts.Budget = budget.Process.Child(jdwp.DefaultProcessBudget)
	}
	if opts.StreamBudget == nil {
		opts.StreamBudget = jdwp.NewBudget(jdwp.DefaultStreamBudget)
	}
	if opts.SegmentBudget == nil {
		opts.SegmentBudget = budget.Process.Child(heap.DefaultProcessBudget)
	}
	return &Engine{store: store, opts: opts, devices: devshell.NewCache(), sessions: map[string]*Session{}, failed: map[string]failure{}}
}

// Store is the engine's model.
func (e *Engine) Store() *Store { return e.store }

// Handle runs a session on ep until it ends; it is a scan.Handler.
func (e *Engine) Handle(ctx context.Context, ep scan.Endpoint) error {
	if ep.Conn != nil { // nil: a process without JDWP
		ep.Conn = countingConn{Conn: ep.Conn, n: &e.counters.bytesRead}
	}
	s := NewSession(ep, e.store, e.opts)
	s.src.cache = e.devices
	e.mu.Lock()
	s.stopping = e.stopping
	if _, dup := e.sessions[ep.Key]; dup {
		e.mu.Unlock()
		if ep.Conn != nil {
			ep.Conn.Close()
		}
		return nil
	}
	e.sessions[ep.Key] = s
	e.noteSessionLocked(ep.Key)
	e.mu.Unlock()
	err := s.Run(ctx, ep.Conn)
	why := s.endFailure(ctx, err)
	e.mu.Lock()
	if e.sessions[ep.Key] == s {
		delete(e.sessions, ep.Key)
	}
	e.recordEndLocked(ep, s, why, why != "" && errors.Is(err, scan.ErrBusy))
	e.mu.Unlock()
	return err
}

// Session returns the running session of a VM, or nil.
func (e *Engine) Session(key string) *Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions[key]
}

// Keys lists the keys of running sessions.
func (e *Engine) Keys() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	keys := make([]string, 0, len(e.sessions))
	for k := range e.sessions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Discovery says where to look for VMs.
type Discovery struct {
	Local *scan.Local // nil: no local scan
	// ADB lists adb discoveries (scan.ADB), one per adb server.
	ADB []Runner
}

// Runner is a discovery that hands endpoints to a handler until ctx ends.
type Runner interface {
	Run(ctx context.Context, h scan.Handler) error
}

// Run runs discovery until ctx ends and waits for every session to finish.
// While it runs, the heap maps kept of VMs nobody asks maps of and the
// view trees of windows not dumped last give way when the memory budget is
// spent (reclaimHeapMaps, reclaimViewTrees).
func (e *Engine) Run(ctx context.Context, d Discovery) error {
	e.mu.Lock()
	e.stopping = ctx.Done()
	e.mu.Unlock()
	defer e.opts.SegmentBudget.Reclaimer(budget.RankHeapMap, e.reclaimHeapMaps)()
	defer e.store.viewBudget.Reclaimer(budget.RankViewTree, e.reclaimViewTrees)()
	runners := append([]Runner(nil), d.ADB...)
	if d.Local != nil {
		runners = append(runners, d.Local)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(runners))
	for _, r := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- r.Run(ctx, e.Handle)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil && ctx.Err() == nil {
			return err
		}
	}
	return nil
}

// reclaimHeapMaps lets go of the heap maps the store keeps of VMs whose
// maps nobody asks for now (a VM's own session asks again when it is
// selected; the map comes at its next GC), for the memory budget
// (budget.Reclaim: it never waits for a lock).
func (e *Engine) reclaimHeapMaps(need int64) (int64, string) {
	if !e.mu.TryLock() {
		return 0, ""
	}
	asked := map[string]bool{}
	for k, s := range e.sessions {
		asked[k] = s.heaps != nil && s.heaps.askedNow()
	}
	e.mu.Unlock()
	freed, n := e.store.dropHeapMaps(need, func(key string) bool { return !asked[key] })
	if n == 1 {
		return freed, "a heap map of a VM not looked at"
	}
	return freed, fmt.Sprintf("%d heap maps of VMs not looked at", n)
}

// reclaimViewTrees lets go of the view trees the store keeps of windows
// other than each VM's last dump (budget.Reclaim).
func (e *Engine) reclaimViewTrees(need int64) (int64, string) {
	freed, n := e.store.dropViewTrees(need)
	if n == 1 {
		return freed, "a view tree of a window not dumped last"
	}
	return freed, fmt.Sprintf("%d view trees of windows not dumped last", n)
}
