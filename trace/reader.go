package trace

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Record is one data record as read from a file (spec §3.2).
type Record struct {
	Offset   int64     // byte offset of the record in its file
	Time     [2]uint32 // µs since the trace start, indexed by Clock; only the file's clocks are set
	MethodID uint32    // method word with the action bits cleared
	Method   int32     // index in Header.Methods, or -1 when no key line has MethodID
	Thread   uint32    // 8 (v1) or 16 (v2, v3) bits of the file's id; the whole tid in v4/v5
	Action   Action
}

// Reader streams the records of a trace after parsing its header. It holds
// one fixed-size buffer, so a trace of any length is read in constant memory.
type Reader struct {
	src        *source
	hdr        *Header
	lim        Limits
	part       string // "data" for split traces, "" otherwise
	ws         Warnings
	methods    *methodTable
	unknown    indexTable // distinct unknown method ids seen
	unknownIDs []uint32
	// threadAt indexes Header.Threads by id for setThreadName, made from
	// its first threadAtLen entries.
	threadAt    map[uint32]int
	threadAtLen int
	timeField   Clock // where a single time field goes
	dual        bool
	done        bool
	err         error
	// provisional is set for streaming single-clock traces, whose clock is
	// only named by the summary at the end (spec §5): records are read as
	// thread CPU until then.
	provisional bool
	v2          *v2State // ART format V2 (versions 4 and 5), else nil
}

// NewReader parses the key section (or, for a file starting with the SLOW
// magic, no key: a streaming trace or a bare data file) and the data header
// from r. Records follow with Read.
func NewReader(r io.Reader, lim Limits) (*Reader, error) {
	lim = lim.withDefaults()
	rd := &Reader{src: newSource(r), lim: lim}
	rd.ws.limit = lim.MaxWarnings
	if rd.src.fill(4) && binary.LittleEndian.Uint32(rd.src.buffered()) == Magic {
		rd.hdr = &Header{}
		if err := rd.readDataHeader(false); err != nil {
			return nil, err
		}
		if !rd.hdr.Streaming && rd.v2 == nil {
			rd.ws.add(Warning{Kind: WarnHeader, Offset: 0, Message: "no key section: every method is unknown"})
		}
		return rd, nil
	}
	if err := rd.src.readErr(); err != nil {
		return nil, err
	}
	kp := keyParser{src: rd.src, lim: lim, ws: &rd.ws}
	hdr, err := kp.parse()
	if err != nil {
		return nil, err
	}
	rd.hdr = hdr
	if err := rd.readDataHeader(true); err != nil {
		return nil, err
	}
	return rd, nil
}

// NewSplitReader reads a trace whose key and data are two files (as old
// Traceview's name.key and name.data). Offsets in the warnings and errors of
// the data part are relative to the data file.
func NewSplitReader(key, data io.Reader, lim Limits) (*Reader, error) {
	lim = lim.withDefaults()
	rd := &Reader{lim: lim, part: "data"}
	rd.ws.limit = lim.MaxWarnings
	kp := keyParser{src: newSource(key), lim: lim, ws: &rd.ws, part: "key"}
	hdr, err := kp.parse()
	if err != nil {
		return nil, err
	}
	hdr.KeyBytes = 0
	rd.hdr = hdr
	rd.src = newSource(data)
	if err := rd.readDataHeader(true); err != nil {
		return nil, err
	}
	return rd, nil
}

// Header returns the trace's header. For a streaming trace its Methods and
// Threads grow while records are read.
func (rd *Reader) Header() *Header { return rd.hdr }

// Warnings returns the warnings found so far.
func (rd *Reader) Warnings() *Warnings { return &rd.ws }

// UnknownMethodIDs lists the distinct record method ids that no key line
// names, in the order first seen (at most 4096; each is warned about once,
// and past that limit every such record is).
func (rd *Reader) UnknownMethodIDs() []uint32 { return rd.unknownIDs }

func (rd *Reader) dataFail(off int64, what string, err error) error {
	return &FormatError{Part: rd.part, Offset: off, What: what, Err: err}
}

func (rd *Reader) warn(kind WarningKind, off int64, format string, args ...any) {
	rd.ws.add(Warning{Kind: kind, Part: rd.part, Offset: off, Message: fmt.Sprintf(format, args...)})
}

