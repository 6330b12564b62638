package monitor

import (
	"errors"
	"net"
	"sync/atomic"
	"syscall"

	"github.com/ddmtui/ddmtui/internal/budget"
)

// EngineStats counts the engine's work since it started (for metrics).
type EngineStats struct {
	Sessions     uint64 // sessions started
	Reopens      uint64 // sessions started for a VM key seen before: re-opens after a debugger left, reconnects
	DecodeErrors uint64 // malformed chunks dropped (the session went on)
	BytesRead    uint64 // bytes read from VM connections
	// Memory is the process-wide memory budget (internal/budget): what
	// peers and files make ddmtui hold, and what it dropped to make room.
	Memory budget.Stats
}

// engineCounters are the atomics behind EngineStats.
type engineCounters struct {
	sessions, reopens, bytesRead atomic.Uint64
	// seen holds the keys that had a session, to count re-opens; it is
	// guarded by Engine.mu and cleared when it reaches maxSeenKeys, so that
	// weeks of churn cannot grow it without bound.
	seen map[string]struct{}
}

// maxSeenKeys bounds the set of keys remembered for counting re-opens.
const maxSeenKeys = 1 << 16

// noteSessionLocked counts a session for key; e.mu is held.
func (e *Engine) noteSessionLocked(key string) {
	e.counters.sessions.Add(1)
	if e.counters.seen == nil || len(e.counters.seen) >= maxSeenKeys {
		e.counters.seen = map[string]struct{}{}
	}
	if _, again := e.counters.seen[key]; again {
		e.counters.reopens.Add(1)
	}
	e.counters.seen[key] = struct{}{}
}

// Stats returns the engine's counters.
func (e *Engine) Stats() EngineStats {
	return EngineStats{
		Sessions:     e.counters.sessions.Load(),
		Reopens:      e.counters.reopens.Load(),
		DecodeErrors: e.store.decodeErrors.Load(),
		BytesRead:    e.counters.bytesRead.Load(),
		Memory:       budget.Process.Stats(),
	}
}

// countingConn counts the bytes read from a VM connection.
type countingConn struct {
	net.Conn
	n *atomic.Uint64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(uint64(n))
	return n, err
}

// SyscallConn is the wrapped connection's socket, if it has one: the
// jdwp.Conn over it then reads the socket itself, and tells what it read
// with CountRead.
func (c countingConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.Conn.(interface {
		SyscallConn() (syscall.RawConn, error)
	}); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

// CountRead counts n bytes read from the socket past Read (jdwp.ReadCounter).
func (c countingConn) CountRead(n int) { c.n.Add(uint64(n)) }
