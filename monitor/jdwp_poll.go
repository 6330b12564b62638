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

// jdwpPoller polls the threads of a VM that refused DDM with standard
// JDWP commands (VirtualMachine.AllThreads, ThreadReference.Name and
// Status), after asking its identity (VirtualMachine.Version).
type jdwpPoller struct {
	jc       *jdwp.Conn
	entry    *vmEntry
	book     *threadBook
	input    func(func(now time.Time)) // the session's
	badInput func(error)
	// timeout is SessionOptions.RequestTimeout, interval JDWPThreadInterval.
	timeout, interval time.Duration
}

// run polls until ctx or the connection ends.
func (s *jdwpPoller) run(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, s.timeout)
	v, err := s.jc.Version(rctx)
	cancel()
	if err != nil {
		s.badInput(fmt.Errorf("VirtualMachine.Version: %w", err))
	}
	rctx, cancel = context.WithTimeout(ctx, s.timeout)
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
		s.entry.rec.json(now, record.KindState, s.entry.key, stateRecord{JDWP: &id})
		s.entry.applyJDWPIdent(id)
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
		s.poll(ctx, sz, names)
		t.Reset(s.interval)
	}
}

func (s *jdwpPoller) poll(ctx context.Context, sz jdwp.IDSizes, names map[uint64]string) {
	rctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ids, err := s.jc.AllThreads(rctx, sz)
	if err != nil {
		return
	}
	// No more threads are asked about than the table takes (applyJDWP
	// keeps the first MaxThreads): a VM listing a million ids would
	// otherwise cost two requests each, every poll.
	ids = ids[:min(len(ids), s.book.maxThreads)]
	rows := make([]jdwpThread, 0, len(ids))
	for _, id := range ids {
		name, ok := names[id]
		if !ok {
			n, err := s.jc.ThreadName(rctx, sz, id)
			if err != nil {
				continue // died in between (INVALID_THREAD)
			}
			name = threadName(n) // a VM's name, kept to MaxThreadName
			names[id] = name
		}
		st, err := s.jc.ThreadStatus(rctx, sz, id)
		if err != nil {
			continue
		}
		rows = append(rows, jdwpThread{ID: id, Name: name, Status: int(st.Status), Suspended: st.SuspendStatus&1 != 0})
	}
	s.input(func(now time.Time) {
		s.entry.rec.json(now, record.KindThreads, s.entry.key, rows)
		s.book.applyJDWP(rows, now)
	})
}
