package monitor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// Streamed heap dumps to disk. An HPDS dump (Android up to 9) arrives as
// one unsolicited DDM packet holding one chunk: the whole HPROF file, often
// hundreds of MiB. While HeapDumpTo waits for it, the connection's reader
// hands the body of that packet, once its 8-byte chunk header shows an HPDS
// chunk filling the packet, to the waiting writer in pieces of 64 KiB as
// they arrive (jdwp.Divert): the session never holds the dump, and no
// memory budget is drawn. The packet length limit still applies
// (StreamPacketLen while a dump is awaited). A dump that comes otherwise
// (a packet of 1 MiB or less, or several chunks in one packet) takes the
// ordinary path and is written once read.

// transfers collects a VM's streamed transfers: the unsolicited data chunk
// (HPDS, MPSE) a request makes the VM send, diverted to its writer as it
// arrives or delivered whole, with the connection's packet limit raised
// meanwhile.
type transfers struct {
	conn                    *vmConn
	maxPacket, streamPacket int // SessionOptions.MaxPacketLen, StreamPacketLen
	log                     *slog.Logger

	mu      sync.Mutex
	waiting map[ddm.Type]chan []byte // collect's waiters, by the chunk type awaited
	sinkMu  sync.Mutex               // guards sinks only: the connection's reader takes it, never mu
	sinks   map[ddm.Type]*streamSink // collect's writers, by chunk type
	largeMu sync.Mutex
	large   int // streamed transfers in progress
}

// streamSink is a collect waiting for a chunk of one type: the
// writer the chunk's data goes to.
type streamSink struct {
	mu      sync.Mutex
	w       io.Writer // nil once the collector left
	n       int64     // bytes written
	claimed bool      // a packet is being diverted to it (under transfers.sinkMu)
	done    chan error
}

var errCollectorLeft = errors.New("the heap dump's reader gave up")

func (k *streamSink) Write(b []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.w == nil {
		return 0, errCollectorLeft
	}
	n, err := k.w.Write(b)
	k.n += int64(n)
	return n, err
}

func (k *streamSink) written() int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.n
}

// end is the diverted body's outcome.
func (k *streamSink) end(err error) {
	select {
	case k.done <- err:
	default:
	}
}

// leave detaches the writer: once it returns, nothing more is written to
// it (a write in progress is finished first).
func (k *streamSink) leave() {
	k.mu.Lock()
	k.w = nil
	k.mu.Unlock()
}

// divert is the session connection's jdwp.Divert: it takes a DDM packet
// that is one chunk of a type a collect awaits, and drops unread one that
// nothing would use.
func (s *transfers) divert(p *jdwp.Packet, n int, head []byte) (io.Writer, func(error)) {
	if p.IsReply() || p.CommandSet != jdwp.CmdSetDDM || p.Command != jdwp.CmdDDMChunk || len(head) < 8 {
		return nil, nil
	}
	t := ddm.Type(binary.BigEndian.Uint32(head))
	if int64(binary.BigEndian.Uint32(head[4:])) != int64(n-8) {
		return nil, nil // not one chunk filling the packet
	}
	// A dump or trace nobody asked for would be read whole only to be
	// dropped (deliver), and a chunk of a type no decoder knows only to be
	// ignored (unsolicited): either is dropped as it arrives, holding no
	// memory and drawing no budget (a VM sending them unasked, back to
	// back, left each one garbage to collect: RELIABILITY.md).
	unused := !ddm.KnownFromVM(t) || (t == ddm.TypeHPDS || t == ddm.TypeMPSE) && !s.awaited(t)
	s.sinkMu.Lock()
	defer s.sinkMu.Unlock()
	k := s.sinks[t]
	if k == nil && unused {
		s.log.Info("large chunk nobody asked for; dropped unread", "type", t.String(), "bytes", n-8)
		return io.Discard, func(error) {}
	}
	if k == nil || k.claimed {
		return nil, nil
	}
	k.claimed = true
	return k, k.end
}

// awaited reports whether a collect waits for a chunk of type t.
func (s *transfers) awaited(t ddm.Type) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting[t] != nil
}

// heldBytes keeps what is written to it: the in-memory HeapDump and
// StopProfiling. Write copies (writers such as a sync pull reuse their
// buffer); a chunk's payload read whole is taken without a copy (take).
type heldBytes struct{ b []byte }

func (h *heldBytes) Write(b []byte) (int, error) {
	h.b = append(h.b, b...)
	return len(b), nil
}

// take keeps data, which nobody else holds, as the whole content when
// nothing was written yet, without copying it.
func (h *heldBytes) take(data []byte) {
	if len(h.b) == 0 {
		h.b = data
		return
	}
	h.b = append(h.b, data...)
}

