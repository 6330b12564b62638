package trace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
)

// ART's method-trace format V2 (spec §5a; art/runtime/trace.cc TraceWriter,
// trace.h kTraceVersionSingleClockV2): requested with the format bits of the
// trace flags (Trace::kFormatV2 << 1), written to a file or a streaming file,
// never sent by DDM. After a 32-byte header the file is a sequence of typed
// packets; records are ULEB/SLEB128 deltas grouped in per-thread blocks, and
// times are nanoseconds.
const (
	// VersionSingleClockV2 and VersionDualClockV2 are the data-header
	// versions of format V2 (or-ed with StreamingFlag in streaming output).
	VersionSingleClockV2 = 4
	VersionDualClockV2   = 5

	headerSizeV2 = 32 // u4 magic, u2 version, u8 start time (ns), zeros

	// Packet types: the first byte of every packet after the header.
	packetThreadV2  = 0 // u4 tid, u2 length, name
	packetMethodV2  = 1 // u8 method pointer, u2 length, "class\tname\tsignature\tfile\n"
	packetEntriesV2 = 2 // u4 tid, u3 record count, u4 byte size, then the records
	packetSummaryV2 = 3 // u2 length, key text without threads or methods

	threadHeaderV2  = 7
	methodHeaderV2  = 11
	entriesHeaderV2 = 12
	summaryHeaderV2 = 3

	// maxRecordV2 is the longest record: a 10-byte SLEB128 method delta and
	// two 10-byte ULEB128 time deltas.
	maxRecordV2 = 30
	// methodPtrBase is the first method pointer the writer invents.
	methodPtrBase = 0x7000_0000_0000
)

// v2State is the Reader's state for a format V2 file.
type v2State struct {
	methodOf  map[uint64]int32 // method pointer → Header.Methods index
	unknown   map[uint64]bool  // pointers without a method packet, warned once each
	order     [2]Clock         // clocks in the order a record carries them (wall first)
	nclocks   int
	left      int   // records left in the current entries block
	bytesLeft int64 // bytes left in the current entries block
	tid       uint32
	prevWord  uint64    // method pointer | action of the previous record in the block
	prevTime  [2]uint64 // ns per Clock, previous record in the block

	// timeFirst: the 2026 record layout (see V2Layout); the fields below
	// are its state.
	timeFirst bool
	tscFreq   uint64              // counter ticks per second of the wall time; 0: ns
	prevTA    uint64              // time << 2 | action of the previous record in the block
	prevPtr   uint64              // method pointer of the previous entry in the block
	stacks    map[uint32][]uint64 // per thread: pointers of the entries not yet exited
	stackLen  int                 // sum of the stacks' lengths
}

// V2Layout is one of the two record layouts ART has written under versions
// 4 and 5 (spec §5a).
type V2Layout uint8

// Layouts of format V2.
const (
	// V2MethodFirst (ART 2024–2025): per record an SLEB128 delta of
	// pointer | action, then ULEB128 deltas of the wall and the thread-CPU
	// time in ns; header bytes 14–31 are zero.
	V2MethodFirst V2Layout = iota
	// V2TimeFirst (ART 2026, read by Perfetto): per record an SLEB128 delta
	// of time << 2 | action (wall-clock counter ticks since the start, or
	// ns when the header gives no frequency), then with a dual clock an
	// SLEB128 delta of the thread-CPU time in ns, then for an entry only an
	// SLEB128 delta of the method pointer; an exit names no method (it
	// closes the thread's innermost open entry). The header carries the
	// counter at the start (u8 at 14) and its frequency (u8 at 22).
	V2TimeFirst
)

