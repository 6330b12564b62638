package monitor

import (
	"context"
	"sync"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// Link is a VM's JDWP connection as users outside the monitor see it (the
// debugger proxy, and commands that need to know whether a VM speaks DDM):
// whether it speaks DDM and works, the raw connection, the packets that are
// not the monitor's, and closing the connection so that discovery opens a
// new one. A Session has one (Session.Link).
type Link struct {
	conn *vmConn

	mu       sync.Mutex // guards the passthrough and early
	passthru func(*jdwp.Packet)
	// early keeps the VM's first non-DDM commands (a VM_START event sent
	// right after the handshake) until a passthrough is first set.
	early      []*jdwp.Packet
	earlyBytes int
	earlyDone  bool
}

// IsDDM reports whether the VM answered HELO. It blocks until that is known
// or ctx ends.
func (l *Link) IsDDM(ctx context.Context) (bool, error) {
	if err := l.conn.waitReady(ctx); err != nil {
		return false, err
	}
	return l.conn.isDDM, nil
}

// Family returns the VM's family as its HELO reply told it, once known
// (FamilyUnknown for VMs that do not speak DDM).
func (l *Link) Family(ctx context.Context) (ddm.VMFamily, error) {
	if err := l.conn.waitReady(ctx); err != nil {
		return ddm.FamilyUnknown, err
	}
	return l.conn.family, nil
}

// Working reports, without waiting, whether the VM is known to work: it
// answered HELO, or refused DDM and is polled with plain JDWP. It is false
// while HELO is undecided and for an endpoint that failed (the proxy gives
// such an endpoint no debugger port).
func (l *Link) Working() bool {
	select {
	case <-l.conn.ready:
	default:
		return false
	}
	return l.conn.isDDM || l.conn.refused
}

// Conn returns the VM's JDWP connection once HELO has been decided, for a
// proxy that forwards a debugger's packets (jdwp.Conn.WritePacket) on it.
func (l *Link) Conn(ctx context.Context) (*jdwp.Conn, error) {
	if err := l.conn.waitReady(ctx); err != nil {
		return nil, err
	}
	return l.conn.jc, nil
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
func (l *Link) SetPassthrough(fn func(*jdwp.Packet)) []*jdwp.Packet {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.passthru = fn
	if l.earlyDone {
		return nil
	}
	l.earlyDone = true
	early := l.early
	l.early, l.earlyBytes = nil, 0
	return early
}

// Reopen ends the session's connection; discovery opens a new one (local
// scan at its next probe, adb at once while the pid is listed). This is what
// ddmlib does when a debugger leaves: only a closed JDWP connection tells a
// VM that the debugger is gone (spec/jdwp.md §4).
func (l *Link) Reopen() {
	select {
	case <-l.conn.ready:
		if l.conn.jc != nil {
			l.conn.jc.Close()
		}
	default:
	}
}

// pass hands a packet that is not the monitor's to the passthrough, or
// keeps it until one is first set (at most 64 KiB of commands; replies are
// for a debugger that is gone), or drops it.
func (l *Link) pass(p *jdwp.Packet) {
	l.mu.Lock()
	fn := l.passthru
	if fn == nil && !l.earlyDone && !p.IsReply() && l.earlyBytes+p.Len() <= maxEarlyBytes {
		l.early = append(l.early, p)
		l.earlyBytes += p.Len()
	}
	l.mu.Unlock()
	if fn != nil {
		fn(p)
	}
}
