package monitor

import (
	"errors"
	"fmt"
	"sort"
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
		s.mu.Lock()
		fn := s.passthru
		if fn == nil && !s.earlyDone && !p.IsReply() && s.earlyBytes+p.Len() <= maxEarlyBytes {
			s.early = append(s.early, p)
			s.earlyBytes += p.Len()
		}
		s.mu.Unlock()
		if fn != nil {
			fn(p)
		}
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
	s.setErr(err.Error())
}

func (s *Session) handle(m ddm.Message, now time.Time) {
	switch m := m.(type) {
	case *ddm.ThreadCreated:
		s.mu.Lock()
		id := uint64(m.ID)
		if th := s.threads.get(id); th != nil {
			th.Name = m.Name
		} else if s.roomForThreadLocked() {
			s.threads.insert(Thread{ID: id, Name: m.Name, Status: -1, State: "unknown", Created: now, Changed: now, Source: SourceDDM})
		}
		publish := s.threadsChangedLocked(now)
		s.mu.Unlock()
		publish()
	case *ddm.ThreadRenamed:
		s.mu.Lock()
		if th := s.threads.get(uint64(m.ID)); th != nil {
			th.Name = m.Name
		}
		publish := s.threadsChangedLocked(now)
		s.mu.Unlock()
		publish()
	case *ddm.ThreadDied:
		s.mu.Lock()
		s.threads.remove(uint64(m.ID))
		publish := s.threadsChangedLocked(now)
		s.mu.Unlock()
		publish()
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
		s.mu.Lock()
		if s.src.caps.hpif != answered {
			s.mu.Unlock()
			s.setCaps(func(in *capInput) { in.hpif = answered })
			s.mu.Lock()
		}
		for _, hs := range m.Heaps {
			h, ok := s.heaps[int(hs.HeapID)]
			if !ok {
				h = &Heap{ID: int(hs.HeapID)}
				s.heaps[h.ID] = h
			}
			h.MaxBytes, h.SizeBytes = uint64(hs.MaxBytes), uint64(hs.SizeBytes)
			h.AllocatedBytes, h.Objects = uint64(hs.AllocatedBytes), uint64(hs.AllocatedObjects)
			h.Timestamp, h.Reason, h.Updated = hs.Timestamp, int(hs.Reason), now
			if hs.Reason == ddm.HeapInfoEveryGC || hs.Reason == ddm.HeapInfoNextGC {
				h.GCCount++
			}
			h.History = appendSample(h.History, HeapSample{Time: now, SizeBytes: h.SizeBytes,
				AllocatedBytes: h.AllocatedBytes, Objects: h.Objects, GCCount: h.GCCount})
		}
		// A segment set may not outgrow what the VM says its heap can be
		// (heap.Assembler.SetHeapMax): an endless set is dropped, not kept.
		var maxBytes uint64
		for _, h := range s.heaps {
			maxBytes = max(maxBytes, h.MaxBytes)
		}
		s.asm.SetHeapMax(maxBytes)
		heaps := s.heapsLocked()
		s.mu.Unlock()
		s.store.SetHeaps(s.key, heaps)
	case *ddm.HeapStart:
		s.mu.Lock()
		s.asm.Start(m.HeapID, ddm.TypeHPSG)
		s.mu.Unlock()
	case *ddm.NativeHeapStart:
		s.mu.Lock()
		s.nasm.Start(m.HeapID, ddm.TypeNHSG)
		s.mu.Unlock()
	case *ddm.NativeHeapEnd:
		s.mu.Lock()
		snap, err := s.nasm.End(m.HeapID)
		s.mu.Unlock()
		if err != nil {
			s.badInput(err)
			return
		}
		s.store.SetNativeSegments(s.key, snap)
	case *ddm.HeapSegment:
		s.mu.Lock()
		var err error
		if m.Type == ddm.TypeNHSG {
			err = s.nasm.Add(m)
		} else {
			err = s.asm.Add(m)
		}
		s.mu.Unlock()
		if err != nil {
			s.badInput(err)
		}
	case *ddm.HeapEnd:
		s.mu.Lock()
		snap, err := s.asm.End(m.HeapID)
		if err == nil {
			h, ok := s.heaps[int(m.HeapID)]
			if !ok {
				h = &Heap{ID: int(m.HeapID)}
				s.heaps[h.ID] = h
			}
			st := snap.Stats
			h.Segments = &SegmentSummary{UnitSize: st.UnitSize, TotalUnits: st.TotalUnits,
				UnitsByKind: st.UnitsByKind, UnitsBySolid: st.UnitsBySolid, Segments: st.Segments, Updated: now}
		}
		heaps := s.heapsLocked()
		s.mu.Unlock()
		if err != nil {
			s.badInput(err)
			return
		}
		s.store.SetSegments(s.key, snap)
		s.store.SetHeaps(s.key, heaps)
	case *ddm.HeapDumpData:
		s.deliver(ddm.TypeHPDS, m.HPROF)
	case *ddm.MethodTraceData:
		s.deliver(ddm.TypeMPSE, m.Trace)
	default:
		s.log.Debug("unsolicited chunk not used", "type", m.ChunkType().String())
	}
}

func (s *Session) heapsLocked() []Heap {
	out := make([]Heap, 0, len(s.heaps))
	for _, h := range s.heaps {
		c := *h
		c.History = append([]HeapSample(nil), h.History...) // the session keeps appending to its own
		if h.Segments != nil {
			seg := *h.Segments
			c.Segments = &seg
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
