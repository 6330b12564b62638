package trace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
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

	// threads are the thread ids seen in thread and entries packets, at
	// most Limits.MaxThreads.
	threads map[uint32]struct{}
}

// threadV2 notes thread tid, seen at off, and fails past
// Limits.MaxThreads.
func (rd *Reader) threadV2(tid uint32, off int64) error {
	s := rd.v2
	if s.threads == nil {
		s.threads = map[uint32]struct{}{}
	}
	if _, ok := s.threads[tid]; ok {
		return nil
	}
	if len(s.threads) >= rd.lim.MaxThreads {
		return rd.dataFail(off, "thread", fmt.Errorf("%w: more than %d threads", ErrLimit, rd.lim.MaxThreads))
	}
	s.threads[tid] = struct{}{}
	return nil
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
		if err := rd.threadV2(tid, off); err != nil {
			return err
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
		if err := rd.threadV2(tid, off); err != nil {
			return err
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
