package adbd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
)

// conn is one host connection: a reader loop (run) that dispatches messages,
// and the streams the host opened.
type conn struct {
	srv *Server
	nc  net.Conn
	log *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc

	wmu  sync.Mutex // serialises packet writes
	wbuf []byte

	mu         sync.Mutex
	streams    map[uint32]*stream
	nextID     uint32
	maxPayload uint32 // for our WRTEs: min(host's, ours); 0 before CNXN
	wg         sync.WaitGroup
}

func (s *Server) newConn(nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(s.ctx)
	return &conn{
		srv: s, nc: nc, ctx: ctx, cancel: cancel,
		log:     s.log.With("host", nc.RemoteAddr().String()),
		streams: map[uint32]*stream{},
	}
}

// run reads and dispatches messages until the connection fails, then ends
// every stream and waits for their goroutines.
func (c *conn) run() {
	c.log.Debug("adbd: host connected")
	err := c.readLoop()
	c.cancel()
	c.nc.Close()
	// Take the streams out under the lock, end them outside it: a stream
	// closing itself holds its closeOnce and then takes c.mu (remove), so
	// ending streams while holding c.mu would deadlock against it.
	c.mu.Lock()
	streams := c.streams
	c.streams = map[uint32]*stream{}
	c.mu.Unlock()
	for _, st := range streams {
		st.end()
	}
	c.wg.Wait()
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), c.srv.ctx.Err() != nil:
		c.log.Debug("adbd: host disconnected", "err", err)
	default:
		c.log.Warn("adbd: connection ended", "err", err)
	}
}

func (c *conn) readLoop() error {
	for {
		p, err := readPacket(c.nc, c.srv.opts.MaxPayload)
		if err != nil {
			return err
		}
		if err := c.handle(p); err != nil {
			return err
		}
	}
}

// send writes one message.
func (c *conn) send(cmd, arg0, arg1 uint32, data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = appendPacket(c.wbuf[:0], packet{Command: cmd, Arg0: arg0, Arg1: arg1, Data: data})
	_, err := c.nc.Write(c.wbuf)
	if err != nil {
		// A failed write leaves the stream unaligned: end the connection.
		c.nc.Close()
		return fmt.Errorf("adbd: writing %s: %w", commandName(cmd), err)
	}
	return nil
}

func (c *conn) handle(p packet) error {
	c.mu.Lock()
	online := c.maxPayload != 0
	c.mu.Unlock()
	if p.Command == cmdCNXN {
		return c.handleCNXN(p)
	}
	if !online {
		// Anything before the host's CNXN is ignored (spec §2.7).
		return nil
	}
	switch p.Command {
	case cmdOPEN:
		c.handleOPEN(p)
	case cmdOKAY:
		if st := c.stream(p.Arg1); st != nil && st.remote == p.Arg0 {
			st.okay()
		}
	case cmdWRTE:
		st := c.stream(p.Arg1)
		if st == nil || st.remote != p.Arg0 {
			c.log.Debug("adbd: WRTE for an unknown stream", "local", p.Arg1, "remote", p.Arg0)
			return nil
		}
		st.received(p.Data)
	case cmdCLSE:
		if st := c.stream(p.Arg1); st != nil && st.remote == p.Arg0 {
			c.remove(st)
			st.end()
		}
	default:
		// AUTH (never asked for), SYNC, STLS and unknown commands are
		// ignored, as adb does with commands it does not know.
		c.log.Debug("adbd: ignoring message", "command", commandName(p.Command))
	}
	return nil
}

// handleCNXN answers the host's CNXN with ours, without authentication
// (spec §2.4). A repeated CNXN restarts the session: streams are dropped.
func (c *conn) handleCNXN(p packet) error {
	if p.Arg1 == 0 {
		return fmt.Errorf("adbd: CNXN announces a max payload of 0")
	}
	c.mu.Lock()
	old := c.streams
	c.streams = map[uint32]*stream{}
	c.maxPayload = min(p.Arg1, c.srv.opts.MaxPayload)
	c.mu.Unlock()
	for _, st := range old { // outside c.mu: see run
		st.end()
	}
	id := banner(c.srv.dev.Properties(), c.srv.features())
	c.log.Debug("adbd: CNXN", "version", fmt.Sprintf("%#08x", p.Arg0), "max_payload", p.Arg1,
		"host_banner", string(bytes.TrimRight(p.Data, "\x00")), "banner", id)
	return c.send(cmdCNXN, versionSkipChecksum, c.srv.opts.MaxPayload, []byte(id))
}

