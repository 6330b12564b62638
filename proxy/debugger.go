package proxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
)

// Limits of one debugger connection.
const (
	// maxPending bounds the debugger's commands awaiting a reply.
	maxPending = 1 << 16
	// aliasBase is where ids for rewritten debugger commands start; any id
	// the monitor's Conn owns or that is in flight is skipped.
	aliasBase uint32 = 0x7f000000
	// writeTimeout bounds one write to the debugger.
	writeTimeout = 10 * time.Second
	// drainWait bounds the wait for replies to a departed debugger's
	// commands before the cleanup starts.
	drainWait = 2 * time.Second
	// maxSweepResumes bounds the resumes the cleanup sends per thread.
	maxSweepResumes = 64
)

// request is a debugger command in flight.
type request struct {
	orig     uint32 // the debugger's id
	set, cmd uint8
	data     []byte
	sent     time.Time
	// spun: the reply is polled for (spin.go).
	spun bool
}

// attachment is one debugger connection and what it did to its VM.
type attachment struct {
	p      *Proxy
	e      *entry
	key    string
	port   int
	nc     net.Conn
	remote string

	// Set once the session is known (under p.mu, see fromVM routing).
	session *monitor.Session
	jc      *jdwp.Conn
	isDDM   bool

	mu         sync.Mutex
	pending    map[uint32]*request // by the id used on the VM connection
	forwarded  int                 // commands forwarded to the VM
	pre        []*jdwp.Packet      // what the VM sent before the attach, handed to the debugger
	wasFresh   bool                // no debugger had attached to the session before
	attached   time.Time           // when it attached (under p.mu; zero before)
	br         *bufio.Reader       // the debugger's stream (peeked by closed before readLoop reads it)
	nextAlias  uint32
	tr         *tracker
	forwarding bool // VM packets go to the debugger
	queue      []*jdwp.Packet
	queueBytes int
	qclosed    bool
	overflow   bool
	qsignal    chan struct{}
	drained    chan struct{} // signalled when pending empties
	// The fast path (send): with nothing queued and the writer idle, a
	// packet is written at once with one non-blocking write; what the
	// socket does not take waits in partial, ahead of the queue, for the
	// writer. raw is nil when nc offers no raw access (then every packet
	// is queued).
	raw     syscall.RawConn
	rawRead bool   // the debugger's stream is read from raw (set before the attach)
	writing bool   // the writer goroutine writes a batch (outside a.mu)
	partial []byte // the unwritten rest of a packet the fast path began
	scratch []byte // the fast path's packet buffer (at most fastMax)

	// leaving is set (under p.mu, and leavingCh closed) when the debugger
	// left and the cleanup starts; released is closed when the slot is free
	// again.
	leaving   bool
	leavingCh chan struct{}
	released  chan struct{}

	// Busy-polling (spin.go): vmSock is the VM connection's socket (nil:
	// none to poll).
	spin   spinState
	vmSock syscall.RawConn
}

