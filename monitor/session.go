package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
)

// SessionOptions tune a VM session. The zero value gives the defaults.
type SessionOptions struct {
	// ThreadInterval is how often THST is polled (real VMs never push it).
	ThreadInterval time.Duration // default 1s
	// JDWPThreadInterval is how often a non-DDM VM's threads are polled
	// with standard JDWP commands.
	JDWPThreadInterval time.Duration // default 2s
	// RequestTimeout bounds one request. Timeouts are soft: modern ART
	// leaves many DDM requests unanswered.
	RequestTimeout time.Duration // default 3s
	// HandshakeTimeout bounds the JDWP handshake.
	HandshakeTimeout time.Duration // default 5s
	// Segments asks for HPSG heap segments at every GC from the start.
	Segments bool
	// MaxThreads caps a VM's thread table (0: DefaultMaxThreads); past it
	// new threads are not added and the VM shows TooManyThreads.
	MaxThreads int
	// MaxPacketLen bounds incoming JDWP packets (0: DefaultVMPacketLen);
	// StreamPacketLen (0: jdwp.DefaultMaxPacketLen) while a streamed heap
	// dump or trace is awaited.
	MaxPacketLen, StreamPacketLen int
	// Budget bounds the large packets being received or waiting by all
	// sessions together, StreamBudget those longer than MaxPacketLen
	// (streamed transfers); nil: none. NewEngine gives its sessions two
	// they share.
	Budget, StreamBudget *jdwp.Budget
	Logger               *slog.Logger
}

func (o *SessionOptions) fill() {
	if o.ThreadInterval <= 0 {
		o.ThreadInterval = time.Second
	}
	if o.JDWPThreadInterval <= 0 {
		o.JDWPThreadInterval = 2 * time.Second
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 3 * time.Second
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = jdwp.DefaultHandshakeTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	o.fillLimits()
	if o.MaxThreads <= 0 {
		o.MaxThreads = DefaultMaxThreads
	}
}

// Session monitors one VM over its JDWP connection. It decides from the HELO
// reply whether the VM speaks DDM: if it does, only DDM packets are ever sent
// (any other JDWP command would make an Android VM believe a debugger
// attached, spec/jdwp.md §3); if HELO is refused with a JDWP error, threads
// are polled with standard commands instead.
type Session struct {
	key, source string
	pid         int
	shell       func(ctx context.Context, cmd string) ([]byte, error)
	store       *Store
	opts        SessionOptions
	log         *slog.Logger

	jc     *jdwp.Conn
	ready  chan struct{} // closed once HELO decided whether the VM speaks DDM (and, if it does, its identity and FEAT are stored)
	family ddm.VMFamily
	isDDM  bool // written before ready is closed, read after

	// How HELO was decided, for the engine's view (written before ready is
	// closed): unanswered, or refused with a JDWP error (a plain JDWP VM).
	silent, refused bool
	hsErr           error // the handshake failed (written before ready is closed; jc stays nil)

	largeState   // streamed transfers in progress (limits.go)
	threadsState // publishing of the thread table, the cap (threads.go)

	mu         sync.Mutex
	threads    map[uint64]*Thread
	heaps      map[int]*Heap
	asm        heap.Assembler // HPST…HPSG/HPSO…HPEN
	nasm       heap.Assembler // NHST…NHSG…NHEN
	segOpts    SegmentOptions
	segmentsOn bool
	thstMisses int
	passthru   func(*jdwp.Packet)
	// early keeps the VM's first non-DDM commands (a VM_START event sent
	// right after the handshake) until a passthrough is first set.
	early      []*jdwp.Packet
	earlyBytes int
	earlyDone  bool
	waiting    map[ddm.Type]chan []byte // collectStreamed's waiters, by the chunk type awaited
	traceFile  bool                     // the running trace goes to a device file (MPRS)
}

// NewSession prepares a session for an endpoint found by scan.
func NewSession(ep scan.Endpoint, store *Store, opts SessionOptions) *Session {
	opts.fill()
	return &Session{
		key: ep.Key, source: ep.Source, pid: ep.PID, shell: ep.Shell, store: store, opts: opts,
		log:     opts.Logger.With("vm", ep.Key),
		ready:   make(chan struct{}),
		threads: map[uint64]*Thread{}, heaps: map[int]*Heap{},
		segmentsOn: opts.Segments,
	}
}

// Key is the VM's unique key.
func (s *Session) Key() string { return s.key }

// Run drives the session on nc until the VM goes away or ctx ends. It
// closes nc and removes the VM from the store when it returns. A peer that
// is not JDWP yields an error wrapping scan.ErrNotVM.
func (s *Session) Run(ctx context.Context, nc net.Conn) error {
	abort := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Now()) }) // a silent peer must not outlive ctx
	err := jdwp.ClientHandshake(nc, s.opts.HandshakeTimeout)
	abort()
	if err != nil {
		nc.Close()
		s.hsErr = fmt.Errorf("JDWP handshake: %w", err)
		close(s.ready) // whoever waits for the session (a debugger) learns at once
		if errors.Is(err, jdwp.ErrNotJDWP) {
			return fmt.Errorf("%s: %w: %v", s.key, scan.ErrNotVM, err)
		}
		return fmt.Errorf("%s: %w", s.key, err)
	}
	s.jc = jdwp.NewConn(nc, jdwp.Options{MaxPacketLen: s.opts.MaxPacketLen, Budget: s.opts.Budget,
		StreamBudget: s.opts.StreamBudget, StreamThreshold: s.opts.MaxPacketLen})
	readyOnce := sync.OnceFunc(func() { close(s.ready) })
	defer readyOnce()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		s.jc.Close()
	}()
	defer s.jc.Close()

	s.store.UpdateVM(s.key, func(vm *VM) {
		vm.Source, vm.PID, vm.Connected = s.source, s.pid, time.Now()
	})
	reason := "connection closed"
	defer func() { s.store.Remove(s.key, reason) }()

	// The reader must run before HELO is answered: a VM may send WAIT or
	// THCR at any time.
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.readLoop()
	}()

	hello, err := s.hello(ctx)
	var re *jdwp.ReplyError
	switch {
	case err == nil:
		s.isDDM = true
		s.family = ddm.FamilyFromVMIdent(hello.VMIdent)
		s.runDDM(ctx, hello, readyOnce)
	case errors.As(err, &re):
		s.refused = true
		readyOnce()
		s.log.Info("VM refuses DDM; polling with standard JDWP", "error", err)
		s.runJDWP(ctx)
	case ctx.Err() == nil && s.jc.Err() == nil:
		// Alive but silent: do not guess, and send nothing non-DDM.
		s.silent = true
		readyOnce()
		s.store.UpdateVM(s.key, func(vm *VM) { vm.Err = "no reply to HELO" })
		select {
		case <-s.jc.Done():
		case <-ctx.Done():
		}
	}
	cancel()
	if err := s.jc.Err(); err != nil && !errors.Is(err, jdwp.ErrClosed) {
		reason = err.Error()
	}
	return nil
}