func (c *conn) stream(local uint32) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[local]
}

func (c *conn) remove(st *stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streams[st.local] == st {
		delete(c.streams, st.local)
	}
}

// handleOPEN starts the named service, or refuses it with CLSE(0, remote).
func (c *conn) handleOPEN(p packet) {
	remote := p.Arg0
	name := string(bytes.TrimRight(p.Data, "\x00"))
	if remote == 0 {
		c.log.Warn("adbd: OPEN with local-id 0", "service", name)
		return
	}
	run, ok := c.service(name)
	if !ok {
		c.log.Debug("adbd: refusing service", "service", name)
		_ = c.send(cmdCLSE, 0, remote, nil)
		return
	}
	c.mu.Lock()
	c.nextID++
	if c.nextID == 0 {
		c.nextID = 1
	}
	for c.streams[c.nextID] != nil {
		c.nextID++
	}
	ctx, cancel := context.WithCancel(c.ctx)
	st := &stream{
		c: c, local: c.nextID, remote: remote, service: name,
		maxPayload: c.maxPayload,
		ctx:        ctx, cancel: cancel,
		ready:   make(chan struct{}, 1),
		inbound: make(chan []byte, 1),
	}
	c.streams[st.local] = st
	c.wg.Add(1)
	c.mu.Unlock()
	c.log.Debug("adbd: OPEN", "service", name, "local", st.local, "remote", remote)
	go func() {
		defer c.wg.Done()
		run(st)
	}()
}

// service maps a service name to its implementation.
func (c *conn) service(name string) (func(*stream), bool) {
	switch {
	case name == "track-jdwp":
		return c.trackJDWP, true
	case name == "track-app":
		return c.trackAppService()
	case name == "jdwp":
		return c.listJDWP, true
	case strings.HasPrefix(name, "jdwp:"):
		pid, ok := parsePID(strings.TrimPrefix(name, "jdwp:"))
		if !ok {
			return nil, false
		}
		return func(st *stream) { c.jdwp(st, pid) }, true
	case strings.HasPrefix(name, "shell:"):
		cmd := strings.TrimPrefix(name, "shell:")
		if strings.TrimSpace(cmd) == "" {
			return nil, false // interactive shells are not simulated
		}
		if run, ok := c.logcatService(cmd); ok {
			return run, true
		}
		return func(st *stream) { c.shell(st, cmd) }, true
	case strings.HasPrefix(name, "exec:"):
		cmd := strings.TrimPrefix(name, "exec:")
		if run, ok := c.logcatService(cmd); ok {
			return run, true
		}
		return c.execService(cmd)
	case name == "sync:":
		return c.syncServiceFor()
	}
	return nil, false
}

// parsePID accepts a positive decimal pid without sign or leading zero.
func parsePID(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 1<<31-1 || s[0] == '+' || s[0] == '0' {
		return 0, false
	}
	return n, true
}

// accept sends the OKAY that tells the host the stream is open.
func (st *stream) accept() error { return st.c.send(cmdOKAY, st.local, st.remote, nil) }

// trackJDWP sends the hex4-framed pid list now and on every change.
func (c *conn) trackJDWP(st *stream) {
	defer st.close()
	if st.accept() != nil {
		return
	}
	st.discardInbound()
	var last []byte
	for {
		pids, changed := c.srv.dev.JDWPPids()
		msg := pidListMessage(pids, c.srv.opts.JDWPListMax)
		if !bytes.Equal(msg, last) {
			if err := st.write(msg); err != nil {
				return
			}
			last = msg
		}
		select {
		case <-changed:
		case <-st.ctx.Done():
			return
		}
	}
}

// listJDWP is the jdwp service: the pid lines once, without a length
// prefix, and close once the host took them (daemon/jdwp_service.cpp).
func (c *conn) listJDWP(st *stream) {
	defer st.close()
	if st.accept() != nil {
		return
	}
	st.discardInbound()
	pids, _ := c.srv.dev.JDWPPids()
	if body := pidLines(pids, int(st.maxPayload)); len(body) > 0 {
		_ = st.write(body)
	}
}

