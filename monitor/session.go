package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"syscall"
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
	// SegmentBudget bounds the heap maps (HPSG/NHSG data) of all sessions
	// together: the sets being assembled and the last one kept per VM
	// (nil: none; NewEngine gives its sessions one they share).
	SegmentBudget *heap.Budget
	// HeapDumpWait is how long a DDM heap dump (HPDS/HPDU) of a VM on an
	// adb device may go without the dump arriving before the device's `am
	// dumpheap` is used instead (modern VMs never answer). Default 5s.
	HeapDumpWait time.Duration
	// MeminfoInterval is how often a device VM's `dumpsys meminfo PID` is
	// read (default 5s; negative: never).
	MeminfoInterval time.Duration
	// MaxDeviceFile bounds a file pulled from the VM's device (am dumpheap
	// and HPDU heap dumps, traces written on the device); default
	// DefaultMaxDeviceFile. A pull past it fails.
	MaxDeviceFile int64
	// ProbeTimeout bounds the wait for the first THST reply, after which a
	// device VM's threads come from /proc (default 1s).
	ProbeTimeout time.Duration
	Logger       *slog.Logger
	// Recorder, when set, records every session's inputs (recorder.go).
	Recorder *Recorder
	// ViewSilentWait is how long a view operation that gets no reply on
	// success (invoke, set layout parameter, dump display list: ART sends
	// nothing) waits for a FAIL before it counts as done (default 750ms).
	ViewSilentWait time.Duration
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
	if o.HeapDumpWait <= 0 {
		o.HeapDumpWait = 5 * time.Second
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = jdwp.DefaultHandshakeTimeout
	}
	if o.MeminfoInterval == 0 {
		o.MeminfoInterval = 5 * time.Second
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = time.Second
	}
	if o.ViewSilentWait <= 0 {
		o.ViewSilentWait = 750 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	o.fillLimits()
	if o.MaxThreads <= 0 {
		o.MaxThreads = DefaultMaxThreads
	}
}

// endReason is why the session ends: ReasonStopped when the monitor is
// stopping, else reason.
func (s *Session) endReason(reason string) string {
	if s.stopping != nil {
		select {
		case <-s.stopping: // the monitor stops, not the VM
			return ReasonStopped
		default:
		}
	}
	return reason
}

// ReasonStopped is why a session ended when the monitor itself stopped (the
// user quit, a recording's duration ran out) rather than the VM. A replay
// does not apply such an end: past it, the VM is as it was last seen live.
const ReasonStopped = "monitor stopped"

// Session monitors one VM over its JDWP connection. It decides from the HELO
// reply whether the VM speaks DDM: if it does, only DDM packets are ever sent
// (any other JDWP command would make an Android VM believe a debugger
// attached, spec/jdwp.md §3); if HELO is refused with a JDWP error, threads
// are polled with standard commands instead.
type Session struct {
	key, source string
	pid         int
	shell       func(ctx context.Context, cmd string) ([]byte, error)
	exec        func(ctx context.Context, cmd string) ([]byte, error) // exec: (no pty); nil off adb
	files       scan.DeviceFiles                                      // sync:; nil off adb
	process     *scan.Process                                         // track-app's entry; nil when not found through track-app
	store       *Store
	opts        SessionOptions
	log         *slog.Logger
	stopping    <-chan struct{} // the engine's: done when the monitor stops (nil outside Engine.Run)

	jc     *jdwp.Conn
	ready  chan struct{} // closed once HELO decided whether the VM speaks DDM (and, if it does, its identity and FEAT are stored)
	family ddm.VMFamily
	isDDM  bool // written before ready is closed, read after
	noJDWP bool // a profileable process without JDWP (process.go); written before ready is closed

	// How HELO was decided, for the engine's view (written before ready is
	// closed): unanswered, or refused with a JDWP error (a plain JDWP VM).
	silent, refused bool
	hsErr           error // the handshake failed (written before ready is closed; jc stays nil)

	largeState   // streamed transfers in progress (limits.go)
	threadsState // publishing of the thread table, the cap (threads.go)

	mu         sync.Mutex
	threads    threadTable // threadtable.go
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
	sinkMu     sync.Mutex               // guards sinks only: the connection's reader takes it, never mu
	sinks      map[ddm.Type]*streamSink // collectStreamedTo's writers, by chunk type (hpdsstream.go)
	traceFile  bool                     // the running trace goes to a device file (MPRS)

	src sessionSources // /proc, dumpsys, API level, capabilities (device.go)
	wg  sync.WaitGroup // the source goroutines

	rec  *Recorder  // nil: not recording
	inMu sync.Mutex // one input at a time is stamped, recorded and applied (input)
}

