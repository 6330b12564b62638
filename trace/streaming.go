package trace

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// Control records of ART's streaming format (spec §5): a record whose thread
// field is 0, then an opcode.
const (
	streamOpMethod  = 1 // u2 length, method line
	streamOpThread  = 2 // u2 thread id, u2 length, name
	streamOpSummary = 3 // u4 length, key text without methods (ART 2023+)
)

// readStreaming decodes records and inline metadata of a streaming trace.
func (rd *Reader) readStreaming(dst []Record) (int, error) {
	rs := rd.hdr.RecordSize
	n := 0
	for n < len(dst) {
		if !rd.src.fill(2) {
			break
		}
		off := rd.src.off
		b := rd.src.buffered()
		thread := binary.LittleEndian.Uint16(b)
		if thread != 0 {
			if !rd.src.fill(rs) {
				break
			}
			b = rd.src.buffered()
			w := binary.LittleEndian.Uint32(b[2:])
			r := &dst[n]
			*r = Record{Offset: off, Thread: uint32(thread), MethodID: w &^ 3, Action: Action(w & 3)}
			if rd.dual {
				r.Time = [2]uint32{binary.LittleEndian.Uint32(b[6:]), binary.LittleEndian.Uint32(b[10:])}
			} else {
				r.Time[rd.timeField] = binary.LittleEndian.Uint32(b[6:])
			}
			r.Method = rd.resolve(r.MethodID, off)
			rd.src.consume(rs)
			n++
			continue
		}
		if err := rd.readControl(off); err != nil {
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
	return 0, rd.finish()
}

// readControl reads one control record; io.ErrUnexpectedEOF means the data
// ended inside it (then finish reports the partial record).
func (rd *Reader) readControl(off int64) error {
	if !rd.src.fill(3) {
		return io.ErrUnexpectedEOF
	}
	op := rd.src.buffered()[2]
	switch op {
	case streamOpMethod:
		if !rd.src.fill(5) {
			return io.ErrUnexpectedEOF
		}
		n := int(binary.LittleEndian.Uint16(rd.src.buffered()[3:]))
		if !rd.src.fill(5 + n) {
			return io.ErrUnexpectedEOF
		}
		line := string(bytes.TrimRight(rd.src.buffered()[5:5+n], "\n"))
		rd.src.consume(5 + n)
		if len(rd.hdr.Methods) >= rd.lim.MaxMethods {
			return rd.dataFail(off, "streaming method", fmt.Errorf("%w: more than %d methods", ErrLimit, rd.lim.MaxMethods))
		}
		m, problem := parseMethodLine(line)
		if problem != "" {
			rd.warn(WarnKey, off, "streaming method record: %s", problem)
			return nil
		}
		if m.ID&3 != 0 || !rd.methods.add(m.ID, int32(len(rd.hdr.Methods))) {
			rd.warn(WarnKey, off, "streaming method id %#x is invalid or repeated; ignored", m.ID)
			return nil
		}
		rd.hdr.Methods = append(rd.hdr.Methods, m)
	case streamOpThread:
		if !rd.src.fill(7) {
			return io.ErrUnexpectedEOF
		}
		b := rd.src.buffered()
		tid := binary.LittleEndian.Uint16(b[3:])
		n := int(binary.LittleEndian.Uint16(b[5:]))
		if !rd.src.fill(7 + n) {
			return io.ErrUnexpectedEOF
		}
		name := string(rd.src.buffered()[7 : 7+n])
		rd.src.consume(7 + n)
		rd.setThreadName(uint32(tid), name)
	case streamOpSummary:
		if !rd.src.fill(7) {
			return io.ErrUnexpectedEOF
		}
		n := int64(binary.LittleEndian.Uint32(rd.src.buffered()[3:]))
		if n > rd.lim.MaxKeyBytes {
			return rd.dataFail(off, "streaming summary", fmt.Errorf("%w: %d bytes", ErrLimit, n))
		}
		rd.src.consume(7)
		text, ok := rd.readBytes(int(n))
		if !ok {
			return io.ErrUnexpectedEOF
		}
		rd.applySummary(text, off, false)
	default:
		return rd.dataFail(off, "streaming control record", fmt.Errorf("%w: opcode %d", ErrMalformed, op))
	}
	return nil
}

// readBytes reads n bytes that may be longer than the buffer; n was bounded
// by the caller, and memory grows only as bytes arrive.
func (rd *Reader) readBytes(n int) ([]byte, bool) {
	var out []byte
	for n > 0 {
		if !rd.src.fill(1) {
			return nil, false
		}
		b := rd.src.buffered()
		k := min(n, len(b))
		out = append(out, b[:k]...)
		rd.src.consume(k)
		n -= k
	}
	return out, true
}

func (rd *Reader) setThreadName(id uint32, name string) {
	if rd.threadAt == nil || rd.threadAtLen != len(rd.hdr.Threads) {
		// Made (again) from the header's threads: a lookup per thread
		// packet, not a scan (a scan was quadratic in the threads).
		rd.threadAt = make(map[uint32]int, len(rd.hdr.Threads))
		for i, t := range rd.hdr.Threads {
			if _, dup := rd.threadAt[t.ID]; !dup {
				rd.threadAt[t.ID] = i // the first, as the scan found
			}
		}
		rd.threadAtLen = len(rd.hdr.Threads)
	}
	if i, ok := rd.threadAt[id]; ok {
		rd.hdr.Threads[i].Name = name
		return
	}
	rd.threadAt[id] = len(rd.hdr.Threads)
	rd.hdr.Threads = append(rd.hdr.Threads, Thread{ID: id, Name: name})
	rd.threadAtLen = len(rd.hdr.Threads)
}

// applySummary merges the trace summary (key text without methods): options,
// threads, and the clock, which for single-clock streams is only known now.
func (rd *Reader) applySummary(text []byte, off int64, v2 bool) {
	var ws Warnings
	ws.limit = rd.lim.MaxWarnings
	kp := keyParser{src: newSourceBytes(text), lim: rd.lim, ws: &ws, part: "summary", summaryV2: v2}
	if !bytes.HasPrefix(text, []byte("*version")) {
		text = append([]byte("*version\n"), text...)
		kp.src = newSourceBytes(text)
	}
	sum, err := kp.parse()
	if err != nil {
		rd.warn(WarnKey, off, "streaming summary unreadable: %v", err)
		return
	}
	rd.hdr.Options = sum.Options
	for _, t := range sum.Threads {
		rd.setThreadName(t.ID, t.Name)
	}
	if v, ok := sum.Option("clock"); ok && rd.provisional {
		if c, known := ParseClocks(strings.TrimSpace(v)); known && c != Dual {
			rd.hdr.Clocks = c
		}
	}
}

func newSourceBytes(b []byte) *source {
	return &source{r: bytes.NewReader(b), buf: make([]byte, min(len(b)+1, sourceBufferSize))}
}