// jdwp pipes bytes between the host and the VM with the given pid.
func (c *conn) jdwp(st *stream, pid int) {
	vm, err := c.srv.dev.OpenJDWP(pid)
	if err != nil {
		c.log.Debug("adbd: refusing jdwp stream", "pid", pid, "err", err)
		c.remove(st)
		st.cancel()
		_ = c.send(cmdCLSE, 0, st.remote, nil)
		return
	}
	if st.accept() != nil {
		vm.Close()
		st.close()
		return
	}
	// Ending the stream closes the VM connection, which unblocks both
	// loops below whatever they are waiting for.
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		<-st.ctx.Done()
		vm.Close()
	}()
	// host → VM: each WRTE is written to the VM, then acknowledged.
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			select {
			case data := <-st.inbound:
				if _, err := vm.Write(data); err != nil {
					st.close()
					return
				}
				if st.c.send(cmdOKAY, st.local, st.remote, nil) != nil {
					return
				}
			case <-st.ctx.Done():
				return
			}
		}
	}()
	// VM → host, at most one payload per WRTE, one WRTE in flight.
	defer st.close()
	buf := make([]byte, st.maxPayload)
	for {
		n, err := vm.Read(buf)
		if n > 0 {
			if st.write(buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// shell runs a command and streams its output; the stream closes when the
// command ends (the legacy shell carries no exit status).
func (c *conn) shell(st *stream, cmd string) {
	defer st.close()
	if st.accept() != nil {
		return
	}
	st.discardInbound()
	code, err := c.srv.dev.Shell(st.ctx, cmd, streamWriter{st})
	if err != nil {
		c.log.Debug("adbd: shell command failed", "cmd", cmd, "err", err)
	} else {
		c.log.Debug("adbd: shell command done", "cmd", cmd, "exit", code)
	}
}

// stream is one open service on a connection. local is our id, remote the
// host's.
type stream struct {
	c          *conn
	local      uint32
	remote     uint32
	service    string
	maxPayload uint32

	ctx    context.Context
	cancel context.CancelFunc

	ready   chan struct{} // an OKAY for our last WRTE arrived
	inbound chan []byte   // a WRTE's data, not yet acknowledged

	closeOnce sync.Once
}

// okay records the host's acknowledgement of our last WRTE.
func (st *stream) okay() {
	select {
	case st.ready <- struct{}{}:
	default:
	}
}

// received hands a WRTE's data to the stream. The host may not send
// another WRTE before our OKAY (spec §2.2): one that arrives anyway ends the
// stream.
func (st *stream) received(data []byte) {
	select {
	case st.inbound <- data:
	default:
		st.c.log.Warn("adbd: WRTE before OKAY; closing stream", "service", st.service)
		st.close()
	}
}

// discardInbound starts a goroutine that acknowledges and drops whatever
// the host writes to a service that takes no input.
func (st *stream) discardInbound() {
	st.c.wg.Add(1)
	go func() {
		defer st.c.wg.Done()
		for {
			select {
			case <-st.inbound:
				if st.c.send(cmdOKAY, st.local, st.remote, nil) != nil {
					return
				}
			case <-st.ctx.Done():
				return
			}
		}
	}()
}

// write sends data as WRTEs of at most maxPayload bytes, waiting for the
// host's OKAY after each.
func (st *stream) write(data []byte) error {
	for len(data) > 0 {
		if st.ctx.Err() != nil {
			return fmt.Errorf("adbd: %s: stream closed", st.service)
		}
		n := min(len(data), int(st.maxPayload))
		if err := st.c.send(cmdWRTE, st.local, st.remote, data[:n]); err != nil {
			return err
		}
		select {
		case <-st.ready:
		case <-st.ctx.Done():
			return fmt.Errorf("adbd: %s: stream closed", st.service)
		}
		data = data[n:]
	}
	return nil
}

// end stops the stream's goroutines without telling the host (it closed
// the stream, or the connection is gone).
func (st *stream) end() {
	st.closeOnce.Do(st.cancel)
}

// close ends the stream from our side: CLSE to the host, unless the host
// closed it first.
func (st *stream) close() {
	st.closeOnce.Do(func() {
		st.cancel()
		st.c.remove(st)
		if st.c.ctx.Err() == nil {
			_ = st.c.send(cmdCLSE, st.local, st.remote, nil)
		}
	})
}

// streamWriter lets a shell command write to the stream.
type streamWriter struct{ st *stream }

func (w streamWriter) Write(b []byte) (int, error) {
	if err := w.st.write(b); err != nil {
		return 0, err
	}
	return len(b), nil
}