func (p *Proxy) serveDebugger(nc net.Conn, key string, port int) {
	remote := nc.RemoteAddr().String()
	refuse := func(why string) {
		nc.Close()
		p.note(key, port, "debugger "+remote+" refused", why)
	}
	if why := p.unattachable(key); why != "" {
		refuse(why)
		return
	}
	p.mu.Lock()
	why := p.attachRefusalLocked(key)
	ctx := p.ctx
	if why == "" {
		p.startHandshakeLocked(nc)
	}
	p.mu.Unlock()
	if why != "" {
		refuse(why)
		return
	}
	defer nc.Close()
	// The proxy stopping ends the connection in any phase.
	stopWatch := context.AfterFunc(ctx, func() { nc.Close() })
	defer stopWatch()

	// The slot is claimed only after the handshake: a connection that never
	// sends it does not lock the real debugger out.
	err := jdwp.ServerHandshake(nc, jdwp.DefaultHandshakeTimeout)
	p.mu.Lock()
	delete(p.handshaking, nc)
	p.mu.Unlock()
	if err != nil {
		p.note(key, port, "debugger "+remote+" dropped", "handshake: "+err.Error())
		return
	}
	a := &attachment{
		p: p, key: key, port: port, nc: nc, remote: remote,
		pending: map[uint32]*request{}, nextAlias: aliasBase, tr: newTracker(),
		qsignal: make(chan struct{}, 1), drained: make(chan struct{}, 1),
		leavingCh: make(chan struct{}), released: make(chan struct{}),
	}
	a.br, a.rawRead = debuggerReader(nc)
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			a.raw = raw
		}
	}
	if why := p.claim(ctx, a); why != "" {
		refuse(why)
		return
	}
	e := a.e
	p.notify()
	defer a.release()

	s, jc, isDDM, err := p.waitSession(ctx, e, a.closed)
	if err != nil {
		p.note(key, port, "debugger "+remote+" dropped", err.Error())
		return
	}

	// Attach: from here the VM's packets for the debugger come to a, after
	// whatever the VM sent before (pre-data).
	p.mu.Lock()
	if e.session != s || !e.primed {
		p.mu.Unlock()
		p.note(key, port, "debugger "+remote+" dropped", "the VM's session changed")
		return
	}
	a.session, a.jc, a.isDDM, a.vmSock = s, jc, isDDM, jc.SyscallConn()
	pre := e.predata
	a.pre, a.wasFresh = pre, e.fresh
	e.predata, e.predataBytes, e.fresh = nil, 0, false
	a.forwarding, a.attached = true, time.Now()
	a.mu.Lock()
	for _, pk := range pre {
		a.tr.event(pk)
		a.enqueueLocked(pk)
	}
	a.mu.Unlock()
	p.mu.Unlock()

	if p.engine.Session(key) == s {
		s.SetDebugger(monitor.DebuggerAttached, -1)
	}
	p.notify()
	kind := "standard JDWP"
	if isDDM {
		kind = "DDM"
	}
	p.insp.Observe(jdwpspy.Observation{At: time.Now(), VM: key, Port: port, Dir: jdwpspy.Session, Reset: true,
		Text: "debugger " + remote + " attached", Note: fmt.Sprintf("%s VM; %d packet(s) kept from before", kind, len(pre))})
	for _, pk := range pre {
		p.insp.Observe(jdwpspy.Observation{At: time.Now(), VM: key, Port: port, Dir: jdwpspy.FromVM, Packet: pk, Note: "sent by the VM before the debugger attached"})
	}

	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.writeLoop()
	}()
	readerDone := make(chan struct{})
	go func() {
		defer wg.Done()
		select {
		case <-jc.Done():
			nc.Close()
		case <-readerDone:
		}
	}()
	reason := a.readLoop(ctx)
	close(readerDone)
	a.leave(reason, &wg)
}

