package monitor

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/record"
)

// The apply steps of a session: what each input does to the model,
// separate from the I/O that brought it. A live session reads an input,
// records it (recorder.go) and applies it; a replay (replay.go) applies the
// recorded inputs at their recorded times.

// begin starts the VM in the store.
func (s *Session) begin(now time.Time) {
	s.rec.json(now, record.KindEndpoint, s.key, endpointRecord{Source: s.source, PID: s.pid, Device: s.dev != nil, NoJDWP: s.noJDWP})
	s.store.UpdateVM(s.key, func(vm *VM) {
		vm.Source, vm.PID, vm.Connected = s.source, s.pid, now
		// track-app's word, when it comes, replaces these; until then a
		// session without JDWP is what track-app made it for, a
		// profileable process, so that a request taken before the word
		// arrives (a heap graph rather than HPROF) is already right.
		vm.Debuggable, vm.Profileable = !s.noJDWP, vm.Profileable || s.noJDWP
	})
	s.entry.setCaps(func(*capInput) {})
}

// end removes the VM from the store; failed: it never worked as a VM.
func (s *Session) end(now time.Time, reason string, failed bool) {
	s.threads.close()
	s.heaps.close()
	s.rec.add(now, record.KindGone, s.key, []byte(reason))
	if failed {
		s.store.RemoveFailed(s.key, reason)
		return
	}
	s.store.Remove(s.key, reason)
}

// applyHello notes that the VM speaks DDM, and its family, and stores
// the identity HELO gave.
func (s *Session) applyHello(h *ddm.Hello) {
	s.conn.isDDM = true
	s.conn.family = ddm.FamilyFromVMIdent(h.VMIdent)
	s.entry.applyHello(h, strings.ToLower(s.conn.family.String()))
}

// applyChunk applies a recorded chunk: replies to the session's own
// requests (HELO, FEAT, THST) through the code the live session runs on
// them, everything else as an unsolicited chunk.
func (s *Session) applyChunk(c ddm.Chunk, now time.Time) {
	switch c.Type {
	case ddm.TypeTHST:
		if err := s.threads.applyTHSTChunk(c, now); err != nil {
			s.badInput(err)
		}
	case ddm.TypeHELO, ddm.TypeFEAT:
		m, err := ddm.DecodeFromVM(c)
		if err != nil {
			s.badInput(err)
			return
		}
		switch m := m.(type) {
		case *ddm.Hello:
			s.applyHello(m)
		case *ddm.Features:
			s.entry.applyFeatures(m)
		}
	default:
		s.unsolicited(c, now)
	}
}

// applyRecord applies one recorded input (not KindEndpoint, which creates
// the session, nor KindGone, which ends it).
func (s *Session) applyRecord(r record.Record, now time.Time) error {
	switch r.Kind {
	case record.KindChunk:
		if len(r.Data) < 4 {
			return fmt.Errorf("chunk record of %d bytes", len(r.Data))
		}
		t := ddm.Type(uint32(r.Data[0])<<24 | uint32(r.Data[1])<<16 | uint32(r.Data[2])<<8 | uint32(r.Data[3]))
		s.applyChunk(ddm.Chunk{Type: t, Data: r.Data[4:]}, now)
	case record.KindProcStat:
		s.src.applyProcStat(r.Data, now)
	case record.KindMeminfo:
		s.src.applyMeminfo(r.Data, now)
	case record.KindThreads:
		var rows []jdwpThread
		if err := json.Unmarshal(r.Data, &rows); err != nil {
			return fmt.Errorf("threads record: %w", err)
		}
		s.threads.applyJDWP(rows, now)
	case record.KindViews:
		return s.views.applyViewsRecord(r.Data, now)
	case record.KindState:
		var st stateRecord
		if err := json.Unmarshal(r.Data, &st); err != nil {
			return fmt.Errorf("state record: %w", err)
		}
		s.applyState(st, now)
	}
	return nil // other kinds (log) are not part of a VM's model
}

func (s *Session) applyState(st stateRecord, now time.Time) {
	if st.FlushThreads {
		s.threads.flush(now)
	}
	if st.JDWP != nil {
		s.entry.applyJDWPIdent(*st.JDWP)
	}
	if st.Err != nil {
		s.entry.applyErr(*st.Err)
	}
	if st.Debugger != nil || st.DebugPort != nil {
		state, port := DebuggerState(""), -1
		if st.Debugger != nil {
			state = DebuggerState(*st.Debugger)
		}
		if st.DebugPort != nil {
			port = *st.DebugPort
		}
		s.entry.applyDebugger(state, port)
	}
	if st.API != nil {
		s.entry.applyAPI(*st.API)
	}
	if st.Model != nil {
		s.entry.applyModel(*st.Model)
	}
	if st.Process != nil {
		s.entry.applyProcess(st.Process)
	}
	if st.ProcName != nil {
		s.entry.applyProcName(*st.ProcName)
	}
	if st.Caps != nil {
		in := st.Caps.input()
		s.entry.setCaps(func(c *capInput) { *c = in })
	}
}
