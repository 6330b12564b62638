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
	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/record"
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
//
// The Session is the core: the handshake, the routing of what the VM sends,
// the order of inputs, and the session's lifetime. Its parts each do one
// job, are given what they need when the session is made, and never see
// the Session: the VM's entry in the store (vmEntry), the connection's
// requests (vmConn), the thread table (threadBook), the heap maps
// (heapMaps), streamed transfers (transfers), the device-shell sources
// (deviceSources), heap dumps (heapDumper), profiling (profiler) and view
// debugging (ViewDebugger). What it asks of the device shell is behind
// devshell.Shell.
type Session struct {
	key, source string
	pid         int
	dev         devshell.Shell // nil off adb
	process     *scan.Process  // track-app's entry; nil when not found through track-app
	store       *Store
	opts        SessionOptions
	log         *slog.Logger
	stopping    <-chan struct{} // the engine's: done when the monitor stops (nil outside Engine.Run)
	noJDWP      bool            // a profileable process without JDWP (process.go); written before ready is closed

	// HELO went unanswered, for the engine's view (written before ready is
	// closed; a VM that refused it with a JDWP error is conn.refused).
	silent bool

	conn    *vmConn
	entry   *vmEntry
	threads *threadBook
	heaps   *heapMaps
	xfer    *transfers
	src     *deviceSources
	dumps   *heapDumper
	prof    *profiler
	views   *ViewDebugger

	link *Link

	wg sync.WaitGroup // the source goroutines

	rec  *Recorder  // nil: not recording
	inMu sync.Mutex // one input at a time is stamped, recorded and applied (input)
}

// NewSession prepares a session for an endpoint found by scan.
func NewSession(ep scan.Endpoint, store *Store, opts SessionOptions) *Session {
	opts.fill()
	log := opts.Logger.With("vm", ep.Key)
	var dev devshell.Shell
	if ep.Shell != nil {
		dev = devshell.New(devshell.Services{Shell: ep.Shell, Exec: ep.Exec, Files: ep.Files}, log)
	}
	return newSession(ep, dev, store, opts, log)
}

// newSession is NewSession with the device shell given (nil: none); opts
// are filled.
func newSession(ep scan.Endpoint, dev devshell.Shell, store *Store, opts SessionOptions, log *slog.Logger) *Session {
	s := &Session{
		key: ep.Key, source: ep.Source, pid: ep.PID, dev: dev, process: ep.Process,
		noJDWP: ep.Conn == nil && ep.Process != nil, store: store, opts: opts, log: log, rec: opts.Recorder,
	}
	s.conn = &vmConn{ready: make(chan struct{}), timeout: opts.RequestTimeout}
	s.link = &Link{conn: s.conn}
	s.entry = &vmEntry{key: ep.Key, pid: ep.PID, store: store, rec: opts.Recorder}
	s.entry.caps.device, s.entry.caps.memOff = dev != nil, opts.MeminfoInterval < 0
	s.threads = &threadBook{entry: s.entry, conn: s.conn, maxThreads: opts.MaxThreads, input: s.input}
	s.heaps = newHeapMaps(s.entry, opts.SegmentBudget, opts.Segments, s.badInput)
	s.xfer = &transfers{conn: s.conn, maxPacket: opts.MaxPacketLen, streamPacket: opts.StreamPacketLen, log: log}
	s.src = &deviceSources{dev: dev, device: deviceKey(ep.Key, dev != nil), entry: s.entry, input: s.input, wg: &s.wg, log: log, threads: s.threads,
		interval: opts.ThreadInterval, timeout: opts.RequestTimeout, memInterval: opts.MeminfoInterval}
	s.dumps = &heapDumper{conn: s.conn, xfer: s.xfer, entry: s.entry, dev: dev, wait: opts.HeapDumpWait, maxFile: opts.MaxDeviceFile, log: log}
	s.prof = &profiler{conn: s.conn, xfer: s.xfer, entry: s.entry, dev: dev, maxFile: opts.MaxDeviceFile, log: log}
	s.views = &ViewDebugger{conn: s.conn, entry: s.entry, input: s.input, timeout: opts.RequestTimeout, silentWait: opts.ViewSilentWait}
	return s
}

// newTHSTPoller makes the THST poller of the session's parts.
func newTHSTPoller(ctx context.Context, s *Session, hpifAsked time.Time) *thstPoller {
	return &thstPoller{conn: s.conn, entry: s.entry, book: s.threads, probe: s.opts.ProbeTimeout, timeout: s.opts.RequestTimeout,
		onDevice: s.dev != nil, ctx: ctx, unanswered: make(chan struct{}, 1), hpifAsked: hpifAsked}
}

