package jdwp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultIDBase is where a Conn starts numbering its own requests. Debuggers
// count from 1 and VMs number their own commands from 0x10000000 (Dalvik,
// ART-2016) or 0x80000000|n (ART 9+), so ids from 0x40000000 upward never
// collide with a debugger sharing the stream (spec/jdwp.md §4).
const DefaultIDBase uint32 = 0x40000000

// idSpan is the size of a Conn's id range; ids wrap within it.
const idSpan uint32 = 0x10000000

// ErrClosed is returned for operations on a closed Conn and wakes every
// pending request when Close is called.
var ErrClosed = errors.New("jdwp: connection closed")

// ReadCounter is implemented by a net.Conn wrapper that counts the bytes
// read through it and exposes its socket (SyscallConn): a Conn over it reads
// the socket itself (Linux) and reports each read with CountRead.
type ReadCounter interface{ CountRead(n int) }

// rawWriteMax is the largest packet written with one plain write(2) from a
// copy (rawio_linux.go); larger ones go out through net.Conn unbroken.
const rawWriteMax = 4096

// ErrBusy is returned by TryRequestFunc when another write is under way.
var ErrBusy = errors.New("jdwp: another write is under way")

// waiter is a pending request of this Conn: a Request waiting on ch, or a
// TryRequestFunc's callback.
type waiter struct {
	ch       chan *Packet
	fn       func(*Packet, error)
	set, cmd uint8
}

// replyErr is the error a reply to (set, cmd) carries, if any.
func replyErr(p *Packet, set, cmd uint8) error {
	if p.ErrorCode != ErrNone {
		return &ReplyError{Code: p.ErrorCode, CommandSet: set, Command: cmd}
	}
	return nil
}

// Options tune a Conn. The zero value is ready to use.
type Options struct {
	// MaxPacketLen bounds incoming packet lengths (0: DefaultMaxPacketLen).
	MaxPacketLen int
	// IDBase is the first id of this side's own commands (0: DefaultIDBase).
	// The Conn owns [IDBase, IDBase+0x10000000).
	IDBase uint32
	// WriteTimeout bounds one packet write (0: 10s). A write that times out
	// closes the connection, since a partial packet desynchronises the stream.
	WriteTimeout time.Duration
	// IncomingBuffer is the capacity of the Incoming channel (0: 256).
	IncomingBuffer int
	// Budget, when set, bounds the bytes of large packets (over 1 MiB)
	// being received, in Route or waiting in Incoming, over every Conn
	// sharing it. A
	// packet longer than StreamThreshold (when set) draws from StreamBudget
	// instead: a monitor lets a VM send such packets only when it asked for
	// one (a streamed heap dump).
	Budget          *Budget
	StreamBudget    *Budget
	StreamThreshold int
	// MaxQueued bounds the bytes of packets read but not yet taken from
	// Incoming (0: 64 MiB); past it the reader stops reading the peer. A
	// single packet always passes, whatever its size.
	MaxQueued int
	// Divert, when set, may take the body of a large packet as it arrives
	// instead of holding it (divert.go).
	Divert Divert
	// Route, when set, is offered every packet that is not a reply to this
	// Conn's own request, on the reader goroutine, in the order they came;
	// a packet it returns true for is taken and not queued in Incoming. It
	// must not block for long: the next packet waits for it.
	Route func(*Packet) bool
}

// Conn multiplexes one JDWP stream. Its single reader goroutine routes each
// packet: a reply whose id is one of this Conn's own goes to the waiting
// Request (or is dropped if nobody waits any more, as for a request that
// timed out or was posted without waiting); every other packet — commands the
// peer sends (DDM chunks, Event.Composite) and replies to ids that belong to
// someone else (a debugger sharing the stream) — goes to Incoming. Writes are
// serialised.
type Conn struct {
	nc   net.Conn
	opts Options

	wmu sync.Mutex // serialises writes
	// wdeadline is the write deadline set on nc (under wmu): renewed only
	// when less than half of WriteTimeout is left, not for every packet.
	wdeadline time.Time
	// raw is the socket under nc, if any (rawio_linux.go): small packets
	// are written, and every packet read, with plain system calls on it.
	raw  syscall.RawConn
	wbuf []byte // a small packet's bytes (under wmu)

	mu      sync.Mutex
	pending map[uint32]waiter
	next    uint32
	err     error

	maxLen atomic.Int64 // the packet length limit now (SetMaxPacketLen)

	in         chan *Packet
	done       chan struct{}
	readerDone chan struct{}
	once       sync.Once

	// Reader-only: the sizes of the packets sent to Incoming that may still
	// be in its buffer (oldest first) and their sum, for MaxQueued, with
	// the budget each holds (nil for small packets).
	queued      []queuedPacket
	queuedBytes int

	stats Stats
}