// Rewind drops what was written (a device file pulled again).
func (h *heldBytes) Rewind() error {
	h.b = nil
	return nil
}

// collect sends req and writes to w the payload of the
// unsolicited chunk of type t that the VM sends before its reply (MPSE
// after MPSE/SPSE, HPDS after HPDS: spec/ddm-chunks.md §7.6, §8): as it
// arrives when the chunk comes as one large packet (divert), else
// once read. With a *heldBytes (HeapDump, StopProfiling) nothing is
// diverted: the packet is read whole. The reply itself is empty, absent
// (modern ART) or a FAIL, whose reason is returned. progress, when set, is
// told the bytes received so far while the (single, possibly huge) packet
// arrives. It returns the bytes written.
func (s *transfers) collect(ctx context.Context, t ddm.Type, req ddm.Message, what string, w io.Writer, progress func(uint64)) (int64, error) {
	ch := make(chan []byte, 1)
	var sink *streamSink
	if _, held := w.(*heldBytes); !held {
		sink = &streamSink{w: w, done: make(chan error, 1)}
	}
	s.mu.Lock()
	if s.waiting[t] != nil {
		s.mu.Unlock()
		return 0, fmt.Errorf("a %s is already being collected from this VM", what)
	}
	if s.waiting == nil {
		s.waiting = map[ddm.Type]chan []byte{}
	}
	s.waiting[t] = ch
	s.mu.Unlock()
	if sink != nil {
		s.sinkMu.Lock()
		if s.sinks == nil {
			s.sinks = map[ddm.Type]*streamSink{}
		}
		s.sinks[t] = sink
		s.sinkMu.Unlock()
	}
	defer func() {
		s.mu.Lock()
		delete(s.waiting, t)
		s.mu.Unlock()
		s.sinkMu.Lock()
		delete(s.sinks, t)
		s.sinkMu.Unlock()
		if sink != nil {
			sink.leave() // the caller may close w once this returns
		}
	}()
	var sinkDone chan error
	if sink != nil {
		sinkDone = sink.done
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer s.expectLarge()()
	start := s.conn.jc.Stats().RawBytesIn.Load()
	failed := make(chan error, 1)
	go func() {
		if _, err := s.conn.request(ctx, req); err != nil && !isSoftTimeout(ctx, err) && ctx.Err() == nil {
			failed <- err
		}
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case data := <-ch:
			var n int
			var err error
			if h, held := w.(*heldBytes); held {
				h.take(data) // the packet's payload, read whole for this waiter
				n = len(data)
			} else {
				n, err = w.Write(data)
			}
			if progress != nil {
				progress(uint64(n))
			}
			return int64(n), err
		case err := <-sinkDone:
			n := sink.written()
			if progress != nil {
				progress(uint64(n))
			}
			if err != nil {
				return n, fmt.Errorf("%s: %w", what, err)
			}
			return n, nil
		case err := <-failed:
			return sinkWritten(sink), err
		case <-s.conn.jc.Done():
			select {
			case err := <-sinkDone: // the whole dump came before the end
				if err == nil {
					return sink.written(), nil
				}
			default:
			}
			return sinkWritten(sink), fmt.Errorf("VM connection ended: %w", s.conn.jc.Err())
		case <-ctx.Done():
			return sinkWritten(sink), ctx.Err()
		case <-tick.C:
			if progress != nil {
				progress(s.conn.jc.Stats().RawBytesIn.Load() - start)
			}
		}
	}
}

func sinkWritten(k *streamSink) int64 {
	if k == nil {
		return 0
	}
	return k.written()
}

// deliver hands an unsolicited data chunk to the collect waiting for it;
// with nobody waiting it is dropped.
func (s *transfers) deliver(t ddm.Type, data []byte) {
	s.mu.Lock()
	ch := s.waiting[t]
	s.mu.Unlock()
	if ch == nil {
		s.log.Info("data chunk arrived with nobody waiting; dropped", "type", t.String(), "bytes", len(data))
		return
	}
	select {
	case ch <- data:
	default:
	}
}

// expectLarge raises the connection's packet limit to StreamPacketLen for
// a streamed transfer (HPDS, MPSE); the returned function lowers it again
// when the last such transfer ends.
func (s *transfers) expectLarge() func() {
	s.largeMu.Lock()
	s.large++
	s.conn.jc.SetMaxPacketLen(s.streamPacket)
	s.largeMu.Unlock()
	return func() {
		s.largeMu.Lock()
		s.large--
		if s.large == 0 {
			s.conn.jc.SetMaxPacketLen(s.maxPacket)
		}
		s.largeMu.Unlock()
	}
}
