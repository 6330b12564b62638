package monitor

import (
	"context"
	"errors"
	"fmt"

	"github.com/ddmtui/ddmtui/ddm"
)

// Requests a view or command can make of a running session.

// GC asks the VM to collect garbage (HPGC). Heap info and segments follow
// as unsolicited chunks if enabled.
func (s *Session) GC(ctx context.Context) error {
	if err := s.conn.readyDDM(ctx); err != nil {
		return err
	}
	if err := s.entry.unserved(FeatGC); err != nil {
		return err
	}
	return s.conn.post(&ddm.GCRequest{})
}

// SegmentOptions choose the heap maps a VM sends after every GC
// (spec/ddm-chunks.md §7.3).
type SegmentOptions struct {
	Managed bool // the managed heap (HPSG, or HPSO with Objects)
	Objects bool // distinct objects (HPSO) instead of merged runs (HPSG)
	Native  bool // the native heap (NHSG; Dalvik sends data, ART only NHST/NHEN)
}

// SetSegments turns the managed heap map at every GC on or off, keeping the
// other segment options.
func (s *Session) SetSegments(ctx context.Context, on bool) error {
	o := s.heaps.options()
	o.Managed = on
	return s.SetSegmentOptions(ctx, o)
}

// SetSegmentOptions asks the VM for exactly the heap maps o names.
func (s *Session) SetSegmentOptions(ctx context.Context, o SegmentOptions) error {
	if err := s.conn.waitReady(ctx); err != nil {
		return err
	}
	s.heaps.setOptions(o)
	if !s.conn.isDDM {
		return ErrNotDDM
	}
	when := func(on bool) uint8 {
		if on {
			return ddm.SegmentWhenEveryGC
		}
		return ddm.SegmentWhenNever
	}
	what := uint8(ddm.SegmentWhatMerged)
	if o.Objects {
		what = ddm.SegmentWhatObjects
	}
	if err := s.conn.post(&ddm.SegmentRequest{Type: ddm.TypeHPSG, When: when(o.Managed), What: what}); err != nil {
		return err
	}
	return s.conn.post(&ddm.SegmentRequest{Type: ddm.TypeNHSG, When: when(o.Native), What: ddm.SegmentWhatMerged})
}

// Stack asks for one thread's stack (STKL).
func (s *Session) Stack(ctx context.Context, threadID uint64) ([]ddm.StackFrame, error) {
	if err := s.conn.waitReady(ctx); err != nil {
		return nil, err
	}
	if !s.conn.isDDM {
		return nil, errors.New("stacks of non-DDM VMs need a debugger")
	}
	if err := s.entry.unserved(FeatStack); err != nil {
		return nil, err
	}
	m, err := s.conn.request(ctx, &ddm.StackTraceRequest{ThreadID: uint32(threadID)})
	if err != nil {
		return nil, err
	}
	st, ok := m.(*ddm.StackTrace)
	if !ok {
		return nil, fmt.Errorf("STKL answered with %T", m)
	}
	return st.Frames, nil
}

// Exit asks the VM to halt (EXIT).
func (s *Session) Exit(ctx context.Context, status int32) error {
	if err := s.conn.readyDDM(ctx); err != nil {
		return err
	}
	return s.conn.post(&ddm.ExitRequest{Status: status})
}