// readHeaderV2 parses the 32-byte header of format V2 (spec §5a); the first
// 16 bytes are buffered and the version field checked by the caller.
func (rd *Reader) readHeaderV2(off int64, dv, base int, haveKey bool) error {
	h := rd.hdr
	if haveKey {
		return rd.dataFail(off+4, "data header version", fmt.Errorf("%w: version %d data (ART format V2) after a key section", ErrMalformed, base))
	}
	if !rd.src.fill(headerSizeV2) {
		if err := rd.src.readErr(); err != nil {
			return err
		}
		return rd.dataFail(off, "data header", fmt.Errorf("%w: %d of %d bytes", ErrTruncated, len(rd.src.buffered()), headerSizeV2))
	}
	b := rd.src.buffered()
	h.Version = base
	h.DataVersion = dv
	h.Streaming = dv&0xF0 == StreamingFlag
	h.StartTime = binary.LittleEndian.Uint64(b[6:]) / 1000
	h.DataOffset = headerSizeV2
	h.RecordSize = 0
	s := &v2State{methodOf: make(map[uint64]int32), unknown: make(map[uint64]bool)}
	// The 2026 layout records the counter's value at the start, which is
	// never 0; the earlier one leaves the rest of the header zero.
	if startTSC := binary.LittleEndian.Uint64(b[14:]); startTSC != 0 {
		s.timeFirst = true
		s.tscFreq = binary.LittleEndian.Uint64(b[22:])
		s.stacks = make(map[uint32][]uint64)
	}
	rd.src.consume(headerSizeV2)
	if base == VersionDualClockV2 {
		h.Clocks = Dual
		s.order = [2]Clock{ClockWall, ClockCPU}
		s.nclocks = 2
	} else {
		// The clock of a single-clock file is named only by the summary at
		// the end: records are read as thread CPU until then.
		h.Clocks = CPUOnly
		rd.provisional = true
		s.order = [2]Clock{ClockCPU, ClockCPU}
		s.nclocks = 1
	}
	rd.dual = h.Clocks == Dual
	rd.timeField = ClockCPU
	rd.v2 = s
	rd.methods = newMethodTable(nil)
	return nil
}

// readV2 decodes records of a format V2 file, handling the packets between
// blocks.
func (rd *Reader) readV2(dst []Record) (int, error) {
	s := rd.v2
	n := 0
	for n < len(dst) {
		if s.left > 0 {
			k, err := rd.decodeBlockV2(dst[n:])
			n += k
			if err != nil {
				if err == io.ErrUnexpectedEOF {
					break
				}
				rd.err = err
				return n, err
			}
			continue
		}
		if s.bytesLeft > 0 {
			rd.warn(WarnTruncatedData, rd.src.off, "entries block has %d bytes after its last record; skipped", s.bytesLeft)
			if !rd.skipBytes(s.bytesLeft) {
				s.bytesLeft = 0
				break
			}
			s.bytesLeft = 0
		}
		if !rd.src.fill(1) {
			break
		}
		if err := rd.readPacketV2(); err != nil {
			if err == io.ErrUnexpectedEOF {
				break
			}
			rd.err = err
			return n, err
		}
	}
	if n > 0 {
		return n, nil
	}
	if s.left > 0 {
		rd.warn(WarnTruncatedData, rd.src.off, "data ends with %d records of the thread %d block unread", s.left, s.tid)
		s.left = 0
	}
	return 0, rd.finish()
}

// readRest reads what is left of the input, at most max bytes.
func (rd *Reader) readRest(max int) []byte {
	var out []byte
	for len(out) < max && rd.src.fill(1) {
		b := rd.src.buffered()
		k := min(max-len(out), len(b))
		out = append(out, b[:k]...)
		rd.src.consume(k)
	}
	return out
}

// skipBytes consumes n bytes; false when the input ends first.
func (rd *Reader) skipBytes(n int64) bool {
	for n > 0 {
		if !rd.src.fill(1) {
			return false
		}
		k := int(min(n, int64(len(rd.src.buffered()))))
		rd.src.consume(k)
		n -= int64(k)
	}
	return true
}