// readDataHeader parses spec §3.1 and sets the record layout.
func (rd *Reader) readDataHeader(haveKey bool) error {
	h := rd.hdr
	off := rd.src.off
	if !rd.src.fill(headerFixedV12) {
		if err := rd.src.readErr(); err != nil {
			return err
		}
		if len(rd.src.buffered()) == 0 && haveKey {
			return rd.dataFail(off, "data header", fmt.Errorf("%w: the key is not followed by data", ErrTruncated))
		}
		return rd.dataFail(off, "data header", fmt.Errorf("%w: %d of %d bytes", ErrTruncated, len(rd.src.buffered()), headerFixedV12))
	}
	b := rd.src.buffered()
	if magic := binary.LittleEndian.Uint32(b); magic != Magic {
		return rd.dataFail(off, "data header", fmt.Errorf("%w: magic %#08x, want %#08x (\"SLOW\")", ErrNotTrace, magic, uint32(Magic)))
	}
	dv := int(binary.LittleEndian.Uint16(b[4:]))
	dataOffset := int(binary.LittleEndian.Uint16(b[6:]))
	h.StartTime = binary.LittleEndian.Uint64(b[8:])
	h.DataVersion = dv
	base := dv
	if dv&0xF0 == StreamingFlag {
		h.Streaming = true
		base = dv &^ StreamingFlag
		if haveKey {
			rd.warn(WarnHeader, off+4, "streaming data version %#x after a key section", dv)
		}
	}
	if base == VersionSingleClockV2 || base == VersionDualClockV2 {
		return rd.readHeaderV2(off, dv, base, haveKey)
	}
	if base < 1 || base > 3 {
		return rd.dataFail(off+4, "data header version", fmt.Errorf("%w: %d", ErrVersion, dv))
	}
	if !haveKey {
		h.Version = base
	} else if base != h.Version {
		rd.warn(WarnHeader, off+4, "data version %d differs from key version %d; the data version is used", base, h.Version)
	}
	fixed := headerFixedV12
	if base >= 3 || h.Streaming {
		fixed = headerFixedV3
	}
	if dataOffset < fixed {
		return rd.dataFail(off+6, "data header offset", fmt.Errorf("%w: %d is less than the %d-byte header", ErrMalformed, dataOffset, fixed))
	}
	h.DataOffset = dataOffset
	recSize := recordSizeV2
	switch {
	case base == 1:
		recSize = recordSizeV1
	case fixed == headerFixedV3:
		if !rd.src.fill(headerFixedV3) {
			return rd.dataFail(off+16, "data header record size", fmt.Errorf("%w", ErrTruncated))
		}
		recSize = int(binary.LittleEndian.Uint16(rd.src.buffered()[16:]))
		if recSize == 0 && h.Streaming {
			recSize = recordSizeV2
			if base == 3 {
				recSize = recordSizeDual
			}
		}
	}
	if recSize < recordSizeV2 && base != 1 {
		return rd.dataFail(off+16, "data header record size", fmt.Errorf("%w: %d bytes is less than thread, method and time", ErrMalformed, recSize))
	}
	h.RecordSize = recSize
	layoutDual := base == 3 && recSize >= recordSizeDual
	warnClock := func(msg string) { rd.warn(WarnHeader, off, "%s", msg) }
	if h.Streaming {
		// No key: the clock= option arrives with the summary, if at all.
		if layoutDual {
			h.Clocks = Dual
		} else {
			h.Clocks = CPUOnly
			rd.provisional = true
		}
	} else {
		h.Clocks = clocksFor(h, layoutDual, warnClock)
		if h.Clocks != Dual && layoutDual {
			rd.warn(WarnHeader, off, "clock=%s but records have two time fields; the second is ignored", h.Clocks)
		}
	}
	rd.dual = h.Clocks == Dual
	rd.timeField = h.Clocks.First()
	// Skip to the first record, reading (not seeking) the padding.
	for skip := dataOffset; skip > 0; {
		if !rd.src.fill(1) {
			if err := rd.src.readErr(); err != nil {
				return err
			}
			return rd.dataFail(rd.src.off, "data header", fmt.Errorf("%w: offset %d points past the end", ErrTruncated, dataOffset))
		}
		n := min(skip, len(rd.src.buffered()))
		rd.src.consume(n)
		skip -= n
	}
	rd.methods = newMethodTable(h.Methods)
	for i, m := range h.Methods {
		if m.ID&3 == 0 {
			rd.methods.add(m.ID, int32(i))
		}
	}
	return nil
}

// Next returns the next record, or io.EOF after the last one.
func (rd *Reader) Next() (Record, error) {
	var one [1]Record
	for {
		n, err := rd.Read(one[:])
		if n == 1 {
			return one[0], nil
		}
		if err != nil {
			return Record{}, err
		}
	}
}