// NewSession prepares a session for an endpoint found by scan.
func NewSession(ep scan.Endpoint, store *Store, opts SessionOptions) *Session {
	opts.fill()
	s := &Session{
		key: ep.Key, source: ep.Source, pid: ep.PID, shell: ep.Shell, exec: ep.Exec, files: ep.Files, process: ep.Process,
		noJDWP: ep.Conn == nil && ep.Process != nil, store: store, opts: opts,
		log:        opts.Logger.With("vm", ep.Key),
		ready:      make(chan struct{}),
		heaps:      map[int]*Heap{},
		segmentsOn: opts.Segments, rec: opts.Recorder,
	}
	s.src.device = deviceKey(ep)
	s.src.caps.device, s.src.caps.memOff = ep.Shell != nil, opts.MeminfoInterval < 0
	s.asm.Budget, s.nasm.Budget = opts.SegmentBudget, opts.SegmentBudget
	return s
}

// Key is the VM's unique key.
func (s *Session) Key() string { return s.key }

// Run drives the session on nc until the VM goes away or ctx ends. It
// closes nc and removes the VM from the store when it returns. A peer that
// is not JDWP yields an error wrapping scan.ErrNotVM. With nc nil the
// endpoint is a process without JDWP (profileable only), followed through
// its device shell until ctx ends (process.go).
func (s *Session) Run(ctx context.Context, nc net.Conn) error {
	if nc == nil {
		s.runProcess(ctx)
		return nil
	}
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
		if closedBeforeHandshake(err) {
			return fmt.Errorf("%s: %w: %w", s.key, scan.ErrBusy, err)
		}
		return fmt.Errorf("%s: %w", s.key, err)
	}
	s.jc = jdwp.NewConn(nc, jdwp.Options{MaxPacketLen: s.opts.MaxPacketLen, Budget: s.opts.Budget,
		StreamBudget: s.opts.StreamBudget, StreamThreshold: s.opts.MaxPacketLen, Divert: s.divertStream,
		Route: s.route})
	readyOnce := sync.OnceFunc(func() { close(s.ready) })
	defer readyOnce()
	parent := ctx // discovery's: its end is not the peer's failure
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		s.wg.Wait()
	}()
	go func() {
		<-ctx.Done()
		s.jc.Close()
	}()
	defer s.jc.Close()

	s.input(s.begin)
	reason := "connection closed"
	defer func() {
		why := s.endReason(reason)
		// Discovery or the monitor ended it, not the peer: not a failure.
		stopped := parent.Err() != nil || why == ReasonStopped
		s.input(func(now time.Time) { s.end(now, why, !stopped && !s.isDDM && !s.refused) })
	}()
	s.startWatchProcess(ctx)
	// The device-shell sources run beside the VM's protocol.
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		s.readAPI(ctx)
	}()
	go func() {
		defer s.wg.Done()
		s.runMeminfo(ctx)
	}()

	// What the VM sends unasked (WAIT or THCR may come before HELO's reply)
	// is taken by route on the connection's reader; Incoming stays empty.

	hello, helloChunk, err := s.hello(ctx)
	var re *jdwp.ReplyError
	switch {
	case err == nil:
		s.runDDM(ctx, hello, helloChunk, readyOnce)
	case errors.As(err, &re):
		s.refused = true
		readyOnce()
		s.log.Info("VM refuses DDM; polling with standard JDWP", "error", err)
		s.setCaps(func(in *capInput) { in.kind = "jdwp" })
		s.runJDWP(ctx)
	case ctx.Err() == nil && s.jc.Err() == nil:
		// Alive but silent: do not guess, and send nothing non-DDM.
		s.silent = true
		readyOnce()
		s.setErr("no reply to HELO")
		s.setCaps(func(in *capInput) { in.kind = "silent" })
		s.startProcThreads(ctx) // the kernel still knows its threads
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

// closedBeforeHandshake reports whether the peer closed the connection
// without sending a byte of the handshake: a VM refusing a second JDWP
// connection, not a peer that is no VM.
func closedBeforeHandshake(err error) bool {
	var he *jdwp.HandshakeError
	return errors.As(err, &he) && len(he.Got) == 0 &&
		(errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET))
}

func (s *Session) request(ctx context.Context, m ddm.Message) (ddm.Message, error) {
	return s.requestWithin(ctx, m, s.opts.RequestTimeout)
}

// requestWithin sends a DDM request and waits at most d for its reply.
func (s *Session) requestWithin(ctx context.Context, m ddm.Message, d time.Duration) (ddm.Message, error) {
	reply, _, err := s.requestChunk(ctx, m, d)
	return reply, err
}

