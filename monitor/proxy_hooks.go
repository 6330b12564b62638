package monitor

import (
	"context"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/record"
)

// Hooks for the debugger proxy.

// IsDDM reports whether the VM answered HELO. It blocks until that is known
// or ctx ends.
func (s *Session) IsDDM(ctx context.Context) (bool, error) {
	if err := s.conn.waitReady(ctx); err != nil {
		return false, err
	}
	return s.conn.isDDM, nil
}

// Working reports, without waiting, whether the VM is known to work: it
// answered HELO, or refused DDM and is polled with plain JDWP. It is false
// while HELO is undecided and for an endpoint that failed (the proxy gives
// such an endpoint no debugger port).
func (s *Session) Working() bool {
	select {
	case <-s.conn.ready:
	default:
		return false
	}
	s.inMu.Lock()
	defer s.inMu.Unlock()
	return s.conn.isDDM || s.refused
}

// Conn returns the VM's JDWP connection once HELO has been decided, for a
// proxy that forwards a debugger's packets (jdwp.Conn.WritePacket) on it.
func (s *Session) Conn(ctx context.Context) (*jdwp.Conn, error) {
	if err := s.conn.waitReady(ctx); err != nil {
		return nil, err
	}
	return s.conn.jc, nil
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
	case <-s.conn.ready:
		if s.conn.jc != nil {
			s.conn.jc.Close()
		}
	default:
	}
}

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