// Stats are a Conn's traffic counters.
type Stats struct {
	PacketsIn, PacketsOut atomic.Uint64
	BytesIn, BytesOut     atomic.Uint64
	// DroppedReplies counts replies to this Conn's own ids that nobody was
	// waiting for (a late answer to a timed-out or posted request).
	DroppedReplies atomic.Uint64
	// RawBytesIn counts bytes as they arrive from the socket, also inside a
	// packet still being read: progress for large packets (heap dumps).
	RawBytesIn atomic.Uint64
}

// countingReader adds the bytes read to a counter.
type countingReader struct {
	r io.Reader
	n *atomic.Uint64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(uint64(n))
	return n, err
}

// NewConn starts multiplexing nc, on which the handshake has already been
// done.
func NewConn(nc net.Conn, opts Options) *Conn {
	if opts.MaxPacketLen <= 0 {
		opts.MaxPacketLen = DefaultMaxPacketLen
	}
	if opts.IDBase == 0 {
		opts.IDBase = DefaultIDBase
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = 10 * time.Second
	}
	if opts.IncomingBuffer <= 0 {
		opts.IncomingBuffer = 256
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = 64 << 20
	}
	c := &Conn{
		nc:         nc,
		opts:       opts,
		pending:    map[uint32]waiter{},
		next:       opts.IDBase,
		in:         make(chan *Packet, opts.IncomingBuffer),
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
		raw:        rawConnOf(nc),
	}
	c.maxLen.Store(int64(opts.MaxPacketLen))
	go c.readLoop()
	return c
}

// MaxPacketLen is the incoming packet length limit now.
func (c *Conn) MaxPacketLen() int { return int(c.maxLen.Load()) }

// SetMaxPacketLen changes the incoming packet length limit from the next
// packet header on (0: back to the Options value). A monitor keeps the
// limit at what a VM sends unasked and raises it only while it waits for a
// large transfer (a streamed heap dump or trace).
func (c *Conn) SetMaxPacketLen(n int) {
	if n <= 0 {
		n = c.opts.MaxPacketLen
	}
	c.maxLen.Store(int64(n))
}

// Dial connects to a JDWP endpoint at addr, performs the handshake as the
// initiator and returns a running Conn. The handshake is bounded by ctx's
// deadline, or DefaultHandshakeTimeout.
func Dial(ctx context.Context, addr string, opts Options) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	timeout := DefaultHandshakeTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
		if timeout <= 0 {
			nc.Close()
			return nil, context.DeadlineExceeded
		}
	}
	if err := ClientHandshake(nc, timeout); err != nil {
		nc.Close()
		return nil, err
	}
	return NewConn(nc, opts), nil
}

// OwnsID reports whether id lies in this Conn's own request range.
func (c *Conn) OwnsID(id uint32) bool {
	return id-c.opts.IDBase < idSpan
}

// Incoming delivers every packet that is not a reply to this Conn's own
// requests. It is closed when the connection ends. A consumer that stops
// reading stalls this connection's reader (and only this one).
func (c *Conn) Incoming() <-chan *Packet { return c.in }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended (ErrClosed after Close), or nil while
// it runs.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Stats returns the traffic counters.
func (c *Conn) Stats() *Stats { return &c.stats }

// RemoteAddr is the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.nc.RemoteAddr() }

// Close ends the connection, wakes every pending request with ErrClosed and
// waits for the reader goroutine to finish.
func (c *Conn) Close() error {
	c.shutdown(ErrClosed)
	<-c.readerDone
	return nil
}

func (c *Conn) shutdown(err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.done)
		c.nc.Close()
	})
}

func (c *Conn) allocID() uint32 {
	// called with c.mu held
	for {
		id := c.next
		c.next++
		if c.next-c.opts.IDBase >= idSpan {
			c.next = c.opts.IDBase
		}
		if _, busy := c.pending[id]; !busy {
			return id
		}
	}
}

// Request sends a command and waits for its reply, ctx's end, or the
// connection's end. A reply with a non-zero error code is returned together
// with a *ReplyError. When ctx ends first the request is forgotten: a late
// reply is dropped.
func (c *Conn) Request(ctx context.Context, set, cmd uint8, data []byte) (*Packet, error) {
	ch := make(chan *Packet, 1)
	id, err := c.register(waiter{ch: ch, set: set, cmd: cmd})
	if err != nil {
		return nil, err
	}

	if err := c.WritePacket(NewCommand(id, set, cmd, data)); err != nil {
		c.Forget(id)
		return nil, err
	}
	select {
	case p := <-ch:
		return p, replyErr(p, set, cmd)
	case <-ctx.Done():
		c.Forget(id)
		return nil, fmt.Errorf("jdwp: %s: %w", CommandName(set, cmd), ctx.Err())
	case <-c.done:
		c.Forget(id)
		// A reply may have raced with the shutdown.
		select {
		case p := <-ch:
			return p, replyErr(p, set, cmd)
		default:
		}
		return nil, c.Err()
	}
}