// readPacketV2 reads one packet other than records; io.ErrUnexpectedEOF
// means the data ended inside it (finish then reports the partial bytes).
func (rd *Reader) readPacketV2() error {
	s := rd.v2
	off := rd.src.off
	switch typ := rd.src.buffered()[0]; typ {
	case packetThreadV2:
		if !rd.src.fill(threadHeaderV2) {
			return io.ErrUnexpectedEOF
		}
		b := rd.src.buffered()
		tid := binary.LittleEndian.Uint32(b[1:])
		l := int(binary.LittleEndian.Uint16(b[5:]))
		if !rd.src.fill(threadHeaderV2 + l) {
			return io.ErrUnexpectedEOF
		}
		name := string(rd.src.buffered()[threadHeaderV2 : threadHeaderV2+l])
		rd.src.consume(threadHeaderV2 + l)
		rd.setThreadName(tid, name)
	case packetMethodV2:
		if !rd.src.fill(methodHeaderV2) {
			return io.ErrUnexpectedEOF
		}
		b := rd.src.buffered()
		ptr := binary.LittleEndian.Uint64(b[1:])
		l := int(binary.LittleEndian.Uint16(b[9:]))
		if !rd.src.fill(methodHeaderV2 + l) {
			return io.ErrUnexpectedEOF
		}
		line := rd.src.buffered()[methodHeaderV2 : methodHeaderV2+l]
		line = bytes.TrimSuffix(line, []byte("\n"))
		m, problem := parseMethodLine("0\t" + string(line))
		rd.src.consume(methodHeaderV2 + l)
		if problem != "" {
			rd.warn(WarnKey, off, "method packet: %s", problem)
			return nil
		}
		if ptr&3 != 0 {
			rd.warn(WarnKey, off, "method pointer %#x has the action bits set; ignored", ptr)
			return nil
		}
		if len(rd.hdr.Methods) >= rd.lim.MaxMethods {
			return rd.dataFail(off, "method packet", fmt.Errorf("%w: more than %d methods", ErrLimit, rd.lim.MaxMethods))
		}
		// Ids are the file's order of methods, as ART's own format V1
		// numbers them (index << 2); a pointer described again (a class
		// unloaded and its memory reused) names the new method from here on.
		i := int32(len(rd.hdr.Methods))
		m.ID = uint32(i) << 2
		rd.methods.add(m.ID, i)
		rd.hdr.Methods = append(rd.hdr.Methods, m)
		s.methodOf[ptr] = i
	case packetEntriesV2:
		if !rd.src.fill(entriesHeaderV2) {
			return io.ErrUnexpectedEOF
		}
		b := rd.src.buffered()
		tid := binary.LittleEndian.Uint32(b[1:])
		count := int(b[5]) | int(b[6])<<8 | int(b[7])<<16
		size := int64(binary.LittleEndian.Uint32(b[8:]))
		// Every record is at least one byte per field and at most
		// maxRecordV2 bytes: a block outside those sizes cannot be decoded.
		minRec := int64(1 + s.nclocks) // method-first: a byte per field
		if s.timeFirst {
			minRec = int64(s.nclocks) // time-first: time, CPU time if dual
		}
		if size < int64(count)*minRec || size > int64(count)*maxRecordV2 {
			return rd.dataFail(off, "entries block", fmt.Errorf("%w: %d records cannot take %d bytes", ErrMalformed, count, size))
		}
		rd.src.consume(entriesHeaderV2)
		s.tid, s.left, s.bytesLeft = tid, count, size
		s.prevWord, s.prevTime, s.prevTA, s.prevPtr = 0, [2]uint64{}, 0, 0
	case packetSummaryV2:
		// ART 2024-25 writes a u2 length before the text. Perfetto's reader
		// of the 2026 layout skips one byte and takes the text to the end of
		// the file: find where "*version" starts (after 2, 1 or 0 bytes),
		// and without a length read to the end (the summary comes last).
		rd.src.fill(summaryHeaderV2 + len("*version"))
		b := rd.src.buffered()
		textAfter := func(i int) bool { return i < len(b) && bytes.HasPrefix(b[i:], []byte("*v")) }
		textAt, l := summaryHeaderV2, -1
		switch {
		case textAfter(3):
			l = int(binary.LittleEndian.Uint16(b[1:]))
		case textAfter(1):
			textAt = 1
		case textAfter(2):
			textAt = 2
		case len(b) < summaryHeaderV2:
			return io.ErrUnexpectedEOF
		default:
			l = int(binary.LittleEndian.Uint16(b[1:]))
		}
		rd.src.consume(textAt)
		var text []byte
		if l >= 0 {
			var ok bool
			if text, ok = rd.readBytes(l); !ok {
				return io.ErrUnexpectedEOF
			}
		} else {
			text = rd.readRest(int(rd.lim.MaxKeyBytes))
		}
		rd.applySummary(text, off, true)
	default:
		return rd.dataFail(off, "packet", fmt.Errorf("%w: type %d (ART format V2 knows 0-3)", ErrMalformed, typ))
	}
	return nil
}

