package monitor

import (
	"context"
	"fmt"

	"github.com/ddmtui/ddmtui/ddm"
)

// Allocation tracker requests (spec/ddm-chunks.md §7.7).

// AllocTracking asks whether the VM records allocations (REAQ).
func (s *Session) AllocTracking(ctx context.Context) (bool, error) {
	if err := s.conn.readyDDM(ctx); err != nil {
		return false, err
	}
	if err := s.entry.unserved(FeatAllocations); err != nil {
		return false, err
	}
	m, err := s.conn.request(ctx, &ddm.AllocTrackerStatusRequest{})
	if err != nil {
		return false, err
	}
	st, ok := m.(*ddm.AllocTrackerStatus)
	if !ok {
		return false, fmt.Errorf("REAQ answered with %T", m)
	}
	return st.Enabled, nil
}

// SetAllocTracking turns allocation recording on or off (REAE). VMs clear
// their records when recording is turned off. The reply is empty, and
// modern ART sends none at all: a request that times out while ctx is alive
// counts as done.
func (s *Session) SetAllocTracking(ctx context.Context, on bool) error {
	if err := s.conn.readyDDM(ctx); err != nil {
		return err
	}
	if err := s.entry.unserved(FeatAllocations); err != nil {
		return err
	}
	_, err := s.conn.request(ctx, &ddm.AllocTrackerEnableRequest{Enable: on})
	if isSoftTimeout(ctx, err) {
		return nil
	}
	return err
}

// Allocations fetches the VM's recent allocations (REAL). Entries are in
// the VM's order: ART sends the newest first, Dalvik the oldest first
// (allocs.OrderOf tells them apart by the VM's family).
func (s *Session) Allocations(ctx context.Context) (*ddm.Allocations, error) {
	if err := s.conn.readyDDM(ctx); err != nil {
		return nil, err
	}
	if err := s.entry.unserved(FeatAllocations); err != nil {
		return nil, err
	}
	m, err := s.conn.request(ctx, &ddm.AllocationsRequest{})
	if err != nil {
		return nil, err
	}
	a, ok := m.(*ddm.Allocations)
	if !ok {
		return nil, fmt.Errorf("REAL answered with %T", m)
	}
	return a, nil
}