// Views is the session's view debugging client.
func (s *Session) Views() *ViewDebugger { return s.views }

// Link is the VM's JDWP connection as the debugger proxy uses it.
func (s *Session) Link() *Link { return s.link }

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
		s.conn.hsErr = fmt.Errorf("JDWP handshake: %w", err)
		close(s.conn.ready) // whoever waits for the session (a debugger) learns at once
		if errors.Is(err, jdwp.ErrNotJDWP) {
			return fmt.Errorf("%s: %w: %v", s.key, scan.ErrNotVM, err)
		}
		if closedBeforeHandshake(err) {
			return fmt.Errorf("%s: %w: %w", s.key, scan.ErrBusy, err)
		}
		return fmt.Errorf("%s: %w", s.key, err)
	}
	// The endpoint is recorded before the connection's reader starts: what
	// a VM sends on connect (WAIT) is routed at once, and a replay drops a
	// VM's records that come before its endpoint record.
	s.input(s.begin)
	jc := jdwp.NewConn(nc, jdwp.Options{MaxPacketLen: s.opts.MaxPacketLen, Budget: s.opts.Budget,
		StreamBudget: s.opts.StreamBudget, StreamThreshold: s.opts.MaxPacketLen, Divert: s.xfer.divert,
		Route: s.route})
	s.conn.jc = jc
	readyOnce := sync.OnceFunc(func() { close(s.conn.ready) })
	defer readyOnce()
	parent := ctx // discovery's: its end is not the peer's failure
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		s.wg.Wait()
	}()
	go func() {
		<-ctx.Done()
		jc.Close()
	}()
	defer jc.Close()

	reason := "connection closed"
	defer func() {
		why := s.endReason(reason)
		// Discovery or the monitor ended it, not the peer: not a failure.
		stopped := parent.Err() != nil || why == ReasonStopped
		// Nothing may follow the end: the reader routes no packet once the
		// connection is closed, and the sources give no input once they
		// returned (a WAIT or a meminfo reading applied after end would put
		// the VM back in the store, which a replay does not do).
		cancel()
		jc.Close()
		s.wg.Wait()
		s.input(func(now time.Time) { s.end(now, why, !stopped && !s.conn.isDDM && !s.conn.refused) })
	}()
	s.startWatchProcess(ctx)
	// The device-shell sources run beside the VM's protocol.
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		s.src.readAPI(ctx)
	}()
	go func() {
		defer s.wg.Done()
		s.src.runMeminfo(ctx)
	}()

	// What the VM sends unasked (WAIT or THCR may come before HELO's reply)
	// is taken by route on the connection's reader; Incoming stays empty.

	hello, helloChunk, err := s.hello(ctx)
	var re *jdwp.ReplyError
	switch {
	case err == nil:
		s.runDDM(ctx, hello, helloChunk, readyOnce)
	case errors.As(err, &re):
		s.conn.refused = true
		readyOnce()
		s.log.Info("VM refuses DDM; polling with standard JDWP", "error", err)
		s.entry.setCaps(func(in *capInput) { in.kind = "jdwp" })
		p := &jdwpPoller{jc: jc, entry: s.entry, book: s.threads, input: s.input, badInput: s.badInput,
			timeout: s.opts.RequestTimeout, interval: s.opts.JDWPThreadInterval}
		p.run(ctx)
	case ctx.Err() == nil && jc.Err() == nil:
		// Alive but silent: do not guess, and send nothing non-DDM.
		s.silent = true
		readyOnce()
		s.entry.setErr("no reply to HELO")
		s.entry.setCaps(func(in *capInput) { in.kind = "silent" })
		s.src.startProcThreads(ctx) // the kernel still knows its threads
		select {
		case <-jc.Done():
		case <-ctx.Done():
		}
	}
	cancel()
	if err := jc.Err(); err != nil && !errors.Is(err, jdwp.ErrClosed) {
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

// input stamps, records and applies one input: inputs of one session from
// different goroutines (the reader, the pollers) reach the model and the
// recording in the same order, with the time the model is given.
func (s *Session) input(fn func(now time.Time)) {
	s.inMu.Lock()
	defer s.inMu.Unlock()
	fn(time.Now())
}

func (s *Session) hello(ctx context.Context) (*ddm.Hello, ddm.Chunk, error) {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		m, c, err := s.conn.requestChunk(ctx, &ddm.HelloRequest{ServerVersion: ddm.ServerProtocolVersion}, s.opts.RequestTimeout)
		if err == nil {
			if h, ok := m.(*ddm.Hello); ok {
				return h, c, nil
			}
			err = fmt.Errorf("HELO answered with %T", m)
		}
		var re *jdwp.ReplyError
		if errors.As(err, &re) || ctx.Err() != nil || s.conn.jc.Err() != nil {
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
	if m, c, err := s.conn.requestChunk(ctx, &ddm.FeaturesRequest{}, s.opts.RequestTimeout); err == nil {
		if f, ok := m.(*ddm.Features); ok {
			features = f.Names
			s.input(func(now time.Time) {
				s.rec.chunk(now, s.key, c)
				s.entry.applyFeatures(f)
			})
		}
	}
	s.entry.setCaps(func(in *capInput) { in.kind, in.features = "ddm", features })
	ready()
	// Replies to these are empty or absent (modern ART); never wait.
	_ = s.conn.post(&ddm.ThreadNotifyRequest{Enable: true})
	_ = s.conn.post(&ddm.HeapInfoRequest{When: ddm.HeapInfoEveryGC})
	_ = s.conn.post(&ddm.HeapInfoRequest{When: ddm.HeapInfoNow})
	hpifAsked := time.Now()
	if s.heaps.askAtStart() {
		_ = s.conn.post(&ddm.SegmentRequest{Type: ddm.TypeHPSG, When: ddm.SegmentWhenEveryGC, What: ddm.SegmentWhatMerged})
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
		case <-s.conn.jc.Done():
			return
		case <-poller.unanswered:
			s.src.startProcThreads(ctx)
		}
	}
}

// ErrNotDDM is the answer to a DDM request (heap, GC, allocations, profiling) on a
// VM that speaks JDWP but not DDM, such as a desktop JVM.
var ErrNotDDM = errors.New("not a DDM VM")

// ErrNoDevice is returned for requests that need the VM's device (adb
// shell) from a VM found on a local port.
var ErrNoDevice = errors.New("the VM is not on an adb device")

// ThreadDump returns the VM's Java stacks as the runtime prints them
// (SIGQUIT dump text), obtained through its device: `debuggerd -j PID`
// (Android 8+), or kill -3 and the ANR file (devshell.ANRPath, before
// Android 8). When nothing works the error says why for each way
// (devshell.ThreadDump).
func (s *Session) ThreadDump(ctx context.Context) ([]byte, error) {
	if s.dev == nil {
		return nil, ErrNoDevice
	}
	vm, _ := s.entry.vm()
	return devshell.ThreadDump(ctx, s.dev, vm.PID, vm.Package, vm.App, min(s.opts.MaxDeviceFile, maxHeldDeviceFile))
}

// HeapDump asks the VM for an HPROF heap dump (spec/ddm-chunks.md §7.6):
// streamed (HPDS: the whole file arrives as one unsolicited chunk) when FEAT
// lists hprof-heap-dump-streaming, otherwise written to a device file (HPDU)
// and read back through adb; when the VM sends nothing within
// HeapDumpWait (recent Android never does) or has no DDM heap dump, the
// device's `am dumpheap` (heapdump.go). The file is Android's HPROF
// variant (JAVA PROFILE 1.0.3); hprof.Convert makes it standard. progress,
// when set, is called with the bytes received so far. A refused dump
// gives the VM's reason.
func (s *Session) HeapDump(ctx context.Context, progress func(received uint64)) ([]byte, error) {
	var h heldBytes
	if _, err := s.dumps.dump(ctx, &h, progress); err != nil {
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
	return s.dumps.dump(ctx, w, progress)
}

// ANRPath is where Android (before 8) writes SIGQUIT dumps.
const ANRPath = devshell.ANRPath

// SetDebugger records the debugger state and port shown for the VM. An
// empty state leaves the state as it is; a negative port leaves the port. A
// VM no longer in the store (its session ended) is not re-created.
func (s *Session) SetDebugger(state DebuggerState, port int) {
	st := stateRecord{}
	if state != "" {
		st.Debugger = (*string)(&state)
	}
	if port >= 0 {
		st.DebugPort = &port
	}
	s.rec.json(time.Now(), record.KindState, s.key, st)
	s.entry.applyDebugger(state, port)
}