// decodeBlockV2 decodes records of the current entries block into dst.
// io.ErrUnexpectedEOF means the input ends inside the block.
func (rd *Reader) decodeBlockV2(dst []Record) (int, error) {
	s := rd.v2
	// Two longest records: then at least one record lies wholly before the
	// last maxRecordV2 bytes, so every call makes progress.
	want := int(min(s.bytesLeft, 2*maxRecordV2))
	rd.src.fill(want)
	if err := rd.src.readErr(); err != nil {
		return 0, err
	}
	b := rd.src.buffered()
	if int64(len(b)) > s.bytesLeft {
		b = b[:s.bytesLeft]
	}
	blockInB := int64(len(b)) == s.bytesLeft
	// A record that may be cut by the end of the buffer waits for a refill,
	// unless the block or the input ends within b.
	limit := len(b)
	if !blockInB && len(b) >= want {
		limit = len(b) - maxRecordV2
	}
	base := rd.src.off
	p, n := 0, 0
	cut := false
	for n < len(dst) && s.left > 0 && p < limit {
		start := p
		var word uint64
		var k int
		if s.timeFirst {
			word, k = rd.decodeTimeFirst(b[p:])
		} else {
			word, k = s.decodeMethodFirst(b[p:])
		}
		if k <= 0 {
			if k == 0 && !blockInB {
				p, cut = start, true
				break
			}
			rd.src.consume(start)
			s.bytesLeft -= int64(start)
			return n, rd.blockFail(base+int64(start), k)
		}
		p += k
		r := &dst[n]
		ptr := word &^ 3
		*r = Record{Offset: base + int64(start), Thread: s.tid, Action: Action(word & 3), Method: -1}
		switch i, ok := s.methodOf[ptr]; {
		case ok:
			r.Method = i
			r.MethodID = uint32(i) << 2
		case ptr == 0 && s.timeFirst:
			// An exit with no open entry on its thread: entered before
			// tracing began, method unknown.
		default:
			r.MethodID = uint32(ptr)
			rd.unknownPointer(ptr, r.Offset)
		}
		for c := 0; c < s.nclocks; c++ {
			clk := s.order[c]
			us := s.prevTime[clk] / 1000
			if us > math.MaxUint32 {
				rd.src.consume(start)
				s.bytesLeft -= int64(start)
				return n, rd.dataFail(r.Offset, "record", fmt.Errorf("%w: time %d ns is past the 71 minutes a profile holds", ErrLimit, s.prevTime[clk]))
			}
			r.Time[clk] = uint32(us)
		}
		n++
		s.left--
	}
	rd.src.consume(p)
	s.bytesLeft -= int64(p)
	if s.left > 0 && s.bytesLeft == 0 {
		return n, rd.dataFail(rd.src.off, "entries block", fmt.Errorf("%w: the block's bytes end with %d records unread", ErrMalformed, s.left))
	}
	if (cut || p == 0) && n == 0 && s.left > 0 {
		return 0, io.ErrUnexpectedEOF
	}
	return n, nil
}

// decodeMethodFirst decodes one V2MethodFirst record from b: it returns
// pointer | action and the bytes read (0: b ends inside it, -1: a field
// longer than 10 bytes), and on success advances the block's state.
func (s *v2State) decodeMethodFirst(b []byte) (word uint64, n int) {
	d, k := sleb128(b)
	if k <= 0 {
		return 0, k
	}
	n = k
	var t [2]uint64
	for c := 0; c < s.nclocks; c++ {
		v, k := uleb128(b[n:])
		if k <= 0 {
			return 0, k
		}
		n += k
		clk := s.order[c]
		t[clk] = s.prevTime[clk] + v
	}
	s.prevTime = t
	s.prevWord += uint64(d)
	return s.prevWord, n
}

