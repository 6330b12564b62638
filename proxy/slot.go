package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/ddmtui/ddmtui/monitor"
)

// The debugger slot of a VM: who may attach, who waits, who yields.

// closed reports whether the debugger closed its connection before it was
// attached; it peeks, so nothing the debugger sent is consumed. Call it
// before readLoop only.
func (a *attachment) closed() bool {
	_ = a.nc.SetReadDeadline(time.Now().Add(time.Millisecond))
	_, err := a.br.Peek(1)
	_ = a.nc.SetReadDeadline(time.Time{})
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// idleYield is how long an attached debugger that sent no command keeps
// the slot from a debugger that wants it.
const idleYield = time.Second

// attachedFor is how long a has been attached (0 before the attach).
func (a *attachment) attachedFor() time.Duration {
	a.p.mu.Lock()
	defer a.p.mu.Unlock()
	if a.attached.IsZero() {
		return 0
	}
	return time.Since(a.attached)
}

// idle reports whether the debugger has sent the VM no command and was
// handed no event that suspended it: leaving, it leaves nothing to undo.
func (a *attachment) idle() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.forwarded == 0 && len(a.tr.requests) == 0 && !a.tr.suspended
}

// leaveIdle ends a debugger that sent the VM no command and was handed no
// event that suspended it (issue 30 item 4:
// a client that handshakes and closes, twice a second, used to re-open a
// DDM VM's connection each time, so the VM lost polls and a real debugger
// found no session): the VM saw nothing, so nothing is undone, its session
// is kept, and what it had sent before the attach is kept for the next
// debugger.
func (a *attachment) leaveIdle(reason string) {
	current := a.p.engine.Session(a.key) == a.session && a.jc.Err() == nil
	a.p.mu.Lock()
	if e := a.e; current && e.session == a.session && a.wasFresh {
		e.predata, e.predataBytes, e.fresh = a.pre, 0, true
		for _, pk := range a.pre {
			e.predataBytes += pk.Len()
		}
	}
	a.p.mu.Unlock()
	a.release()
	if current {
		a.session.SetDebugger(monitor.DebuggerNone, -1)
	}
	a.p.note(a.key, a.port, "debugger "+a.remote+" left without a command: "+reason, "nothing to undo; the VM's session kept")
}

// release frees the VM's debugger slot for the next debugger, which may be
// waiting for it.
func (a *attachment) release() {
	a.p.mu.Lock()
	if a.e.dbg == a {
		a.e.dbg = nil
		close(a.released)
	}
	a.p.mu.Unlock()
	a.p.notify()
}

// maxHandshakes bounds the connections a proxy holds before their JDWP
// handshake (each for at most jdwp.DefaultHandshakeTimeout).
const maxHandshakes = 32

// startHandshakeLocked records a connection entering the handshake; past
// maxHandshakes the oldest is closed (a debugger sends its handshake at
// once, so the oldest are the silent ones).
func (p *Proxy) startHandshakeLocked(nc net.Conn) {
	if p.handshaking == nil {
		p.handshaking = map[net.Conn]uint64{}
	}
	if len(p.handshaking) >= maxHandshakes {
		var oldest net.Conn
		for c, seq := range p.handshaking {
			if oldest == nil || seq < p.handshaking[oldest] {
				oldest = c
			}
		}
		oldest.Close()
		delete(p.handshaking, oldest)
	}
	p.hsSeq++
	p.handshaking[nc] = p.hsSeq
}

// attachRefusalLocked says why no debugger can have key's VM now, or "".
func (p *Proxy) attachRefusalLocked(key string) string {
	switch {
	case p.stopping:
		return "ddmtui is stopping"
	case p.entries[key] == nil:
		return "the VM is gone"
	}
	return ""
}

// settleWait is how long a debugger that finished its handshake waits for
// an attached one to turn out to be leaving (its close may not have been
// read yet) before it is refused.
const settleWait = 300 * time.Millisecond

// claim takes key's debugger slot for a. While the previous debugger's
// cleanup (and the VM's re-open) runs, a waits for it, noted in the
// inspector, for at most the cleanup's own bounds; a debugger still attached
// after settleWait gets a refused. It returns why a cannot have the slot,
// or "".
func (p *Proxy) claim(ctx context.Context, a *attachment) string {
	limit := time.NewTimer(drainWait + p.opts.CleanupTimeout + time.Second)
	defer limit.Stop()
	settle := time.NewTimer(settleWait)
	defer settle.Stop()
	tick := time.NewTicker(50 * time.Millisecond) // a waiter that closed leaves the queue
	defer tick.Stop()
	noted := false
	for {
		p.mu.Lock()
		if why := p.attachRefusalLocked(a.key); why != "" {
			p.mu.Unlock()
			return why
		}
		e := p.entries[a.key]
		prev := e.dbg
		if prev == nil {
			e.dbg, a.e = a, e
			p.mu.Unlock()
			return ""
		}
		leaving := prev.leaving
		p.mu.Unlock()
		if leaving && !noted {
			noted = true
			p.note(a.key, a.port, "debugger "+a.remote+" waits", "the previous debugger ("+prev.remote+") is being cleaned up after")
		}
		var settled <-chan time.Time
		if !leaving {
			settled = settle.C
		}
		select {
		case <-prev.released:
		case <-prev.leavingCh:
		case <-settled:
			if prev.idle() {
				// It has sent nothing yet: a client that handshakes and
				// closes is about to leave; one that holds the connection
				// silently for idleYield yields the slot (costing it
				// nothing). This one waits meanwhile.
				if since := prev.attachedFor(); since >= idleYield {
					p.note(a.key, a.port, "debugger "+a.remote+" takes over", fmt.Sprintf("the attached one (%s) sent no command in %v", prev.remote, since.Round(time.Millisecond)))
					prev.nc.Close()
				}
				settle.Reset(settleWait)
				continue
			}
			return "a debugger (" + prev.remote + ") is already attached"
		case <-tick.C:
			if a.closed() {
				return "it closed the connection while it waited"
			}
		case <-limit.C:
			return "the previous debugger's cleanup did not end in time"
		case <-ctx.Done():
			return "ddmtui is stopping"
		}
	}
}