// requestChunk is requestWithin that also returns the reply's chunk as it
// came (for the recording of replies that change the model: HELO, FEAT,
// THST).
func (s *Session) requestChunk(ctx context.Context, m ddm.Message, d time.Duration) (ddm.Message, ddm.Chunk, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	p, err := s.jc.Request(ctx, jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, m))
	if err != nil {
		return nil, ddm.Chunk{}, err
	}
	chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
	if err != nil {
		return nil, ddm.Chunk{}, fmt.Errorf("%v reply: %w", m.ChunkType(), err)
	}
	reply, err := decodeReply(chunks)
	if err != nil || len(chunks) == 0 {
		return reply, ddm.Chunk{}, err
	}
	return reply, chunks[0], nil
}

// input stamps, records and applies one input: inputs of one session from
// different goroutines (the reader, the pollers) reach the model and the
// recording in the same order, with the time the model is given.
func (s *Session) input(fn func(now time.Time)) {
	s.inMu.Lock()
	defer s.inMu.Unlock()
	fn(time.Now())
}

// decodeReply decodes the first chunk of a reply (nil for an empty one).
func decodeReply(chunks []ddm.Chunk) (ddm.Message, error) {
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

func (s *Session) hello(ctx context.Context) (*ddm.Hello, ddm.Chunk, error) {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		m, c, err := s.requestChunk(ctx, &ddm.HelloRequest{ServerVersion: ddm.ServerProtocolVersion}, s.opts.RequestTimeout)
		if err == nil {
			if h, ok := m.(*ddm.Hello); ok {
				return h, c, nil
			}
			err = fmt.Errorf("HELO answered with %T", m)
		}
		var re *jdwp.ReplyError
		if errors.As(err, &re) || ctx.Err() != nil || s.jc.Err() != nil {
			return nil, ddm.Chunk{}, err
		}
		lastErr = err
	}
	return nil, ddm.Chunk{}, lastErr
}

// runDDM stores the VM's identity and features, then calls ready (so that
// whoever waits for the session sees both), then monitors the VM.
func (s *Session) runDDM(ctx context.Context, h *ddm.Hello, hc ddm.Chunk, ready func()) {
	s.input(func(now time.Time) {
		s.rec.chunk(now, s.key, hc)
		s.applyHello(h)
	})
	var features []string
	if m, c, err := s.requestChunk(ctx, &ddm.FeaturesRequest{}, s.opts.RequestTimeout); err == nil {
		if f, ok := m.(*ddm.Features); ok {
			features = f.Names
			s.input(func(now time.Time) {
				s.rec.chunk(now, s.key, c)
				s.applyFeatures(f)
			})
		}
	}
	s.setCaps(func(in *capInput) { in.kind, in.features = "ddm", features })
	ready()
	// Replies to these are empty or absent (modern ART); never wait.
	_ = s.post(&ddm.ThreadNotifyRequest{Enable: true})
	_ = s.post(&ddm.HeapInfoRequest{When: ddm.HeapInfoEveryGC})
	_ = s.post(&ddm.HeapInfoRequest{When: ddm.HeapInfoNow})
	hpifAsked := time.Now()
	s.mu.Lock()
	seg := s.segmentsOn
	s.mu.Unlock()
	if seg {
		s.mu.Lock()
		s.segOpts.Managed = true
		s.mu.Unlock()
		_ = s.post(&ddm.SegmentRequest{Type: ddm.TypeHPSG, When: ddm.SegmentWhenEveryGC, What: ddm.SegmentWhatMerged})
	}

	// Polled at once, then at the ticks of a clock shared with every
	// session of the same interval (pollclock.go), which writes the
	// requests; the replies are applied by the connection's reader.
	poller := newTHSTPoller(ctx, s, hpifAsked)
	poller.tick(time.Now())
	interval := s.opts.ThreadInterval
	clock := joinPollClock(interval, poller)
	defer func() {
		clock.leave(interval, poller)
		poller.stop()
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.jc.Done():
			return
		case <-poller.unanswered:
			s.startProcThreads(ctx)
		}
	}
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

// ErrNotDDM is the answer to a DDM request (heap, GC, allocations, profiling) on a
// VM that speaks JDWP but not DDM, such as a desktop JVM.
var ErrNotDDM = errors.New("not a DDM VM")

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