// decodeTimeFirst decodes one V2TimeFirst record, as decodeMethodFirst
// does; an exit takes its method from the thread's open entries.
func (rd *Reader) decodeTimeFirst(b []byte) (word uint64, n int) {
	s := rd.v2
	d, k := sleb128(b)
	if k <= 0 {
		return 0, k
	}
	n = k
	ta := s.prevTA + uint64(d)
	cpu := s.prevTime[ClockCPU]
	if s.nclocks == 2 {
		dc, k := sleb128(b[n:])
		if k <= 0 {
			return 0, k
		}
		n += k
		cpu += uint64(dc)
	}
	action := ta & 3
	ptr := s.prevPtr
	if action == uint64(Enter) {
		dm, k := sleb128(b[n:])
		if k <= 0 {
			return 0, k
		}
		n += k
		ptr += uint64(dm)
	}
	// The record is whole: advance the state.
	s.prevTA = ta
	stack := s.stacks[s.tid]
	if action == uint64(Enter) {
		s.prevPtr = ptr
		if s.stackLen < rd.lim.MaxStackDepth*4 {
			s.stacks[s.tid] = append(stack, ptr)
			s.stackLen++
		}
	} else if len(stack) > 0 {
		ptr = stack[len(stack)-1]
		s.stacks[s.tid] = stack[:len(stack)-1]
		s.stackLen--
	} else {
		ptr = 0
	}
	ns := ta >> 2
	if s.tscFreq > 0 {
		hi, lo := bits.Mul64(ns, 1_000_000_000)
		if hi < s.tscFreq {
			ns, _ = bits.Div64(hi, lo, s.tscFreq)
		} else {
			ns = math.MaxUint64
		}
	}
	if s.nclocks == 2 {
		s.prevTime = [2]uint64{ClockCPU: cpu, ClockWall: ns}
	} else {
		// One clock: its field is the one the summary names (CPU until then).
		s.prevTime = [2]uint64{ns, ns}
	}
	return ptr | action, n
}

func (rd *Reader) blockFail(off int64, k int) error {
	if k == 0 {
		return rd.dataFail(off, "record", fmt.Errorf("%w: a LEB128 field runs past the end of its block", ErrMalformed))
	}
	return rd.dataFail(off, "record", fmt.Errorf("%w: a LEB128 field is longer than 10 bytes", ErrMalformed))
}

// unknownPointer warns once per method pointer that no packet described (at
// most maxUnknownIDsKept of them; past that every record is only counted).
func (rd *Reader) unknownPointer(ptr uint64, off int64) {
	s := rd.v2
	if s.unknown[ptr] {
		return
	}
	if len(s.unknown) < maxUnknownIDsKept {
		s.unknown[ptr] = true
		rd.unknownIDs = append(rd.unknownIDs, uint32(ptr))
	}
	rd.warn(WarnUnknownMethod, off, "method pointer %#x has no method packet", ptr)
}

// uleb128 decodes an unsigned LEB128 value of at most 64 bits. k is the
// number of bytes read, 0 when b ends inside the value, -1 when it is longer
// than 10 bytes.
func uleb128(b []byte) (v uint64, k int) {
	var shift uint
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i + 1
		}
		shift += 7
	}
	if len(b) >= 10 {
		return 0, -1
	}
	return 0, 0
}

// sleb128 decodes a signed LEB128 value of at most 64 bits (as ART's
// EncodeSignedLeb128 writes them), with uleb128's k.
func sleb128(b []byte) (v int64, k int) {
	var shift uint
	var u uint64
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		u |= uint64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			if shift < 64 && c&0x40 != 0 {
				u |= ^uint64(0) << shift
			}
			return int64(u), i + 1
		}
	}
	if len(b) >= 10 {
		return 0, -1
	}
	return 0, 0
}

// appendUleb128 and appendSleb128 encode as ART's EncodeUnsignedLeb128 and
// EncodeSignedLeb128 (libartbase/base/leb128.h) do.
func appendUleb128(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

func appendSleb128(dst []byte, v int64) []byte {
	extra := uint64(v^(v>>63)) >> 6
	out := byte(v & 0x7f)
	for extra != 0 {
		dst = append(dst, out|0x80)
		v >>= 7
		out = byte(v & 0x7f)
		extra >>= 7
	}
	return append(dst, out)
}

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