func (s *Session) request(ctx context.Context, m ddm.Message) (ddm.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	p, err := s.jc.Request(ctx, jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, m))
	if err != nil {
		return nil, err
	}
	chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
	if err != nil {
		return nil, fmt.Errorf("%v reply: %w", m.ChunkType(), err)
	}
	if len(chunks) == 0 {
		return nil, nil // empty reply: success, nothing to say
	}
	reply, err := ddm.DecodeFromVM(chunks[0])
	if err != nil {
		return nil, err
	}
	if f, ok := reply.(*ddm.FailError); ok {
		return nil, f
	}
	return reply, nil
}

// post sends a DDM request whose reply (if any) does not matter.
func (s *Session) post(m ddm.Message) error {
	_, err := s.jc.Post(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, m))
	return err
}

func (s *Session) hello(ctx context.Context) (*ddm.Hello, error) {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		m, err := s.request(ctx, &ddm.HelloRequest{ServerVersion: ddm.ServerProtocolVersion})
		if err == nil {
			if h, ok := m.(*ddm.Hello); ok {
				return h, nil
			}
			err = fmt.Errorf("HELO answered with %T", m)
		}
		var re *jdwp.ReplyError
		if errors.As(err, &re) || ctx.Err() != nil || s.jc.Err() != nil {
			return nil, err
		}
		lastErr = err
	}
	return nil, lastErr
}

// runDDM stores the VM's identity and features, then calls ready (so that
// whoever waits for the session sees both), then monitors the VM.
func (s *Session) runDDM(ctx context.Context, h *ddm.Hello, ready func()) {
	s.store.UpdateVM(s.key, func(vm *VM) {
		vm.DDM = true
		if vm.PID == 0 || vm.PID == int(h.PID) {
			vm.PID = int(h.PID)
		}
		vm.App = h.AppName
		vm.VMIdent = h.VMIdent
		vm.Family = strings.ToLower(s.family.String())
		if h.Extent >= ddm.HelloUserID {
			vm.UserID = int(h.UserID)
		}
		vm.ABI, vm.JVMFlags, vm.Package = h.ABI, h.JVMFlags, h.PackageName
	})
	if m, err := s.request(ctx, &ddm.FeaturesRequest{}); err == nil {
		if f, ok := m.(*ddm.Features); ok {
			s.store.UpdateVM(s.key, func(vm *VM) { vm.Features = f.Names })
		}
	}
	ready()
	// Replies to these are empty or absent (modern ART); never wait.
	_ = s.post(&ddm.ThreadNotifyRequest{Enable: true})
	_ = s.post(&ddm.HeapInfoRequest{When: ddm.HeapInfoEveryGC})
	_ = s.post(&ddm.HeapInfoRequest{When: ddm.HeapInfoNow})
	s.mu.Lock()
	seg := s.segmentsOn
	s.mu.Unlock()
	if seg {
		s.mu.Lock()
		s.segOpts.Managed = true
		s.mu.Unlock()
		_ = s.post(&ddm.SegmentRequest{Type: ddm.TypeHPSG, When: ddm.SegmentWhenEveryGC, What: ddm.SegmentWhatMerged})
	}

	interval := s.opts.ThreadInterval
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.jc.Done():
			return
		case <-t.C:
		}
		s.pollTHST(ctx)
		s.mu.Lock()
		misses := s.thstMisses
		s.mu.Unlock()
		// A VM that never answers THST (recent frameworks) is asked less.
		next := interval
		if misses >= 3 {
			next = 8 * interval
		}
		t.Reset(next)
	}
}

