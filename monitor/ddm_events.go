package monitor

import (
	"errors"
	"fmt"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// What a DDM VM sends unasked: thread, identity, heap and data chunks.

// route takes every packet the VM sends unasked, on the connection's reader
// goroutine (jdwp.Options.Route, so nothing reaches Incoming): no hand-off
// to another goroutine per packet. A packet that is not DDM (a reply to a debugger's id,
// Event.Composite, another command) goes to the passthrough (the debugger
// proxy), or is kept until one is set (the first 64 KiB of commands), or is
// dropped; a DDM packet's chunks are applied as one input.
func (s *Session) route(p *jdwp.Packet) bool {
	if !p.IsDDM() {
		s.link.pass(p)
		return true
	}
	chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
	if err != nil {
		s.badInput(fmt.Errorf("unsolicited DDM packet: %w", err))
		return true
	}
	s.input(func(now time.Time) {
		for _, c := range chunks {
			s.rec.chunk(now, s.key, c)
			s.unsolicited(c, now)
		}
	})
	return true
}

// unsolicited decodes and applies a chunk the VM sent unasked.
func (s *Session) unsolicited(c ddm.Chunk, now time.Time) {
	m, err := ddm.DecodeFromVM(c)
	if errors.Is(err, ddm.ErrUnknownChunk) {
		s.log.Debug("ignoring unknown chunk", "type", c.Type.String())
		return
	}
	if err != nil {
		s.badInput(err)
		return
	}
	s.handle(m, now)
}

// badInput records a malformed chunk: it is dropped, the session goes on.
func (s *Session) badInput(err error) {
	s.log.Warn("malformed input from VM", "error", err)
	s.store.decodeErrors.Add(1)
	s.entry.setErr(err.Error())
}

// handle applies a message the VM sent unasked, received at now.
func (s *Session) handle(m ddm.Message, now time.Time) {
	switch m := m.(type) {
	case *ddm.ThreadCreated:
		s.threads.created(m, now)
	case *ddm.ThreadRenamed:
		s.threads.change(now, func(t *threadTable) {
			if th := t.get(uint64(m.ID)); th != nil {
				th.Name = threadName(m.Name)
			}
		})
	case *ddm.ThreadDied:
		s.threads.change(now, func(t *threadTable) { t.remove(uint64(m.ID)) })
	case *ddm.AppName:
		s.store.UpdateVM(s.key, func(vm *VM) {
			vm.App = m.Name
			if m.Extent >= ddm.AppNameUserID {
				vm.UserID = int(m.UserID)
			}
			if m.PackageName != "" {
				vm.Package = m.PackageName
			}
		})
	case *ddm.Wait:
		s.store.UpdateVM(s.key, func(vm *VM) {
			if vm.Debugger == DebuggerNone {
				vm.Debugger = DebuggerWaiting
			}
		})
	case *ddm.HeapInfo:
		s.heaps.info(m, now)
	case *ddm.HeapStart:
		s.heaps.start(m.HeapID, false)
	case *ddm.NativeHeapStart:
		s.heaps.start(m.HeapID, true)
	case *ddm.NativeHeapEnd:
		s.heaps.endNative(m.HeapID)
	case *ddm.HeapSegment:
		s.heaps.segment(m)
	case *ddm.HeapEnd:
		s.heaps.end(m.HeapID, now)
	case *ddm.HeapDumpData:
		s.xfer.deliver(ddm.TypeHPDS, m.HPROF)
	case *ddm.MethodTraceData:
		s.xfer.deliver(ddm.TypeMPSE, m.Trace)
	default:
		s.log.Debug("unsolicited chunk not used", "type", m.ChunkType().String())
	}
}
