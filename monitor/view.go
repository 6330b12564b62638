package monitor

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
)

// Found is one endpoint in the engine's view: a VM being monitored, or an
// endpoint that is not a working VM, with Failed saying why (not JDWP, a
// protocol error such as a bad packet length, HELO unanswered).
type Found struct {
	VM     VM     // the model; only Key, Source and PID for an endpoint that failed before HELO
	Failed string // "" for a working VM
	// Busy: the endpoint closed the connection before the handshake, as a
	// VM does while another monitor or debugger holds its one JDWP
	// connection (scan.ErrBusy); Failed then says so.
	Busy bool
}

// BusyReason is a busy endpoint's Failed text.
const BusyReason = "busy: another monitor or debugger holds it"

// maxFailures bounds the failed endpoints an engine remembers.
const maxFailures = 256

type failure struct {
	found Found
	at    time.Time
}

// View returns every endpoint whose session runs and every endpoint that
// failed (and has no working session since), ordered by source then pid. A
// VM whose HELO was answered is in the view for as long as its session runs.
// A busy endpoint of the pid of a working VM is that VM reached another way
// (a simulator's VMs on local ports and through adbd: one JDWP connection
// each, which the working session holds) and is left out.
func (e *Engine) View() []Found {
	e.mu.Lock()
	out := make([]Found, 0, len(e.sessions)+len(e.failed))
	have := make(map[string]bool, len(e.sessions))
	working := map[int]bool{}
	for key, s := range e.sessions {
		f, ok := s.found()
		if !ok {
			continue // ending: its failure, if any, is recorded when Run returns
		}
		if old, had := e.failed[key]; had && f.Failed != "" {
			f.Failed = old.found.Failed // a retry that has not got far yet: the known reason is the useful one
		}
		out = append(out, f)
		have[key] = true
		if f.Failed == "" && f.VM.PID > 0 {
			working[f.VM.PID] = true
		}
	}
	for key, f := range e.failed {
		if !have[key] && !(f.found.Busy && working[f.found.VM.PID]) {
			out = append(out, f.found)
		}
	}
	e.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].VM, out[j].VM
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.PID != b.PID {
			return a.PID < b.PID
		}
		return a.Key < b.Key
	})
	return out
}

// found is the session's entry in the engine's view; false while it ends.
func (s *Session) found() (Found, bool) {
	vm, inStore := s.store.VM(s.key)
	select {
	case <-s.conn.ready:
		switch {
		case !inStore:
			return Found{}, false // Run removed the VM and is returning
		case s.silent:
			return Found{VM: vm, Failed: "no reply to HELO"}, true
		case s.conn.isDDM || s.conn.refused || s.noJDWP:
			return Found{VM: vm}, true
		}
		return Found{}, false
	default:
	}
	switch {
	case !inStore:
		return Found{VM: s.endpointVM(), Failed: "JDWP handshake not answered yet"}, true
	case vm.DDM:
		return Found{VM: vm}, true // HELO answered; FEAT is on its way
	}
	return Found{VM: vm, Failed: "no reply to HELO yet"}, true
}

func (s *Session) endpointVM() VM {
	return VM{Key: s.key, Source: s.source, PID: s.pid, Debugger: DebuggerNone, Debuggable: !s.noJDWP}
}

// endFailure says why a session that Run has just returned from was not a
// working VM, or "" when it was one (or discovery ended it). It reads what
// Run wrote, so it is called on Run's goroutine after Run returns.
func (s *Session) endFailure(ctx context.Context, runErr error) string {
	if ctx.Err() != nil {
		return ""
	}
	if runErr != nil {
		return strings.TrimPrefix(runErr.Error(), s.key+": ")
	}
	if s.conn.jc == nil { // a process without JDWP
		return ""
	}
	jerr := s.conn.jc.Err()
	switch {
	case errors.Is(jerr, jdwp.ErrPacketTooLarge), errors.Is(jerr, jdwp.ErrBadLength):
		return jerr.Error()
	case s.silent:
		return "no reply to HELO"
	case s.conn.isDDM || s.conn.refused:
		if jerr == nil || errors.Is(jerr, jdwp.ErrClosed) || wentAway(jerr) {
			return "" // a VM that went away, or a re-open
		}
		return jerr.Error()
	case jerr == nil || errors.Is(jerr, jdwp.ErrClosed):
		return "connection closed before HELO was answered"
	}
	return "before HELO was answered: " + jerr.Error()
}

// wentAway reports a connection that ended the way a VM's does when its
// process exits.
func wentAway(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// recordEnd keeps (or, for a working VM, forgets) the failure of a session
// that ended; e.mu is held.
func (e *Engine) recordEndLocked(ep scan.Endpoint, s *Session, why string, busy bool) {
	if why == "" {
		delete(e.failed, ep.Key)
		return
	}
	if _, had := e.failed[ep.Key]; !had && len(e.failed) >= maxFailures {
		oldest := ""
		for k, f := range e.failed {
			if oldest == "" || f.at.Before(e.failed[oldest].at) {
				oldest = k
			}
		}
		delete(e.failed, oldest)
	}
	if busy {
		why = BusyReason
	}
	e.failed[ep.Key] = failure{found: Found{VM: s.endpointVM(), Failed: why, Busy: busy}, at: time.Now()}
}

// Collect runs discovery for wait (or until ctx ends) and returns the view
// at that moment, taken while every session still runs, so that every VM
// whose HELO was answered by then is in it. Only then does discovery stop;
// Collect waits for the sessions to end before it returns.
func (e *Engine) Collect(ctx context.Context, d Discovery, wait time.Duration) ([]Found, error) {
	return e.CollectThen(ctx, d, wait, nil)
}

// CollectThen is Collect that, when the wait ends and before the sessions
// stop, calls then (if not nil) with the view and a context that ends with
// ctx, and returns the view taken after it (`snapshot --views` dumps the
// VMs' windows there).
func (e *Engine) CollectThen(ctx context.Context, d Discovery, wait time.Duration, then func(context.Context, []Found)) ([]Found, error) {
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- e.Run(runCtx, d) }()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case err := <-runErr: // discovery ended by itself (an adb server that does not answer)
		if err != nil {
			return nil, err
		}
		return e.View(), nil
	case <-t.C:
	case <-ctx.Done():
	}
	view := e.View()
	if then != nil && ctx.Err() == nil {
		then(ctx, view)
		view = e.View()
	}
	stop()
	if err := <-runErr; err != nil {
		return nil, err
	}
	return view, nil
}