func (s *Session) pollTHST(ctx context.Context) {
	m, err := s.request(ctx, &ddm.ThreadStatusRequest{})
	if err != nil || m == nil {
		s.mu.Lock()
		s.thstMisses++
		miss := s.thstMisses
		s.mu.Unlock()
		if miss == 3 {
			s.store.UpdateVM(s.key, func(vm *VM) { vm.Err = "VM does not answer thread status (THST)" })
		}
		return
	}
	tab, ok := m.(*ddm.ThreadStatusTable)
	if !ok {
		return
	}
	now := time.Now()
	s.mu.Lock()
	if s.thstMisses >= 3 {
		s.thstMisses = 0
	}
	seen := make(map[uint64]bool, len(tab.Threads))
	for _, e := range tab.Threads {
		id := uint64(e.ID)
		seen[id] = true
		th, ok := s.threads[id]
		if !ok {
			if !s.roomForThreadLocked() {
				continue
			}
			th = &Thread{ID: id, Created: now}
			s.threads[id] = th
		}
		state := ddm.StatusName(s.family, int(e.Status))
		if th.State != state {
			th.Changed = now
		}
		th.Status, th.State = int(e.Status), state
		th.SysTID, th.UTime, th.STime, th.Daemon = int(e.SysTID), int(e.UTime), int(e.STime), e.Daemon
	}
	// A thread absent from THST is gone even if THDE was missed.
	for id := range s.threads {
		if !seen[id] {
			delete(s.threads, id)
		}
	}
	table := s.threadTableLocked()
	s.mu.Unlock()
	s.store.SetThreads(s.key, table)
	s.showTooMany()
}