// TryRequestFunc sends a command without waiting for its reply, if no other
// write is under way (else ErrBusy, and nothing is sent): a caller polling
// many connections from one goroutine never queues behind a long write. fn
// is called exactly once when it returns nil (and Forget did not take the
// request back): with the reply (and a *ReplyError if its error code is not
// zero), or with the connection's error when it ends first. It runs on the
// connection's reader goroutine, so it must not block: the next packet
// waits for it.
func (c *Conn) TryRequestFunc(set, cmd uint8, data []byte, fn func(*Packet, error)) (uint32, error) {
	id, err := c.register(waiter{fn: fn, set: set, cmd: cmd})
	if err != nil {
		return 0, err
	}
	if err := c.writePacket(NewCommand(id, set, cmd, data), true); err != nil {
		if c.Forget(id) {
			return 0, err
		}
		return id, nil // the connection ended and fn has its error
	}
	return id, nil
}

// Forget takes back a pending request (one that timed out): a late reply is
// dropped. It reports whether the request was pending, which for a
// TryRequestFunc means that its callback will not be called.
func (c *Conn) Forget(id uint32) bool {
	c.mu.Lock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	return ok
}

// Post sends a command from this Conn's id range without waiting; its reply,
// if the peer sends one, is dropped. Use it for requests that modern VMs never
// answer (spec/jdwp.md §3).
func (c *Conn) Post(set, cmd uint8, data []byte) (uint32, error) {
	id, err := c.register(waiter{})
	if err != nil {
		return 0, err
	}
	return id, c.WritePacket(NewCommand(id, set, cmd, data))
}

// register allocates an id for a request, unless the connection has ended,
// and keeps w for its reply (a zero w: nobody waits, the reply is dropped).
func (c *Conn) register(w waiter) (uint32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	id := c.allocID()
	if w.ch != nil || w.fn != nil {
		c.pending[id] = w
	}
	return id, nil
}

// WritePacket writes one packet as is (the proxy forwards a debugger's
// packets this way; a VM writes its replies and events). Writes are
// serialised; a failed write ends the connection.
func (c *Conn) WritePacket(p *Packet) error { return c.writePacket(p, false) }

// writePacket writes p; with try, only if no other write is under way (else
// ErrBusy).
func (c *Conn) writePacket(p *Packet, try bool) error {
	// Header and data go out together without copying the data: a
	// debugger's large command is not duplicated.
	var hdr [HeaderLen]byte
	bufs := net.Buffers{p.AppendHeader(hdr[:0]), p.Data}
	if !try {
		c.wmu.Lock()
	} else if !c.wmu.TryLock() {
		return ErrBusy
	}
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return c.Err()
	default:
	}
	// Each write has between half of WriteTimeout and all of it: setting
	// the deadline costs a timer change, so it is not done for every packet
	// of a poll.
	if now := time.Now(); c.wdeadline.Sub(now) < c.opts.WriteTimeout/2 {
		c.wdeadline = now.Add(c.opts.WriteTimeout)
		_ = c.nc.SetWriteDeadline(c.wdeadline)
	}
	var n int64
	var err error
	if c.raw != nil && p.Len() <= rawWriteMax {
		c.wbuf = append(append(c.wbuf[:0], bufs[0]...), p.Data...)
		var m int
		m, err = rawWrite(c.raw, c.wbuf)
		n = int64(m)
	} else {
		n, err = bufs.WriteTo(c.nc)
	}
	if err != nil {
		err = fmt.Errorf("jdwp: write %s: %w", p, err)
		c.shutdown(err)
		return err
	}
	c.stats.PacketsOut.Add(1)
	c.stats.BytesOut.Add(uint64(n))
	return nil
}

// SyscallConn is the socket under the connection, for waiting until it is
// readable (internal/busypoll), or nil (not a socket, or not on Linux). It
// must not be read: the bytes belong to the connection's reader.
func (c *Conn) SyscallConn() syscall.RawConn { return c.raw }

// NewRawReader is a reader of nc's socket that reads it as a Conn does
// (plain read(2) calls, the netpoller waiting when there is nothing to read),
// or nil where nc offers no raw access (not a socket, or not on Linux).
func NewRawReader(nc net.Conn) io.Reader {
	rc := rawConnOf(nc)
	if rc == nil {
		return nil
	}
	return rawReader{rc: rc}
}

