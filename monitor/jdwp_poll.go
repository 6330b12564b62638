package monitor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/record"
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
	id := jdwpIdent{Family: family, VMIdent: strings.TrimSpace(v.VMName + " " + v.VMVersion)}
	if err != nil {
		id.Err = "VirtualMachine.IDSizes: " + err.Error()
	}
	s.input(func(now time.Time) {
		s.rec.json(now, record.KindState, s.key, stateRecord{JDWP: &id})
		s.applyJDWPIdent(id)
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
	rows := make([]jdwpThread, 0, len(ids))
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
		rows = append(rows, jdwpThread{ID: id, Name: name, Status: int(st.Status), Suspended: st.SuspendStatus&1 != 0})
	}
	s.input(func(now time.Time) {
		s.rec.json(now, record.KindThreads, s.key, rows)
		s.applyJDWPThreads(rows, now)
	})
}

// applyJDWPIdent stores what VirtualMachine.Version said of a VM that
// refused DDM.
func (s *Session) applyJDWPIdent(id jdwpIdent) {
	s.store.UpdateVM(s.key, func(vm *VM) {
		vm.DDM = false
		vm.Family = id.Family
		vm.VMIdent = id.VMIdent
		if id.Err != "" {
			vm.Err = id.Err
		}
	})
}

// applyJDWPThreads applies a thread table polled with JDWP at now.
func (s *Session) applyJDWPThreads(rows []jdwpThread, now time.Time) {
	fresh := make([]Thread, 0, len(rows))
	for _, r := range rows {
		th := Thread{ID: r.ID, Name: r.Name, Status: r.Status, State: jdwp.ThreadStatusName(int32(r.Status)), Created: now, Changed: now, Source: SourceJDWP}
		if r.Suspended {
			th.State = "suspended" // by a debugger: not running, whatever its status says
		}
		fresh = append(fresh, th)
	}
	s.mu.Lock()
	for i := range fresh {
		th := &fresh[i]
		if prev := s.threads.get(th.ID); prev != nil {
			th.Created = prev.Created
			if prev.State == th.State {
				th.Changed = prev.Changed
			}
		}
	}
	s.threads.replace(fresh)
	seq, table := s.threadTableLocked()
	s.mu.Unlock()
	s.store.setThreads(s.key, seq, table)
}
