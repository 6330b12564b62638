package monitor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
)

// VMs that refuse DDM: threads polled with standard JDWP commands.

// runJDWP polls a VM that refused DDM with standard commands.
func (s *Session) runJDWP(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	v, err := s.jc.Version(rctx)
	cancel()
	if err != nil {
		s.badInput(fmt.Errorf("VirtualMachine.Version: %w", err))
	}
	rctx, cancel = context.WithTimeout(ctx, s.opts.RequestTimeout)
	sz, err := s.jc.IDSizes(rctx)
	cancel()
	family := "jvm"
	if strings.Contains(v.Description, "Android") || strings.HasPrefix(v.VMName, "Dalvik") {
		family = "android"
	}
	s.store.UpdateVM(s.key, func(vm *VM) {
		vm.DDM = false
		vm.Family = family
		vm.VMIdent = strings.TrimSpace(v.VMName + " " + v.VMVersion)
		if err != nil {
			vm.Err = "VirtualMachine.IDSizes: " + err.Error()
		}
	})
	if err != nil {
		<-s.jc.Done()
		return
	}
	names := map[uint64]string{}
	t := time.NewTimer(0)
	defer t.Stop()
	for polls := 0; ; polls++ {
		select {
		case <-ctx.Done():
			return
		case <-s.jc.Done():
			return
		case <-t.C:
		}
		if polls%10 == 0 {
			clear(names) // threads may be renamed
		}
		s.pollJDWPThreads(ctx, sz, names)
		t.Reset(s.opts.JDWPThreadInterval)
	}
}

func (s *Session) pollJDWPThreads(ctx context.Context, sz jdwp.IDSizes, names map[uint64]string) {
	rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	ids, err := s.jc.AllThreads(rctx, sz)
	if err != nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	old := s.threads
	s.mu.Unlock()
	fresh := make(map[uint64]*Thread, len(ids))
	for _, id := range ids {
		name, ok := names[id]
		if !ok {
			n, err := s.jc.ThreadName(rctx, sz, id)
			if err != nil {
				continue // died in between (INVALID_THREAD)
			}
			name, names[id] = n, n
		}
		st, err := s.jc.ThreadStatus(rctx, sz, id)
		if err != nil {
			continue
		}
		th := &Thread{ID: id, Name: name, Status: int(st.Status), State: jdwp.ThreadStatusName(st.Status), Created: now, Changed: now, Source: SourceJDWP}
		if st.SuspendStatus&1 != 0 {
			th.State = "suspended" // by a debugger: not running, whatever its status says
		}
		if prev, ok := old[id]; ok {
			th.Created = prev.Created
			if prev.State == th.State {
				th.Changed = prev.Changed
			}
		}
		fresh[id] = th
	}
	s.mu.Lock()
	s.threads = fresh
	table := s.threadTableLocked()
	s.mu.Unlock()
	s.store.SetThreads(s.key, table)
}