func (c *Conn) readLoop() {
	defer close(c.readerDone)
	defer close(c.in)
	defer func() {
		// Packets still waiting in Incoming keep no budget once the reader
		// is gone (the connection is over).
		for _, q := range c.queued {
			q.b.Give(int64(q.n))
		}
		c.queued, c.queuedBytes = nil, 0
	}()
	var src io.Reader = c.nc
	if c.raw != nil {
		count, _ := c.nc.(ReadCounter)
		src = rawReader{c.raw, count}
	}
	br := bufio.NewReaderSize(countingReader{src, &c.stats.RawBytesIn}, 64<<10)
	for {
		p, b, held, err := c.readNext(br)
		if err == nil && p == nil {
			continue // diverted (divert.go)
		}
		if err != nil {
			c.shutdown(fmt.Errorf("jdwp: read: %w", err))
			c.failPending()
			return
		}
		c.stats.PacketsIn.Add(1)
		c.stats.BytesIn.Add(uint64(p.Len()))
		if !c.dispatch(p, b, held) {
			c.failPending()
			return
		}
	}
}

// dispatch hands a packet read whole to its consumer: the request waiting
// for the reply, Route, or Incoming. A large packet's bytes stay in its
// budget (b, held) until Route returns or until the packet is taken from
// Incoming (then only its length: the pieces it was read into are
// garbage), so that the packets a process holds, not only those being
// read, stay within the budget. It returns false when the connection
// ended meanwhile.
func (c *Conn) dispatch(p *Packet, b *Budget, held int64) bool {
	if p.IsReply() && c.OwnsID(p.ID) {
		// The caller of Request owns the reply: it leaves the budget.
		b.Give(held)
		c.mu.Lock()
		w, ok := c.pending[p.ID]
		delete(c.pending, p.ID)
		c.mu.Unlock()
		switch {
		case ok && w.fn != nil:
			w.fn(p, replyErr(p, w.set, w.cmd))
		case ok:
			w.ch <- p // buffered; exactly one reply per id
		default:
			c.stats.DroppedReplies.Add(1)
		}
		return true
	}
	if c.opts.Route != nil {
		taken := c.opts.Route(p)
		if taken {
			b.Give(held)
			return true
		}
	}
	// A large packet keeps its bytes in the budget until taken.
	q := queuedPacket{n: p.Len()}
	if held > 0 {
		q.b = b
		b.Give(held - int64(q.n))
		held = int64(q.n)
	}
	// Past MaxQueued bytes waiting in Incoming, stop reading the peer
	// until the consumer catches up.
	for !c.roomFor(p.Len()) {
		select {
		case <-c.done:
			q.b.Give(held)
			return false
		case <-time.After(time.Millisecond):
		}
	}
	select {
	case c.in <- p:
		c.queued = append(c.queued, q)
		c.queuedBytes += q.n
		return true
	case <-c.done:
		q.b.Give(held)
		return false
	}
}

// queuedPacket is one packet sent to Incoming, for MaxQueued and Budget.
type queuedPacket struct {
	n int
	b *Budget // holds n bytes while the packet waits; nil for small ones
}

// budgetFor is the budget a packet of length bytes draws from.
func (c *Conn) budgetFor(length int) *Budget {
	c.trimQueued() // what was taken since gives its bytes back first
	if c.opts.StreamThreshold > 0 && length > c.opts.StreamThreshold {
		return c.opts.StreamBudget
	}
	return c.opts.Budget
}

// roomFor reports whether a packet of n bytes may join Incoming: the queue
// is empty, or what waits there plus n stays within MaxQueued. Only the
// reader sends on Incoming, so the packets still buffered are the newest
// len(c.in) of those sent.
func (c *Conn) roomFor(n int) bool {
	c.trimQueued()
	return len(c.in) == 0 || c.queuedBytes+n <= c.opts.MaxQueued
}

// trimQueued forgets (and releases the budget of) the packets the consumer
// has taken from Incoming.
func (c *Conn) trimQueued() {
	waiting := len(c.in)
	for len(c.queued) > waiting {
		q := c.queued[0]
		c.queuedBytes -= q.n
		q.b.Give(int64(q.n))
		c.queued = c.queued[1:]
	}
	if len(c.queued) == 0 {
		c.queued = c.queued[:0:0] // let the old array go
	}
}

// failPending drops every waiter's registration: Request waiters wake on
// c.done, callbacks are called with the connection's error.
func (c *Conn) failPending() {
	c.mu.Lock()
	var fns []func(*Packet, error)
	for _, w := range c.pending {
		if w.fn != nil {
			fns = append(fns, w.fn)
		}
	}
	clear(c.pending)
	err := c.err
	c.mu.Unlock()
	for _, fn := range fns {
		fn(nil, err)
	}
}