func (s *Session) threadTableLocked() []Thread {
	out := make([]Thread, 0, len(s.threads))
	for _, t := range s.threads {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// readLoop handles every packet the VM sends unasked.
func (s *Session) readLoop() {
	for p := range s.jc.Incoming() {
		if !p.IsDDM() {
			s.mu.Lock()
			fn := s.passthru
			if fn == nil && !s.earlyDone && !p.IsReply() && s.earlyBytes+p.Len() <= maxEarlyBytes {
				s.early = append(s.early, p)
				s.earlyBytes += p.Len()
			}
			s.mu.Unlock()
			if fn != nil {
				fn(p)
			}
			continue
		}
		chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
		if err != nil {
			s.badInput(fmt.Errorf("unsolicited DDM packet: %w", err))
			continue
		}
		for _, c := range chunks {
			m, err := ddm.DecodeFromVM(c)
			if errors.Is(err, ddm.ErrUnknownChunk) {
				s.log.Debug("ignoring unknown chunk", "type", c.Type.String())
				continue
			}
			if err != nil {
				s.badInput(err)
				continue
			}
			s.handle(m)
		}
	}
}

// badInput records a malformed chunk: it is dropped, the session goes on.
func (s *Session) badInput(err error) {
	s.log.Warn("malformed input from VM", "error", err)
	s.store.UpdateVM(s.key, func(vm *VM) { vm.Err = err.Error() })
}

func (s *Session) handle(m ddm.Message) {
	now := time.Now()
	switch m := m.(type) {
	case *ddm.ThreadCreated:
		s.mu.Lock()
		id := uint64(m.ID)
		if th, ok := s.threads[id]; ok {
			th.Name = m.Name
		} else if s.roomForThreadLocked() {
			s.threads[id] = &Thread{ID: id, Name: m.Name, Status: -1, State: "unknown", Created: now, Changed: now}
		}
		publish := s.threadsChangedLocked()
		s.mu.Unlock()
		publish()
	case *ddm.ThreadRenamed:
		s.mu.Lock()
		if th, ok := s.threads[uint64(m.ID)]; ok {
			th.Name = m.Name
		}
		publish := s.threadsChangedLocked()
		s.mu.Unlock()
		publish()
	case *ddm.ThreadDied:
		s.mu.Lock()
		delete(s.threads, uint64(m.ID))
		publish := s.threadsChangedLocked()
		s.mu.Unlock()
		publish()
	case *ddm.AppName:
		s.store.UpdateVM(s.key, func(vm *VM) {
			vm.App = m.Name
			if m.Extent >= ddm.AppNameUserID {
				vm.UserID = int(m.UserID)
			}
			if m.PackageName != "" {
				vm.Package = m.PackageName
			}
		})
	case *ddm.Wait:
		s.store.UpdateVM(s.key, func(vm *VM) {
			if vm.Debugger == DebuggerNone {
				vm.Debugger = DebuggerWaiting
			}
		})
	case *ddm.HeapInfo:
		s.mu.Lock()
		for _, hs := range m.Heaps {
			h, ok := s.heaps[int(hs.HeapID)]
			if !ok {
				h = &Heap{ID: int(hs.HeapID)}
				s.heaps[h.ID] = h
			}
			h.MaxBytes, h.SizeBytes = uint64(hs.MaxBytes), uint64(hs.SizeBytes)
			h.AllocatedBytes, h.Objects = uint64(hs.AllocatedBytes), uint64(hs.AllocatedObjects)
			h.Timestamp, h.Reason, h.Updated = hs.Timestamp, int(hs.Reason), now
			if hs.Reason == ddm.HeapInfoEveryGC || hs.Reason == ddm.HeapInfoNextGC {
				h.GCCount++
			}
			h.History = appendSample(h.History, HeapSample{Time: now, SizeBytes: h.SizeBytes,
				AllocatedBytes: h.AllocatedBytes, Objects: h.Objects, GCCount: h.GCCount})
		}
		heaps := s.heapsLocked()
		s.mu.Unlock()
		s.store.SetHeaps(s.key, heaps)
	case *ddm.HeapStart:
		s.mu.Lock()
		s.asm.Start(m.HeapID, ddm.TypeHPSG)
		s.mu.Unlock()
	case *ddm.NativeHeapStart:
		s.mu.Lock()
		s.nasm.Start(m.HeapID, ddm.TypeNHSG)
		s.mu.Unlock()
	case *ddm.NativeHeapEnd:
		s.mu.Lock()
		snap, err := s.nasm.End(m.HeapID)
		s.mu.Unlock()
		if err != nil {
			s.badInput(err)
			return
		}
		s.store.SetNativeSegments(s.key, snap)
	case *ddm.HeapSegment:
		s.mu.Lock()
		var err error
		if m.Type == ddm.TypeNHSG {
			err = s.nasm.Add(m)
		} else {
			err = s.asm.Add(m)
		}
		s.mu.Unlock()
		if err != nil {
			s.badInput(err)
		}
	case *ddm.HeapEnd:
		s.mu.Lock()
		snap, err := s.asm.End(m.HeapID)
		if err == nil {
			h, ok := s.heaps[int(m.HeapID)]
			if !ok {
				h = &Heap{ID: int(m.HeapID)}
				s.heaps[h.ID] = h
			}
			st := snap.Stats
			h.Segments = &SegmentSummary{UnitSize: st.UnitSize, TotalUnits: st.TotalUnits,
				UnitsByKind: st.UnitsByKind, UnitsBySolid: st.UnitsBySolid, Segments: st.Segments, Updated: now}
		}
		heaps := s.heapsLocked()
		s.mu.Unlock()
		if err != nil {
			s.badInput(err)
			return
		}
		s.store.SetSegments(s.key, snap)
		s.store.SetHeaps(s.key, heaps)
	case *ddm.HeapDumpData:
		s.deliver(ddm.TypeHPDS, m.HPROF)
	case *ddm.MethodTraceData:
		s.deliver(ddm.TypeMPSE, m.Trace)
	default:
		s.log.Debug("unsolicited chunk not used", "type", m.ChunkType().String())
	}
}

func (s *Session) heapsLocked() []Heap {
	out := make([]Heap, 0, len(s.heaps))
	for _, h := range s.heaps {
		c := *h
		c.History = append([]HeapSample(nil), h.History...) // the session keeps appending to its own
		if h.Segments != nil {
			seg := *h.Segments
			c.Segments = &seg
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// runJDWP polls a VM that refused DDM with standard commands.
func (s *Session) runJDWP(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	v, err := s.jc.Version(rctx)
	cancel()
	if err != nil {
		s.badInput(fmt.Errorf("VirtualMachine.Version: %w", err))
	}
	rctx, cancel = context.WithTimeout(ctx, s.opts.RequestTimeout)
	sz, err := s.jc.IDSizes(rctx)
	cancel()
	family := "jvm"
	if strings.Contains(v.Description, "Android") || strings.HasPrefix(v.VMName, "Dalvik") {
		family = "android"
	}
	s.store.UpdateVM(s.key, func(vm *VM) {
		vm.DDM = false
		vm.Family = family
		vm.VMIdent = strings.TrimSpace(v.VMName + " " + v.VMVersion)
		if err != nil {
			vm.Err = "VirtualMachine.IDSizes: " + err.Error()
		}
	})
	if err != nil {
		<-s.jc.Done()
		return
	}
	names := map[uint64]string{}
	t := time.NewTimer(0)
	defer t.Stop()
	for polls := 0; ; polls++ {
		select {
		case <-ctx.Done():
			return
		case <-s.jc.Done():
			return
		case <-t.C:
		}
		if polls%10 == 0 {
			clear(names) // threads may be renamed
		}
		s.pollJDWPThreads(ctx, sz, names)
		t.Reset(s.opts.JDWPThreadInterval)
	}
}

func (s *Session) pollJDWPThreads(ctx context.Context, sz jdwp.IDSizes, names map[uint64]string) {
	rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	ids, err := s.jc.AllThreads(rctx, sz)
	if err != nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	old := s.threads
	s.mu.Unlock()
	fresh := make(map[uint64]*Thread, len(ids))
	for _, id := range ids {
		name, ok := names[id]
		if !ok {
			n, err := s.jc.ThreadName(rctx, sz, id)
			if err != nil {
				continue // died in between (INVALID_THREAD)
			}
			name, names[id] = n, n
		}
		st, err := s.jc.ThreadStatus(rctx, sz, id)
		if err != nil {
			continue
		}
		th := &Thread{ID: id, Name: name, Status: int(st.Status), State: jdwp.ThreadStatusName(st.Status), Created: now, Changed: now}
		if prev, ok := old[id]; ok {
			th.Created = prev.Created
			if prev.State == th.State {
				th.Changed = prev.Changed
			}
		}
		fresh[id] = th
	}
	s.mu.Lock()
	s.threads = fresh
	table := s.threadTableLocked()
	s.mu.Unlock()
	s.store.SetThreads(s.key, table)
}

// Requests a view or command can make of a running session.

func (s *Session) waitReady(ctx context.Context) error {
	select {
	case <-s.ready:
		if s.jc == nil {
			return s.hsErr
		}
		if s.jc.Err() != nil {
			return s.jc.Err()
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// GC asks the VM to collect garbage (HPGC). Heap info and segments follow
// as unsolicited chunks if enabled.
func (s *Session) GC(ctx context.Context) error {
	if err := s.waitReady(ctx); err != nil {
		return err
	}
	if !s.isDDM {
		return errors.New("not a DDM VM")
	}
	return s.post(&ddm.GCRequest{})
}

// SegmentOptions choose the heap maps a VM sends after every GC
// (spec/ddm-chunks.md §7.3).
type SegmentOptions struct {
	Managed bool // the managed heap (HPSG, or HPSO with Objects)
	Objects bool // distinct objects (HPSO) instead of merged runs (HPSG)
	Native  bool // the native heap (NHSG; Dalvik sends data, ART only NHST/NHEN)
}

// SetSegments turns the managed heap map at every GC on or off, keeping the
// other segment options.
func (s *Session) SetSegments(ctx context.Context, on bool) error {
	s.mu.Lock()
	o := s.segOpts
	s.mu.Unlock()
	o.Managed = on
	return s.SetSegmentOptions(ctx, o)
}

// SetSegmentOptions asks the VM for exactly the heap maps o names.
func (s *Session) SetSegmentOptions(ctx context.Context, o SegmentOptions) error {
	if err := s.waitReady(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	s.segmentsOn = o.Managed
	s.segOpts = o
	s.mu.Unlock()
	if !s.isDDM {
		return errors.New("not a DDM VM")
	}
	when := func(on bool) uint8 {
		if on {
			return ddm.SegmentWhenEveryGC
		}
		return ddm.SegmentWhenNever
	}
	what := uint8(ddm.SegmentWhatMerged)
	if o.Objects {
		what = ddm.SegmentWhatObjects
	}
	if err := s.post(&ddm.SegmentRequest{Type: ddm.TypeHPSG, When: when(o.Managed), What: what}); err != nil {
		return err
	}
	return s.post(&ddm.SegmentRequest{Type: ddm.TypeNHSG, When: when(o.Native), What: ddm.SegmentWhatMerged})
}

// Stack asks for one thread's stack (STKL).
func (s *Session) Stack(ctx context.Context, threadID uint64) ([]ddm.StackFrame, error) {
	if err := s.waitReady(ctx); err != nil {
		return nil, err
	}
	if !s.isDDM {
		return nil, errors.New("stacks of non-DDM VMs need a debugger")
	}
	m, err := s.request(ctx, &ddm.StackTraceRequest{ThreadID: uint32(threadID)})
	if err != nil {
		return nil, err
	}
	st, ok := m.(*ddm.StackTrace)
	if !ok {
		return nil, fmt.Errorf("STKL answered with %T", m)
	}
	return st.Frames, nil
}

// Exit asks the VM to halt (EXIT).
func (s *Session) Exit(ctx context.Context, status int32) error {
	if err := s.waitReady(ctx); err != nil {
		return err
	}
	if !s.isDDM {
		return errors.New("not a DDM VM")
	}
	return s.post(&ddm.ExitRequest{Status: status})
}

// Hooks for the debugger proxy.

// IsDDM reports whether the VM answered HELO. It blocks until that is known
// or ctx ends.
func (s *Session) IsDDM(ctx context.Context) (bool, error) {
	if err := s.waitReady(ctx); err != nil {
		return false, err
	}
	return s.isDDM, nil
}

// Conn returns the VM's JDWP connection once HELO has been decided, for a
// proxy that forwards a debugger's packets (jdwp.Conn.WritePacket) on it.
func (s *Session) Conn(ctx context.Context) (*jdwp.Conn, error) {
	if err := s.waitReady(ctx); err != nil {
		return nil, err
	}
	return s.jc, nil
}

// maxEarlyBytes bounds the VM commands a session keeps before a
// passthrough is set.
const maxEarlyBytes = 64 << 10

// SetPassthrough routes every packet the VM sends that is not for the
// monitor (replies to a debugger's ids, Event.Composite, other commands) to
// fn; nil drops them again. fn runs on the connection's reader goroutine and
// must not block for long.
//
// The first call returns the VM commands that arrived before it (at most
// 64 KiB; e.g. the VM_START event a JVM started with suspend=y sends right
// after the handshake), in order and ahead of anything fn will receive;
// later calls return nil.
func (s *Session) SetPassthrough(fn func(*jdwp.Packet)) []*jdwp.Packet {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.passthru = fn
	if s.earlyDone {
		return nil
	}
	s.earlyDone = true
	early := s.early
	s.early, s.earlyBytes = nil, 0
	return early
}

// Reopen ends the session's connection; discovery opens a new one (local
// scan at its next probe, adb at once while the pid is listed). This is what
// ddmlib does when a debugger leaves: only a closed JDWP connection tells a
// VM that the debugger is gone (spec/jdwp.md §4).
func (s *Session) Reopen() {
	select {
	case <-s.ready:
		if s.jc != nil {
			s.jc.Close()
		}
	default:
	}
}

// SetDebugger records the debugger state and port shown for the VM. An
// empty state leaves the state as it is; a negative port leaves the port. A
// VM no longer in the store (its session ended) is not re-created.
func (s *Session) SetDebugger(state DebuggerState, port int) {
	s.store.updateExisting(s.key, func(vm *VM) {
		if state != "" {
			vm.Debugger = state
		}
		if port >= 0 {
			vm.DebugPort = port
		}
	})
}

// ErrNoStreaming is returned by StartProfiling for a VM that can only write
// traces to a file on the device (no method-trace-profiling-streaming).
var ErrNoStreaming = errors.New("the VM cannot stream method traces (no method-trace-profiling-streaming feature)")

// ProfileOptions choose how a VM is profiled.
type ProfileOptions struct {
	// Sampling, when non-zero, uses the sampling profiler (SPSS) with this
	// interval instead of instrumented method tracing (MPSS).
	Sampling time.Duration
	// BufferSize is the VM's trace buffer (default 8 MiB, as ddmlib).
	BufferSize uint32
}

func (s *Session) hasFeature(name string) bool {
	vm, ok := s.store.VM(s.key)
	if !ok {
		return false
	}
	for _, f := range vm.Features {
		if f == name {
			return true
		}
	}
	return false
}

// ErrNoDevice is returned for requests that need the VM's device (adb
// shell) from a VM found on a local port.
var ErrNoDevice = errors.New("the VM is not on an adb device")

// Shell runs a command on the VM's device.
func (s *Session) Shell(ctx context.Context, cmd string) ([]byte, error) {
	if s.shell == nil {
		return nil, ErrNoDevice
	}
	return s.shell(ctx, cmd)
}

// StartProfiling starts method profiling (spec/ddm-chunks.md §8): streamed
// (MPSS, or SPSS when sampling) when the VM can, otherwise into a file on
// the device (MPRS) when the VM is on an adb device. The VM answers with an
// empty reply, a FAIL, or (modern ART) nothing.
func (s *Session) StartProfiling(ctx context.Context, o ProfileOptions) error {
	if err := s.waitReady(ctx); err != nil {
		return err
	}
	if !s.isDDM {
		return errors.New("not a DDM VM")
	}
	if o.BufferSize == 0 {
		o.BufferSize = 8 << 20
	}
	var req ddm.Message = &ddm.MethodTraceStreamStartRequest{BufferSize: o.BufferSize}
	switch {
	case o.Sampling > 0:
		if !s.hasFeature("method-sample-profiling") {
			return errors.New("the VM has no sampling profiler (no method-sample-profiling feature)")
		}
		req = &ddm.SamplingStartRequest{BufferSize: o.BufferSize, IntervalMicros: uint32(o.Sampling.Microseconds())}
	case !s.hasFeature("method-trace-profiling-streaming"):
		if s.shell == nil || !s.hasFeature("method-trace-profiling") {
			return ErrNoStreaming
		}
		req = &ddm.MethodTraceStartRequest{BufferSize: o.BufferSize, FileName: s.deviceTracePath()}
		s.mu.Lock()
		s.traceFile = true
		s.mu.Unlock()
	}
	_, err := s.request(ctx, req)
	if isSoftTimeout(ctx, err) {
		err = nil // modern ART does not answer; MPRQ would tell, but it is not answered either
	}
	return err
}

// isSoftTimeout reports a request that timed out while ctx itself is alive:
// the VM is one that leaves requests unanswered.
func isSoftTimeout(ctx context.Context, err error) bool {
	return err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
}

// StopProfiling stops streaming profiling and returns the trace file the VM
// sends (an unsolicited MPSE chunk whose body is the whole .trace file:
// key text followed by the binary data). It waits until ctx ends for the
// data, which can be large.
func (s *Session) StopProfiling(ctx context.Context, sampling bool) ([]byte, error) {
	if err := s.waitReady(ctx); err != nil {
		return nil, err
	}
	if !s.isDDM {
		return nil, errors.New("not a DDM VM")
	}
	s.mu.Lock()
	toFile := s.traceFile
	s.traceFile = false
	s.mu.Unlock()
	if toFile {
		return s.stopFileTrace(ctx)
	}
	var req ddm.Message = &ddm.MethodTraceStreamStopRequest{}
	if sampling {
		req = &ddm.SamplingStopRequest{}
	}
	return s.collectStreamed(ctx, ddm.TypeMPSE, req, "method trace", nil)
}

// deviceTracePath is where MPRS makes the VM write its trace, as ddmlib
// does: /sdcard/<app name up to ':'>.trace.
func (s *Session) deviceTracePath() string {
	app := "trace"
	if vm, ok := s.store.VM(s.key); ok && vm.App != "" {
		app = vm.App
	}
	if i := strings.IndexByte(app, ':'); i >= 0 {
		app = app[:i]
	}
	app = strings.Map(func(r rune) rune {
		if r == '/' || r <= ' ' || r == '\'' || r == '"' || r == '\\' || r == '$' || r == '`' {
			return '_'
		}
		return r
	}, app)
	return "/sdcard/" + app + ".trace"
}

// stopFileTrace ends a file trace (MPRE) and reads the file back through the
// device's shell.
func (s *Session) stopFileTrace(ctx context.Context) ([]byte, error) {
	m, err := s.request(ctx, &ddm.MethodTraceStopRequest{})
	if err != nil && !isSoftTimeout(ctx, err) {
		return nil, err
	}
	if r, ok := m.(*ddm.MethodTraceResult); ok && r.Result != 0 {
		return nil, errors.New("the VM could not write the trace file")
	}
	path := s.deviceTracePath()
	data, err := s.Shell(ctx, "cat "+path)
	if err != nil {
		return nil, fmt.Errorf("reading %s from the device: %w", path, err)
	}
	if bytes.HasPrefix(data, []byte("cat: ")) || len(data) == 0 {
		return nil, fmt.Errorf("reading %s from the device: %s", path, strings.TrimSpace(string(data)))
	}
	return data, nil
}

// ThreadDump asks the VM's device for a SIGQUIT dump of this VM (adb shell
// kill -3 PID) and returns the dump file as the VM wrote it (ANRPath).
// Android 8 and later write dumps elsewhere, readable only as root; the
// error says so.
func (s *Session) ThreadDump(ctx context.Context) ([]byte, error) {
	if s.shell == nil {
		return nil, ErrNoDevice
	}
	vm, ok := s.store.VM(s.key)
	if !ok || vm.PID <= 0 {
		return nil, errors.New("the VM's pid is not known")
	}
	if out, err := s.shell(ctx, fmt.Sprintf("kill -3 %d", vm.PID)); err != nil {
		return nil, fmt.Errorf("kill -3 %d: %w", vm.PID, err)
	} else if len(bytes.TrimSpace(out)) > 0 {
		return nil, fmt.Errorf("kill -3 %d: %s", vm.PID, strings.TrimSpace(string(out)))
	}
	// The VM's signal catcher writes the dump shortly after the signal.
	var last []byte
	for i := 0; i < 20; i++ {
		data, err := s.shell(ctx, "cat "+ANRPath)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(data, []byte(fmt.Sprintf("----- pid %d ", vm.PID))) {
			return data, nil
		}
		last = data
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if bytes.HasPrefix(last, []byte("cat: ")) {
		return nil, fmt.Errorf("no dump for pid %d: %s (Android 8 and later keep dumps where only root can read them)", vm.PID, strings.TrimSpace(string(last)))
	}
	return nil, fmt.Errorf("no dump for pid %d appeared in %s", vm.PID, ANRPath)
}

// ANRPath is where Android (before 8) writes SIGQUIT dumps.
const ANRPath = "/data/anr/traces.txt"

// HeapDump asks the VM for an HPROF heap dump (spec/ddm-chunks.md §7.6):
// streamed (HPDS: the whole file arrives as one unsolicited chunk) when FEAT
// lists hprof-heap-dump-streaming, otherwise written to a device file (HPDU)
// and read back through adb. The file is Android's HPROF variant (JAVA
// PROFILE 1.0.3); hprof.Convert makes it standard. progress, when set, is
// called with the bytes received so far while a streamed dump arrives. A
// refused dump gives the VM's reason.
func (s *Session) HeapDump(ctx context.Context, progress func(received uint64)) ([]byte, error) {
	if err := s.waitReady(ctx); err != nil {
		return nil, err
	}
	if !s.isDDM {
		return nil, errors.New("not a DDM VM")
	}
	if !s.hasFeature("hprof-heap-dump-streaming") {
		if !s.hasFeature("hprof-heap-dump") {
			return nil, errors.New("the VM cannot dump its heap (no hprof-heap-dump feature)")
		}
		if s.shell == nil {
			return nil, errors.New("the VM can only dump its heap to a device file, and it is not on an adb device")
		}
		return s.heapDumpToFile(ctx)
	}
	return s.collectStreamed(ctx, ddm.TypeHPDS, &ddm.HeapDumpStreamRequest{}, "heap dump", progress)
}

// collectStreamed sends req and returns the payload of the unsolicited
// chunk of type t that the VM sends before its reply (MPSE after MPSE/SPSE,
// HPDS after HPDS: spec/ddm-chunks.md §7.6, §8). The reply itself is empty,
// absent (modern ART) or a FAIL, whose reason is returned. progress, when
// set, is told the bytes received so far while the (single, possibly huge)
// packet arrives.
func (s *Session) collectStreamed(ctx context.Context, t ddm.Type, req ddm.Message, what string, progress func(uint64)) ([]byte, error) {
	ch := make(chan []byte, 1)
	s.mu.Lock()
	if s.waiting[t] != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("a %s is already being collected from this VM", what)
	}
	if s.waiting == nil {
		s.waiting = map[ddm.Type]chan []byte{}
	}
	s.waiting[t] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiting, t)
		s.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer s.expectLarge()()
	start := s.jc.Stats().RawBytesIn.Load()
	failed := make(chan error, 1)
	go func() {
		if _, err := s.request(ctx, req); err != nil && !isSoftTimeout(ctx, err) && ctx.Err() == nil {
			failed <- err
		}
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case data := <-ch:
			if progress != nil {
				progress(uint64(len(data)))
			}
			return data, nil
		case err := <-failed:
			return nil, err
		case <-s.jc.Done():
			return nil, fmt.Errorf("VM connection ended: %w", s.jc.Err())
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			if progress != nil {
				progress(s.jc.Stats().RawBytesIn.Load() - start)
			}
		}
	}
}

// deliver hands an unsolicited data chunk to the collectStreamed waiting
// for it; with nobody waiting it is dropped.
func (s *Session) deliver(t ddm.Type, data []byte) {
	s.mu.Lock()
	ch := s.waiting[t]
	s.mu.Unlock()
	if ch == nil {
		s.log.Info("data chunk arrived with nobody waiting; dropped", "type", t.String(), "bytes", len(data))
		return
	}
	select {
	case ch <- data:
	default:
	}
}

// heapDumpToFile makes the VM write its dump to the device (HPDU) where
// ddmlib has it written, /sdcard/<app up to ':'>.hprof, and reads it back.
func (s *Session) heapDumpToFile(ctx context.Context) ([]byte, error) {
	path := strings.TrimSuffix(s.deviceTracePath(), ".trace") + ".hprof"
	m, err := s.request(ctx, &ddm.HeapDumpRequest{FileName: path})
	if err != nil && !isSoftTimeout(ctx, err) {
		return nil, err
	}
	if r, ok := m.(*ddm.HeapDumpResult); ok && !r.OK() {
		return nil, fmt.Errorf("the VM could not write %s", path)
	}
	data, err := s.Shell(ctx, "cat "+path)
	if err != nil {
		return nil, fmt.Errorf("reading %s from the device: %w", path, err)
	}
	if bytes.HasPrefix(data, []byte("cat: ")) || len(data) == 0 {
		return nil, fmt.Errorf("reading %s from the device: %s", path, strings.TrimSpace(string(data)))
	}
	return data, nil
}