// Read decodes up to len(dst) records into dst. It returns io.EOF when no
// records remain; a trailing partial record is reported as a
// WarnTruncatedData warning, as dmtracedump does ("hit EOF mid-record").
func (rd *Reader) Read(dst []Record) (int, error) {
	if rd.err != nil {
		return 0, rd.err
	}
	if rd.done {
		return 0, io.EOF
	}
	if len(dst) == 0 {
		return 0, nil
	}
	if rd.v2 != nil {
		return rd.readV2(dst)
	}
	if rd.hdr.Streaming {
		return rd.readStreaming(dst)
	}
	rs := rd.hdr.RecordSize
	if !rd.src.fill(rs) {
		return 0, rd.finish()
	}
	b := rd.src.buffered()
	n := min(len(b)/rs, len(dst))
	off := rd.src.off
	switch {
	case rd.hdr.RecordSize == recordSizeV1 && rd.hdr.DataVersion == 1:
		rd.decodeV1(dst[:n], b, off)
	case rd.dual:
		rd.decodeDual(dst[:n], b, off, rs)
	default:
		rd.decodeSingle(dst[:n], b, off, rs)
	}
	rd.src.consume(n * rs)
	return n, nil
}

// finish handles the end of the data: a partial record or a read error.
func (rd *Reader) finish() error {
	if err := rd.src.readErr(); err != nil {
		rd.err = err
		return err
	}
	if rest := len(rd.src.buffered()); rest > 0 {
		rd.warn(WarnTruncatedData, rd.src.off, "data ends %d bytes into a %d-byte record; the partial record is ignored", rest, rd.hdr.RecordSize)
		rd.src.consume(rest)
	}
	rd.done = true
	return io.EOF
}

func (rd *Reader) decodeV1(dst []Record, b []byte, off int64) {
	tf := rd.timeField
	for i := range dst {
		p := b[i*recordSizeV1 : i*recordSizeV1+recordSizeV1]
		w := binary.LittleEndian.Uint32(p[1:])
		r := &dst[i]
		*r = Record{Offset: off + int64(i*recordSizeV1), Thread: uint32(p[0]), MethodID: w &^ 3, Action: Action(w & 3)}
		r.Time[tf] = binary.LittleEndian.Uint32(p[5:])
		r.Method = rd.resolve(r.MethodID, r.Offset)
	}
}

func (rd *Reader) decodeSingle(dst []Record, b []byte, off int64, rs int) {
	tf := rd.timeField
	for i := range dst {
		p := b[i*rs : i*rs+recordSizeV2]
		w := binary.LittleEndian.Uint32(p[2:])
		r := &dst[i]
		*r = Record{Offset: off + int64(i*rs), Thread: uint32(binary.LittleEndian.Uint16(p)), MethodID: w &^ 3, Action: Action(w & 3)}
		r.Time[tf] = binary.LittleEndian.Uint32(p[6:])
		r.Method = rd.resolve(r.MethodID, r.Offset)
	}
}

func (rd *Reader) decodeDual(dst []Record, b []byte, off int64, rs int) {
	dense, base := rd.methods.dense, rd.methods.base
	for i := range dst {
		p := b[i*rs : i*rs+recordSizeDual]
		w := binary.LittleEndian.Uint32(p[2:])
		id := w &^ 3
		m := int32(-1)
		if s := (id - base) >> 2; s < uint32(len(dense)) {
			m = dense[s]
		}
		o := off + int64(i*rs)
		if m < 0 {
			m = rd.resolve(id, o)
		}
		dst[i] = Record{
			Offset:   o,
			Thread:   uint32(binary.LittleEndian.Uint16(p)),
			MethodID: id,
			Action:   Action(w & 3),
			Method:   m,
			Time:     [2]uint32{binary.LittleEndian.Uint32(p[6:]), binary.LittleEndian.Uint32(p[10:])},
		}
	}
}

const maxUnknownIDsKept = 4096

// resolve maps a method id to its key index; unknown ids are warned about
// once each (dmtracedump maps them all to "(unknown)", spec §4).
func (rd *Reader) resolve(id uint32, off int64) int32 {
	if m := rd.methods.lookup(id); m >= 0 {
		return m
	}
	if len(rd.unknownIDs) >= maxUnknownIDsKept {
		// Past the cap every record with an unknown id is only counted.
		rd.warn(WarnUnknownMethod, off, "method id %#x is not in the key", id)
		return -1
	}
	if _, added := rd.unknown.getOrPut(uint64(id), int32(len(rd.unknownIDs))); added {
		rd.unknownIDs = append(rd.unknownIDs, id)
		rd.warn(WarnUnknownMethod, off, "method id %#x is not in the key", id)
	}
	return -1
}