// StartProfiling starts method profiling (spec/ddm-chunks.md §8): on a
// device whose ART writes format V2 (TraceFormatV2API), into a V2 file on
// the device (startFileTraceV2); else streamed (MPSS, or SPSS when
// sampling) when the VM can, otherwise into a file on the device (MPRS)
// when the VM is on an adb device. The VM answers with an
// empty reply, a FAIL, or (modern ART) nothing.
func (s *Session) StartProfiling(ctx context.Context, o ProfileOptions) error {
	if err := s.waitReady(ctx); err != nil {
		return err
	}
	if !s.isDDM {
		return ErrNotDDM
	}
	if o.BufferSize == 0 {
		o.BufferSize = 8 << 20
	}
	if o.Sampling == 0 {
		if started, err := s.startFileTraceV2(ctx, o.BufferSize); started || err != nil {
			return err
		}
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
	var h heldBytes // read whole, not diverted (collectStreamedTo)
	if _, err := s.StopProfilingTo(ctx, sampling, &h); err != nil {
		return nil, err
	}
	return h.b, nil
}

// StopProfilingTo is StopProfiling writing the trace to w as it arrives:
// an MPSE chunk that comes as one large packet in pieces of 64 KiB
// (hpdsstream.go), a trace written on the device through sync: RECV
// (bounded by MaxDeviceFile). It returns the bytes written.
func (s *Session) StopProfilingTo(ctx context.Context, sampling bool, w io.Writer) (int64, error) {
	if err := s.waitReady(ctx); err != nil {
		return 0, err
	}
	if !s.isDDM {
		return 0, ErrNotDDM
	}
	s.mu.Lock()
	toFile := s.traceFile
	s.traceFile = false
	s.mu.Unlock()
	if toFile {
		return s.stopFileTrace(ctx, w)
	}
	var req ddm.Message = &ddm.MethodTraceStreamStopRequest{}
	if sampling {
		req = &ddm.SamplingStopRequest{}
	}
	return s.collectStreamedTo(ctx, ddm.TypeMPSE, req, "method trace", w, nil)
}

// stopFileTrace ends a file trace (MPRE) and copies the file from the
// device to w (sync: RECV, or cat where the device refuses sync:).
func (s *Session) stopFileTrace(ctx context.Context, w io.Writer) (int64, error) {
	m, err := s.request(ctx, &ddm.MethodTraceStopRequest{})
	if err != nil && !isSoftTimeout(ctx, err) {
		return 0, err
	}
	if r, ok := m.(*ddm.MethodTraceResult); ok && r.Result != 0 {
		return 0, errors.New("the VM could not write the trace file")
	}
	if _, held := w.(*heldBytes); held {
		return s.readDeviceFileTo(ctx, s.deviceTracePath(), w, min(s.opts.MaxDeviceFile, maxHeldDeviceFile))
	}
	return s.readDeviceFileTo(ctx, s.deviceTracePath(), w, s.opts.MaxDeviceFile)
}

// ThreadDump returns the VM's Java stacks as the runtime prints them
// (SIGQUIT dump text), obtained through its device: `debuggerd -j PID`
// (Android 8+), or kill -3 and the ANR file (ANRPath, before Android 8).
// When nothing works the error says why for each way (devicedumps.go).
func (s *Session) ThreadDump(ctx context.Context) ([]byte, error) {
	return s.threadDump(ctx)
}

// ANRPath is where Android (before 8) writes SIGQUIT dumps.
const ANRPath = "/data/anr/traces.txt"

// HeapDump asks the VM for an HPROF heap dump (spec/ddm-chunks.md §7.6):
// streamed (HPDS: the whole file arrives as one unsolicited chunk) when FEAT
// lists hprof-heap-dump-streaming, otherwise written to a device file (HPDU)
// and read back through adb; when the VM sends nothing within
// HeapDumpWait (recent Android never does) or has no DDM heap dump, the
// device's `am dumpheap` (devicefiles.go). The file is Android's HPROF
// variant (JAVA PROFILE 1.0.3); hprof.Convert makes it standard. progress,
// when set, is called with the bytes received so far. A refused dump
// gives the VM's reason.
func (s *Session) HeapDump(ctx context.Context, progress func(received uint64)) ([]byte, error) {
	var h heldBytes
	if _, err := s.heapDump(ctx, &h, progress); err != nil {
		return nil, err
	}
	return h.b, nil
}

// HeapDumpTo is HeapDump writing the dump to w instead of returning it. A
// dump streamed over DDM (HPDS) that arrives as one large packet, as from
// Android up to 9, is written as it arrives, in pieces of 64 KiB, without
// the session ever holding it (hpdsstream.go); the other ways write it once
// read. It returns the bytes written; on error w may hold part of the dump.
func (s *Session) HeapDumpTo(ctx context.Context, w io.Writer, progress func(received uint64)) (int64, error) {
	return s.heapDump(ctx, w, progress)
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
