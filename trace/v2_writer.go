package trace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strconv"
)

// V2Options configure EncodeV2.
type V2Options struct {
	// BlockRecords is how many records one entries block holds at most
	// (ART flushes a thread's buffer as one block); default 4096.
	BlockRecords int
	// Streaming sets the streaming flag in the header and interleaves the
	// packets as a streaming trace does: a thread packet before the thread's
	// first block, a method packet before the first block that uses the
	// method. Without it every thread and method packet comes first, as in
	// a file written when tracing stops.
	Streaming bool
	// PID is written into the summary's pid= line when no such option is in
	// the header.
	PID int
	// Layout is the record layout (default V2MethodFirst).
	Layout V2Layout
	// TSCFrequency, for V2TimeFirst: wall-clock counter ticks per second
	// (e.g. 19,200,000 on many ARM devices); 0 writes nanoseconds. Ticks are
	// rounded up, so a reader's µs are the events' µs whenever a tick is
	// shorter than a µs.
	TSCFrequency uint64
}

// EncodeV2 writes t in ART's format V2 (spec §5a): version 4 for a single
// clock, 5 for dual, in the record layout opt.Layout, times as nanoseconds
// (t's µs × 1000, or counter ticks) and method pointers invented from the
// method ids. In V2TimeFirst an exit names no method: a reader closes the
// thread's innermost open entry, so t's exits should match its entries. Reading the result gives back t's
// events with method ids renumbered in key order (index << 2, as ART's
// format V1 writes them) — identical when t's ids are already 0, 4, 8, ….
// Thread ids are written whole. The summary carries t's options and clock.
func EncodeV2(w io.Writer, t *Trace, opt V2Options) error {
	if opt.BlockRecords <= 0 {
		opt.BlockRecords = 4096
	}
	if opt.BlockRecords >= 1<<24 {
		return fmt.Errorf("%w: %d records per block do not fit 24 bits", ErrInvalid, opt.BlockRecords)
	}
	h := t.Header
	if h.Clocks == 0 {
		h.Clocks = Dual
	}
	if h.Clocks != CPUOnly && h.Clocks != WallOnly && h.Clocks != Dual {
		return fmt.Errorf("%w: clocks %d", ErrInvalid, h.Clocks)
	}
	version := VersionSingleClockV2
	order := []Clock{h.Clocks.First()}
	if h.Clocks == Dual {
		version = VersionDualClockV2
		order = []Clock{ClockWall, ClockCPU}
	}
	ptrOf := make(map[uint32]uint64, len(h.Methods))
	for i, m := range h.Methods {
		if m.ID&3 != 0 {
			return fmt.Errorf("%w: method id %#x has the action bits set", ErrInvalid, m.ID)
		}
		if _, dup := ptrOf[m.ID]; dup {
			return fmt.Errorf("%w: method id %#x listed twice", ErrInvalid, m.ID)
		}
		for _, f := range []string{m.Class, m.Name, m.Signature, m.File} {
			if bytes.ContainsAny([]byte(f), "\t\n") {
				return fmt.Errorf("%w: method %#x: field %q contains a tab or newline", ErrInvalid, m.ID, f)
			}
		}
		ptrOf[m.ID] = methodPtrBase + uint64(i)*32
	}
	var out []byte
	flush := func(force bool) error {
		if len(out) >= 1<<16 || (force && len(out) > 0) {
			_, err := w.Write(out)
			out = out[:0]
			return err
		}
		return nil
	}
	dv := version
	if opt.Streaming {
		dv |= StreamingFlag
	}
	timeFirst := opt.Layout == V2TimeFirst
	out = binary.LittleEndian.AppendUint32(out, Magic)
	out = binary.LittleEndian.AppendUint16(out, uint16(dv))
	out = binary.LittleEndian.AppendUint64(out, h.StartTime*1000)
	if timeFirst {
		// The counter at the start (any non-zero value: record times are
		// relative to it) and its frequency.
		out = binary.LittleEndian.AppendUint64(out, 1)
		out = binary.LittleEndian.AppendUint64(out, opt.TSCFrequency)
	}
	out = append(out, make([]byte, headerSizeV2-len(out))...)
	ticks := func(us uint32) uint64 {
		ns := uint64(us) * 1000
		if opt.TSCFrequency == 0 {
			return ns
		}
		hi, lo := bits.Mul64(ns, opt.TSCFrequency)
		q, r := bits.Div64(hi, lo, 1_000_000_000)
		if r != 0 {
			q++
		}
		return q
	}

	threadDone := make(map[uint32]bool)
	methodDone := make(map[uint32]bool)
	nameOf := func(id uint32) (string, bool) {
		for _, th := range h.Threads {
			if th.ID == id {
				return th.Name, true
			}
		}
		return "", false
	}
	appendThread := func(id uint32, name string) error {
		if len(name) > 0xFFFF {
			return fmt.Errorf("%w: thread %d name longer than 65535 bytes", ErrInvalid, id)
		}
		out = append(out, packetThreadV2)
		out = binary.LittleEndian.AppendUint32(out, id)
		out = binary.LittleEndian.AppendUint16(out, uint16(len(name)))
		out = append(out, name...)
		threadDone[id] = true
		return nil
	}
	appendMethod := func(m *Method) error {
		line := m.Class + "\t" + m.Name + "\t" + m.Signature + "\t" + m.File + "\n"
		if len(line) > 0xFFFF {
			return fmt.Errorf("%w: method %#x line longer than 65535 bytes", ErrInvalid, m.ID)
		}
		out = append(out, packetMethodV2)
		out = binary.LittleEndian.AppendUint64(out, ptrOf[m.ID])
		out = binary.LittleEndian.AppendUint16(out, uint16(len(line)))
		out = append(out, line...)
		methodDone[m.ID] = true
		return nil
	}
	methodByID := make(map[uint32]*Method, len(h.Methods))
	for i := range h.Methods {
		methodByID[h.Methods[i].ID] = &h.Methods[i]
	}
	if !opt.Streaming {
		for _, th := range h.Threads {
			if err := appendThread(th.ID, th.Name); err != nil {
				return err
			}
		}
		for i := range h.Methods {
			if err := appendMethod(&h.Methods[i]); err != nil {
				return err
			}
		}
	}
	// Blocks: consecutive events of one thread, at most BlockRecords each.
	ev := t.Events
	for i := 0; i < len(ev); {
		th := ev[i].Thread
		j := i
		for j < len(ev) && ev[j].Thread == th && j-i < opt.BlockRecords {
			j++
		}
		if opt.Streaming {
			if !threadDone[uint32(th)] {
				if name, ok := nameOf(uint32(th)); ok {
					if err := appendThread(uint32(th), name); err != nil {
						return err
					}
				}
			}
			for _, e := range ev[i:j] {
				if m := methodByID[e.MethodID]; m != nil && !methodDone[e.MethodID] {
					if err := appendMethod(m); err != nil {
						return err
					}
				}
			}
		}
		hdrAt := len(out)
		out = append(out, make([]byte, entriesHeaderV2)...)
		var prevWord uint64
		var prevTime [2]uint64
		var prevTA, prevPtr uint64
		for _, e := range ev[i:j] {
			if timeFirst {
				ta := ticks(e.Time[order[0]])<<2 | uint64(e.Action&3)
				out = appendSleb128(out, int64(ta-prevTA))
				prevTA = ta
				if len(order) == 2 {
					cpu := uint64(e.Time[ClockCPU]) * 1000
					out = appendSleb128(out, int64(cpu-prevTime[ClockCPU]))
					prevTime[ClockCPU] = cpu
				}
				if e.Action == Enter {
					ptr, ok := ptrOf[e.MethodID]
					if !ok {
						ptr = uint64(e.MethodID) | 1<<40
					}
					out = appendSleb128(out, int64(ptr-prevPtr))
					prevPtr = ptr
				}
				continue
			}
			ptr, ok := ptrOf[e.MethodID]
			if !ok {
				// An id with no method: the pointer is the id itself, so a
				// reader reports it as unknown.
				ptr = uint64(e.MethodID) | 1<<40
			}
			word := ptr | uint64(e.Action&3)
			out = appendSleb128(out, int64(word-prevWord))
			prevWord = word
			for _, c := range order {
				ns := uint64(e.Time[c]) * 1000
				if ns < prevTime[c] {
					return fmt.Errorf("%w: thread %d: %s time goes backwards (%d after %d µs); ULEB128 deltas cannot hold it", ErrInvalid, th, c, e.Time[c], prevTime[c]/1000)
				}
				out = appendUleb128(out, ns-prevTime[c])
				prevTime[c] = ns
			}
		}
		b := out[hdrAt:]
		b[0] = packetEntriesV2
		binary.LittleEndian.PutUint32(b[1:], uint32(th))
		n := j - i
		b[5], b[6], b[7] = byte(n), byte(n>>8), byte(n>>16)
		binary.LittleEndian.PutUint32(b[8:], uint32(len(b)-entriesHeaderV2))
		if err := flush(false); err != nil {
			return err
		}
		i = j
	}
	// Summary, as TraceWriter::CreateSummary: no threads or methods.
	sum := []byte("*version\n" + strconv.Itoa(version) + "\n")
	if _, ok := h.Option("clock"); !ok {
		sum = append(sum, "clock="+h.Clocks.String()+"\n"...)
	}
	for _, o := range h.Options {
		if o.Key == "" || bytes.ContainsAny([]byte(o.Key), "=\n") || o.Key[0] == '*' || bytes.ContainsAny([]byte(o.Value), "\n") {
			return fmt.Errorf("%w: option %q=%q", ErrInvalid, o.Key, o.Value)
		}
		sum = append(sum, o.Key+"="+o.Value+"\n"...)
	}
	if _, ok := h.Option("pid"); !ok && opt.PID > 0 {
		sum = append(sum, "pid="+strconv.Itoa(opt.PID)+"\n"...)
	}
	sum = append(sum, "*end\n"...)
	if len(sum) > 0xFFFF {
		return fmt.Errorf("%w: summary longer than 65535 bytes", ErrInvalid)
	}
	out = append(out, packetSummaryV2)
	out = binary.LittleEndian.AppendUint16(out, uint16(len(sum)))
	out = append(out, sum...)
	return flush(true)
}