// waitSession waits (AttachWait at most) for e's VM to have a running
// session whose HELO was decided, and returns it with its connection. A
// debugger that closes meanwhile (gone) stops the wait: a client that
// handshakes and leaves must not hold the slot while the VM re-opens.
func (p *Proxy) waitSession(ctx context.Context, e *entry, gone func() bool) (*monitor.Session, *jdwp.Conn, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.AttachWait)
	defer cancel()
	for {
		p.mu.Lock()
		s := e.session
		primed := e.primed
		p.mu.Unlock()
		if s != nil && primed && p.engine.Session(e.key) == s {
			jc, err := s.Link().Conn(ctx)
			if err == nil {
				isDDM, err := s.Link().IsDDM(ctx)
				if err == nil && jc.Err() == nil {
					return s, jc, isDDM, nil
				}
			}
		}
		if gone() {
			return nil, nil, false, errors.New("the debugger closed the connection before the VM's session was ready")
		}
		select {
		case <-ctx.Done():
			return nil, nil, false, fmt.Errorf("%s has no running session", e.key)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// debuggerReader is the reader of the debugger's stream, and whether it
// reads nc's socket with plain system calls, as the VM's packets are read
// (jdwp/rawio_linux.go): the runtime's bookkeeping of an ordinary read woke
// its monitor thread on every command (docs/PERFORMANCE.md, "Debugger
// proxy").
func debuggerReader(nc net.Conn) (*bufio.Reader, bool) {
	if r := jdwp.NewRawReader(nc); r != nil {
		return bufio.NewReaderSize(r, 64<<10), true
	}
	return bufio.NewReaderSize(nc, 64<<10), false
}

// readLoop forwards the debugger's commands until it leaves; it returns why.
func (a *attachment) readLoop(ctx context.Context) string {
	br := a.br
	for {
		pk, err := jdwp.ReadPacketBudget(br, a.p.opts.MaxPacketLen, a.p.opts.Budget)
		if err != nil {
			a.mu.Lock()
			overflow := a.overflow
			a.mu.Unlock()
			switch {
			case overflow:
				return fmt.Sprintf("the debugger did not read; more than %d bytes were waiting for it", a.p.opts.QueueBytes)
			case ctx.Err() != nil:
				return "ddmtui is stopping"
			case a.jc.Err() != nil:
				return "the VM connection ended"
			case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
				return "the debugger closed the connection"
			}
			return "reading from the debugger: " + err.Error()
		}
		if pk.IsReply() {
			// VMs never expect a reply (they issue only Event.Composite and
			// DDM chunks); HotSpot closes the connection on one.
			a.observe(jdwpspy.ToVM, pk, 0, nil, "a reply from the debugger: dropped")
			continue
		}
		if pk.CommandSet == jdwp.CmdSetVirtualMachine && pk.Command == cmdVMDispose {
			// Forwarded, Dispose would make HotSpot close the monitor's
			// connection. The proxy answers it and cleans up itself.
			now := time.Now()
			a.observe(jdwpspy.ToVM, pk, 0, nil, "answered by ddmtui, not forwarded")
			rep := jdwp.NewReply(pk.ID, jdwp.ErrNone, nil)
			a.mu.Lock()
			a.sendLocked(rep)
			a.mu.Unlock()
			a.observe(jdwpspy.FromVM, rep, 0, &request{orig: pk.ID, set: pk.CommandSet, cmd: pk.Command, sent: now}, "ddmtui's answer")
			return "the debugger sent VirtualMachine.Dispose"
		}
		a.commandRead()
		if err := a.forward(pk); err != nil {
			return err.Error()
		}
	}
}

// cmdVMDispose is VirtualMachine.Dispose (1/6).
const cmdVMDispose uint8 = 6

// forward sends one debugger command to the VM. Its id is kept unless it
// falls in the monitor's id range or is already in flight: then an alias is
// used on the VM connection and mapped back in the reply.
func (a *attachment) forward(pk *jdwp.Packet) error {
	a.mu.Lock()
	if len(a.pending) >= maxPending {
		a.mu.Unlock()
		return fmt.Errorf("the debugger has more than %d commands awaiting replies", maxPending)
	}
	wireID := pk.ID
	if a.jc.OwnsID(wireID) || a.pending[wireID] != nil {
		wireID = a.allocAliasLocked()
	}
	req := &request{orig: pk.ID, set: pk.CommandSet, cmd: pk.Command, data: pk.Data}
	a.spinReply(req)
	a.pending[wireID] = req
	a.forwarded++
	a.mu.Unlock()

	out := pk
	var rewritten uint32
	if wireID != pk.ID {
		cp := *pk
		cp.ID = wireID
		out, rewritten = &cp, wireID
	}
	a.observe(jdwpspy.ToVM, pk, rewritten, nil, "")
	a.mu.Lock()
	req.sent = time.Now()
	a.mu.Unlock()
	if err := a.jc.WritePacket(out); err != nil {
		a.mu.Lock()
		delete(a.pending, wireID)
		a.mu.Unlock()
		return fmt.Errorf("forwarding %s to the VM: %w", jdwp.CommandName(pk.CommandSet, pk.Command), err)
	}
	a.awaitReply(req)
	return nil
}

func (a *attachment) allocAliasLocked() uint32 {
	for {
		id := a.nextAlias
		a.nextAlias++
		if a.nextAlias == 0 {
			a.nextAlias = aliasBase
		}
		if id != 0 && !a.jc.OwnsID(id) && a.pending[id] == nil {
			return id
		}
	}
}

// fromVM handles a VM packet for this debugger (on the VM connection's
// reader goroutine; it never blocks on the debugger).
func (a *attachment) fromVM(pk *jdwp.Packet) {
	a.mu.Lock()
	var req *request
	var took time.Duration
	idle := false
	if pk.IsReply() {
		req = a.pending[pk.ID]
		if req == nil {
			fwd := a.forwarding
			a.mu.Unlock()
			if fwd {
				a.observe(jdwpspy.FromVM, pk, 0, nil, "a reply to no pending command: dropped")
			}
			return
		}
		delete(a.pending, pk.ID)
		took, idle = time.Since(req.sent), len(a.pending) == 0
		a.tr.reply(req.set, req.cmd, req.data, pk)
		if idle {
			select {
			case a.drained <- struct{}{}:
			default:
			}
		}
	} else {
		a.tr.event(pk)
	}
	out := pk
	var rewritten uint32
	if req != nil && req.orig != pk.ID {
		cp := *pk
		cp.ID = req.orig
		out, rewritten = &cp, pk.ID
	}
	fwd := a.forwarding
	if fwd {
		a.sendLocked(out)
	}
	a.mu.Unlock()
	note := ""
	if !fwd {
		note = "not delivered: the debugger left"
	}
	a.observe(jdwpspy.FromVM, out, rewritten, req, note)
	if req != nil && fwd {
		a.replied(took, idle)
	}
}

func (a *attachment) observe(dir jdwpspy.Direction, pk *jdwp.Packet, wireID uint32, req *request, note string) {
	o := jdwpspy.Observation{At: time.Now(), VM: a.key, Port: a.port, Dir: dir, Packet: pk, WireID: wireID, Note: note}
	if req != nil {
		o.Req, o.Paired = jdwpspy.Command{Set: req.set, Cmd: req.cmd, Data: req.data, Sent: req.sent}, true
	}
	a.p.insp.Observe(o)
}

// bigData is the data size from which the writer sends a packet's data
// from its own slice rather than copying it next to its header.
const bigData = 16 << 10

// fastMax is the largest packet the fast path writes at once; larger ones
// (a big reply, already slow to produce) go through the writer.
const fastMax = 64 << 10

// sendLocked hands a packet to the debugger; a.mu is held. When nothing is
// queued or being written it tries one non-blocking write on the calling
// goroutine (the VM connection's reader), saving the hand-off to the writer;
// whatever the socket does not take at once goes to the writer. It never
// waits for the debugger.
func (a *attachment) sendLocked(pk *jdwp.Packet) {
	if a.qclosed {
		return
	}
	if a.raw == nil || a.writing || len(a.queue) > 0 || a.partial != nil || pk.Len() > fastMax {
		a.enqueueLocked(pk)
		return
	}
	buf := pk.Append(a.scratch[:0])
	a.scratch = buf
	n := a.tryWrite(buf)
	if n == len(buf) {
		return
	}
	if a.queueBytes+len(buf)-n > a.p.opts.QueueBytes {
		a.overflowLocked()
		return
	}
	a.partial = append([]byte(nil), buf[n:]...)
	a.queueBytes += len(a.partial)
	a.signal()
}

// enqueueLocked queues a packet for the debugger's writer; a.mu is held.
func (a *attachment) enqueueLocked(pk *jdwp.Packet) {
	if a.qclosed {
		return
	}
	if a.queueBytes+pk.Len() > a.p.opts.QueueBytes {
		a.overflowLocked()
		return
	}
	a.queue = append(a.queue, pk)
	a.queueBytes += pk.Len()
	a.signal()
}

// overflowLocked disconnects a debugger that does not keep up rather than
// stall the VM connection or grow without bound; a.mu is held.
func (a *attachment) overflowLocked() {
	a.overflow, a.qclosed, a.forwarding = true, true, false
	a.queue, a.queueBytes, a.partial = nil, 0, nil
	a.nc.Close()
}

func (a *attachment) signal() {
	select {
	case a.qsignal <- struct{}{}:
	default:
	}
}

// writeLoop writes queued packets to the debugger, in order, until the
// queue is closed and empty or a write fails.
func (a *attachment) writeLoop() {
	var buf []byte
	var bufs net.Buffers
	for {
		a.mu.Lock()
		partial, batch, closed := a.partial, a.queue, a.qclosed
		a.partial, a.queue, a.queueBytes = nil, nil, 0
		busy := partial != nil || len(batch) > 0
		a.writing = busy
		a.mu.Unlock()
		if !busy {
			if closed {
				return
			}
			<-a.qsignal
			continue
		}
		// One write (writev) for the batch: small packets are copied
		// together, a large packet's data goes out from where it is.
		buf = append(buf[:0], partial...)
		out := bufs[:0]
		mark := 0
		for _, pk := range batch {
			if len(pk.Data) < bigData {
				buf = pk.Append(buf)
				continue
			}
			buf = pk.AppendHeader(buf)
			out = append(out, buf[mark:], pk.Data)
			mark = len(buf)
		}
		out = append(out, buf[mark:])
		bufs = out
		_ = a.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
		_, err := out.WriteTo(a.nc)
		clear(bufs[:cap(bufs)])                // let the packets' data go
		_ = a.nc.SetWriteDeadline(time.Time{}) // the fast path's writes check it too
		a.mu.Lock()
		a.writing = false
		if err != nil {
			a.qclosed, a.forwarding = true, false
			a.queue, a.queueBytes, a.partial = nil, 0, nil
		}
		a.mu.Unlock()
		if err != nil {
			a.nc.Close()
			return
		}
		if cap(buf) > 1<<20 {
			buf = nil // do not keep a huge buffer for small packets
		}
	}
}

// leave ends the debugger connection and undoes what the debugger left in
// the VM. wg covers the writer and the VM watcher.
func (a *attachment) leave(reason string, wg *sync.WaitGroup) {
	a.p.mu.Lock()
	a.leaving = true
	close(a.leavingCh)
	a.p.mu.Unlock()
	a.mu.Lock()
	a.forwarding, a.qclosed = false, true
	a.mu.Unlock()
	select {
	case a.qsignal <- struct{}{}:
	default:
	}
	wg.Wait() // the writer delivered what was queued (a Dispose answer)
	a.nc.Close()
	if a.idle() {
		a.leaveIdle(reason)
		return
	}

	// Replies to commands still in flight arrive before the cleanup.
	deadline := time.NewTimer(drainWait)
	defer deadline.Stop()
	for {
		a.mu.Lock()
		n := len(a.pending)
		a.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-a.drained:
			continue
		case <-a.jc.Done():
		case <-deadline.C:
		}
		break
	}

	ctx, cancel := context.WithTimeout(context.Background(), a.p.opts.CleanupTimeout)
	defer cancel()
	reopen := a.p.opts.Reopen == ReopenAlways || (a.p.opts.Reopen == ReopenDDM && a.isDDM)
	rep := a.cleanup(ctx, !reopen)

	current := a.p.engine.Session(a.key) == a.session && a.jc.Err() == nil
	if current && reopen {
		// The store forgets the VM with this session; the next one
		// starts with no debugger.
		a.session.Link().Reopen()
		rep.reopened = true
	}
	a.release()
	if current && !reopen {
		a.session.SetDebugger(monitor.DebuggerNone, -1)
	}
	a.p.note(a.key, a.port, "debugger "+a.remote+" left: "+reason, rep.String())
}

// cleanupReport says what the cleanup did.
type cleanupReport struct {
	cleared, vmResumes, threadResumes, sweepResumes int
	swept, reopened                                 bool
	errs                                            []string
}

func (r cleanupReport) String() string {
	parts := []string{fmt.Sprintf("cleared %d event request(s)", r.cleared),
		fmt.Sprintf("resumed the VM %d time(s)", r.vmResumes),
		fmt.Sprintf("resumed threads %d time(s)", r.threadResumes)}
	if r.swept {
		parts = append(parts, fmt.Sprintf("sweep resumed %d more", r.sweepResumes))
	}
	if r.reopened {
		parts = append(parts, "re-opened the VM connection")
	}
	if len(r.errs) > 0 {
		parts = append(parts, "errors: "+strings.Join(r.errs, "; "))
	}
	return strings.Join(parts, ", ")
}

// cleanup clears the debugger's live event requests and resumes what it
// suspended, as tracked; sweep additionally checks every thread's suspend
// count (skipped when the VM is about to be re-opened, which makes Dalvik
// and ART undo everything themselves).
func (a *attachment) cleanup(ctx context.Context, sweep bool) cleanupReport {
	var rep cleanupReport
	jc := a.jc
	if jc.Err() != nil {
		rep.errs = append(rep.errs, "the VM connection is gone")
		return rep
	}
	a.mu.Lock()
	t := a.tr
	reqIDs := make([]int32, 0, len(t.requests))
	for id := range t.requests {
		reqIDs = append(reqIDs, id)
	}
	kinds := make(map[int32]uint8, len(t.requests))
	for id, k := range t.requests {
		kinds[id] = k
	}
	vmSuspends := t.vmSuspends
	threads := make(map[uint64]int, len(t.threadSuspends))
	for th, n := range t.threadSuspends {
		threads[th] = n
	}
	sizes, suspended := t.sizes, t.suspended || t.unknownSuspends > 0
	a.mu.Unlock()
	sort.Slice(reqIDs, func(i, j int) bool { return reqIDs[i] < reqIDs[j] })

	fail := func(what string, err error) {
		if len(rep.errs) < 4 {
			rep.errs = append(rep.errs, what+": "+err.Error())
		}
	}
	for _, id := range reqIDs {
		data := binary.BigEndian.AppendUint32([]byte{kinds[id]}, uint32(id))
		if _, err := jc.Request(ctx, jdwp.CmdSetEventRequest, jdwp.CmdEventRequestClear, data); err != nil {
			fail("EventRequest.Clear", err)
			continue
		}
		rep.cleared++
	}
	for i := 0; i < vmSuspends; i++ {
		if _, err := jc.Request(ctx, jdwp.CmdSetVirtualMachine, jdwp.CmdVMResume, nil); err != nil {
			fail("VirtualMachine.Resume", err)
			break
		}
		rep.vmResumes++
	}
	if (len(threads) > 0 || (sweep && suspended)) && !sizes.Valid() {
		s, err := jc.IDSizes(ctx)
		if err != nil {
			fail("VirtualMachine.IDSizes", err)
			return rep
		}
		sizes = s
	}
	ths := make([]uint64, 0, len(threads))
	for th := range threads {
		ths = append(ths, th)
	}
	sort.Slice(ths, func(i, j int) bool { return ths[i] < ths[j] })
	for _, th := range ths {
		for i := 0; i < threads[th] && i < maxSweepResumes; i++ {
			if _, err := jc.Request(ctx, jdwp.CmdSetThreadReference, jdwp.CmdThreadResume, jdwp.AppendID(nil, sizes.ObjectID, th)); err != nil {
				fail("ThreadReference.Resume", err)
				break
			}
			rep.threadResumes++
		}
	}
	if !sweep || !suspended {
		return rep
	}
	// An event generated just before its request was cleared may suspend
	// after the counts above were taken: let it land, then sweep.
	select {
	case <-time.After(50 * time.Millisecond):
	case <-ctx.Done():
	}
	rep.swept = true
	ids, err := jc.AllThreads(ctx, sizes)
	if err != nil {
		fail("VirtualMachine.AllThreads", err)
		return rep
	}
	for _, th := range ids {
		arg := jdwp.AppendID(nil, sizes.ObjectID, th)
		p, err := jc.Request(ctx, jdwp.CmdSetThreadReference, jdwp.CmdThreadSuspendCnt, arg)
		if err != nil || len(p.Data) < 4 {
			continue // the thread may have ended
		}
		n := int(int32(binary.BigEndian.Uint32(p.Data)))
		for i := 0; i < n && i < maxSweepResumes; i++ {
			if _, err := jc.Request(ctx, jdwp.CmdSetThreadReference, jdwp.CmdThreadResume, arg); err != nil {
				fail("ThreadReference.Resume", err)
				break
			}
			rep.sweepResumes++
		}
	}
	return rep
}
