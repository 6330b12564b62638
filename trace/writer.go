package trace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrInvalid is returned by the writer for a header or event it cannot
// represent (a dual clock in version 2, a thread id over 255 in version 1,
// a name containing a tab or newline, ...).
var ErrInvalid = errors.New("trace: cannot encode")

// Writer produces a trace file: the key text, the data header, then one
// record per WriteEvent — exactly what a VM writes to a file and what DDM's
// MPSE chunk carries (spec §1). With Header.Streaming it writes ART's
// streaming format instead (spec §5): metadata inline, summary at Close.
type Writer struct {
	w         *bufio.Writer
	h         Header
	rs        int
	dual      bool
	first     Clock // clock of the single time field
	rec       []byte
	announced indexTable // streaming: method ids and threads already described
	methodOf  map[uint32]int
	err       error
	closed    bool
}

// normalize fills the header defaults and checks that it can be written.
func normalize(h *Header) (Header, error) {
	n := *h
	if n.Version < 1 || n.Version > 3 {
		return n, fmt.Errorf("%w: version %d", ErrInvalid, n.Version)
	}
	if n.Clocks == 0 {
		n.Clocks = CPUOnly
		if n.Version == 3 {
			n.Clocks = Dual
		}
	}
	if n.Clocks != CPUOnly && n.Clocks != WallOnly && n.Clocks != Dual {
		return n, fmt.Errorf("%w: clocks %d", ErrInvalid, n.Clocks)
	}
	if n.Clocks == Dual && n.Version != 3 {
		return n, fmt.Errorf("%w: a dual clock needs version 3", ErrInvalid)
	}
	fixed := headerFixedV12
	if n.Version == 3 || n.Streaming {
		fixed = headerFixedV3
	}
	if n.DataOffset == 0 {
		n.DataOffset = DefaultDataOffset
	}
	if n.DataOffset < fixed || n.DataOffset > 0xFFFF {
		return n, fmt.Errorf("%w: data offset %d", ErrInvalid, n.DataOffset)
	}
	want := recordSizeV2
	switch {
	case n.Version == 1:
		want = recordSizeV1
	case n.Clocks == Dual:
		want = recordSizeDual
	}
	if n.RecordSize == 0 {
		n.RecordSize = want
	}
	if n.Version != 3 && n.RecordSize != want {
		return n, fmt.Errorf("%w: version %d records are %d bytes, not %d", ErrInvalid, n.Version, want, n.RecordSize)
	}
	if n.RecordSize < want || n.RecordSize > 0xFFFF {
		return n, fmt.Errorf("%w: record size %d", ErrInvalid, n.RecordSize)
	}
	if n.Streaming && n.Version == 1 {
		return n, fmt.Errorf("%w: streaming traces are version 2 or 3", ErrInvalid)
	}
	if v, ok := n.Option("clock"); ok {
		if c, known := ParseClocks(v); known && c != n.Clocks {
			return n, fmt.Errorf("%w: option clock=%s contradicts clocks %s", ErrInvalid, v, n.Clocks)
		}
	}
	for _, o := range n.Options {
		if o.Key == "" || strings.ContainsAny(o.Key, "=\n") || strings.HasPrefix(o.Key, "*") || strings.Contains(o.Value, "\n") {
			return n, fmt.Errorf("%w: option %q=%q", ErrInvalid, o.Key, o.Value)
		}
	}
	for _, t := range n.Threads {
		if strings.Contains(t.Name, "\n") {
			return n, fmt.Errorf("%w: thread %d name contains a newline", ErrInvalid, t.ID)
		}
	}
	for _, m := range n.Methods {
		if m.ID&3 != 0 {
			return n, fmt.Errorf("%w: method id %#x has the action bits set", ErrInvalid, m.ID)
		}
		for _, f := range []string{m.Class, m.Name, m.Signature, m.File} {
			if strings.ContainsAny(f, "\t\n") {
				return n, fmt.Errorf("%w: method %#x: field %q contains a tab or newline", ErrInvalid, m.ID, f)
			}
		}
		if m.Class == "" {
			return n, fmt.Errorf("%w: method %#x has no class", ErrInvalid, m.ID)
		}
	}
	n.DataVersion = n.Version
	if n.Streaming {
		n.DataVersion |= StreamingFlag
	}
	return n, nil
}

// AppendKey appends the key section of h (spec §2), ending with "*end\n".
// A clock= option is written first when h.Options has none.
func AppendKey(dst []byte, h *Header) ([]byte, error) {
	n, err := normalize(h)
	if err != nil {
		return dst, err
	}
	return appendKey(dst, &n, true), nil
}

func appendKey(dst []byte, h *Header, withMethods bool) []byte {
	dst = append(dst, "*version\n"...)
	dst = strconv.AppendInt(dst, int64(h.Version), 10)
	dst = append(dst, '\n')
	if _, ok := h.Option("clock"); !ok {
		dst = append(dst, "clock="...)
		dst = append(dst, h.Clocks.String()...)
		dst = append(dst, '\n')
	}
	for _, o := range h.Options {
		dst = append(dst, o.Key...)
		dst = append(dst, '=')
		dst = append(dst, o.Value...)
		dst = append(dst, '\n')
	}
	dst = append(dst, "*threads\n"...)
	for _, t := range h.Threads {
		dst = strconv.AppendUint(dst, uint64(t.ID), 10)
		dst = append(dst, '\t')
		dst = append(dst, t.Name...)
		dst = append(dst, '\n')
	}
	if withMethods {
		dst = append(dst, "*methods\n"...)
		for i := range h.Methods {
			dst = append(dst, formatMethodLine(&h.Methods[i])...)
			dst = append(dst, '\n')
		}
	}
	return append(dst, "*end\n"...)
}

func appendDataHeader(dst []byte, h *Header) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, Magic)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(h.DataVersion))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(h.DataOffset))
	dst = binary.LittleEndian.AppendUint64(dst, h.StartTime)
	if h.Version == 3 || h.Streaming {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(h.RecordSize))
	}
	for len(dst)-start < h.DataOffset {
		dst = append(dst, 0)
	}
	return dst
}

// NewWriter writes the key (not for streaming traces) and the data header of
// h to w and returns a Writer for the records. Missing header fields take
// the VMs' values: data offset 32, record size from version and clocks,
// clocks dual for version 3 and thread-cpu otherwise.
func NewWriter(w io.Writer, h *Header) (*Writer, error) {
	n, err := normalize(h)
	if err != nil {
		return nil, err
	}
	wr := &Writer{w: bufio.NewWriterSize(w, 1<<16), h: n, rs: n.RecordSize, dual: n.Clocks == Dual, first: n.Clocks.First()}
	wr.rec = make([]byte, n.RecordSize)
	var head []byte
	if !n.Streaming {
		head = appendKey(head, &n, true)
	} else {
		wr.methodOf = make(map[uint32]int, len(n.Methods))
		for i, m := range n.Methods {
			if _, dup := wr.methodOf[m.ID]; !dup {
				wr.methodOf[m.ID] = i
			}
		}
	}
	head = appendDataHeader(head, &n)
	if _, err := wr.w.Write(head); err != nil {
		return nil, err
	}
	return wr, nil
}

// WriteEvent appends one record. Action 3 is written as given (for tests of
// malformed input); method ids need not be in the key (they read back as
// unknown).
func (w *Writer) WriteEvent(ev Event) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("%w: writer is closed", ErrInvalid)
	}
	if ev.MethodID&3 != 0 || ev.Action > 3 {
		return fmt.Errorf("%w: method %#x action %d", ErrInvalid, ev.MethodID, ev.Action)
	}
	if w.h.Version == 1 && ev.Thread > 0xFF {
		return fmt.Errorf("%w: thread %d does not fit version 1's byte", ErrInvalid, ev.Thread)
	}
	if w.h.Streaming {
		if ev.Thread == 0 {
			return fmt.Errorf("%w: thread 0 marks control records in streaming traces", ErrInvalid)
		}
		if err := w.announce(ev); err != nil {
			w.err = err
			return err
		}
	}
	b := w.rec
	word := ev.MethodID | uint32(ev.Action)
	if w.h.Version == 1 {
		b[0] = byte(ev.Thread)
		binary.LittleEndian.PutUint32(b[1:], word)
		binary.LittleEndian.PutUint32(b[5:], ev.Time[w.first])
	} else {
		binary.LittleEndian.PutUint16(b, ev.Thread)
		binary.LittleEndian.PutUint32(b[2:], word)
		if w.dual {
			binary.LittleEndian.PutUint32(b[6:], ev.Time[ClockCPU])
			binary.LittleEndian.PutUint32(b[10:], ev.Time[ClockWall])
		} else {
			binary.LittleEndian.PutUint32(b[6:], ev.Time[w.first])
		}
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = err
		return err
	}
	return nil
}

// announce writes the streaming control records for a thread or method seen
// for the first time (spec §5).
func (w *Writer) announce(ev Event) error {
	const threadKey = 1 << 40
	if _, added := w.announced.getOrPut(threadKey|uint64(ev.Thread), 0); added {
		name := ""
		for _, t := range w.h.Threads {
			if t.ID == uint32(ev.Thread) {
				name = t.Name
				break
			}
		}
		if len(name) > 0xFFFF {
			return fmt.Errorf("%w: thread name longer than 65535 bytes", ErrInvalid)
		}
		var c []byte
		c = binary.LittleEndian.AppendUint16(c, 0)
		c = append(c, streamOpThread)
		c = binary.LittleEndian.AppendUint16(c, ev.Thread)
		c = binary.LittleEndian.AppendUint16(c, uint16(len(name)))
		c = append(c, name...)
		if _, err := w.w.Write(c); err != nil {
			return err
		}
	}
	i, known := w.methodOf[ev.MethodID]
	if !known {
		return nil
	}
	if _, added := w.announced.getOrPut(uint64(ev.MethodID), 0); added {
		line := formatMethodLine(&w.h.Methods[i]) + "\n"
		if len(line) > 0xFFFF {
			return fmt.Errorf("%w: method line longer than 65535 bytes", ErrInvalid)
		}
		var c []byte
		c = binary.LittleEndian.AppendUint16(c, 0)
		c = append(c, streamOpMethod)
		c = binary.LittleEndian.AppendUint16(c, uint16(len(line)))
		c = append(c, line...)
		if _, err := w.w.Write(c); err != nil {
			return err
		}
	}
	return nil
}

// Close flushes the records; a streaming trace gets its summary (key text
// without methods) first. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if w.h.Streaming {
		text := appendKey(nil, &w.h, false)
		var c []byte
		c = binary.LittleEndian.AppendUint16(c, 0)
		c = append(c, streamOpSummary)
		c = binary.LittleEndian.AppendUint32(c, uint32(len(text)))
		c = append(c, text...)
		if _, err := w.w.Write(c); err != nil {
			w.err = err
			return err
		}
	}
	w.err = w.w.Flush()
	return w.err
}

// Encode writes t as a trace file.
func Encode(w io.Writer, t *Trace) error {
	wr, err := NewWriter(w, &t.Header)
	if err != nil {
		return err
	}
	for _, ev := range t.Events {
		if err := wr.WriteEvent(ev); err != nil {
			return err
		}
	}
	return wr.Close()
}

// MarshalBinary returns the bytes of t as a trace file. For a non-streaming
// trace this is also the body of the MPSE chunk a VM sends when DDM method
// profiling stops (spec §1, ddm-chunks.md §8).
func (t *Trace) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	if err := Encode(&buf, t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Decode reads a whole trace into memory: header and every event. Use
// Reader and ProfileBuilder for large files; Decode keeps one Event per
// record.
func Decode(r io.Reader, lim Limits) (*Trace, *Warnings, error) {
	rd, err := NewReader(r, lim)
	if err != nil {
		return nil, nil, err
	}
	startClocks := rd.Header().Clocks
	t := &Trace{}
	batch := make([]Record, recordBatch)
	for {
		n, err := rd.Read(batch)
		for _, rec := range batch[:n] {
			if rec.Thread > 0xFFFF {
				return nil, rd.Warnings(), &FormatError{Offset: rec.Offset, What: "record", Err: fmt.Errorf("%w: thread id %d does not fit an Event's 16 bits (use Reader)", ErrLimit, rec.Thread)}
			}
			t.Events = append(t.Events, Event{Thread: uint16(rec.Thread), Action: rec.Action, MethodID: rec.MethodID, Time: rec.Time})
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, rd.Warnings(), err
		}
	}
	t.Header = *rd.Header()
	if startClocks == CPUOnly && t.Clocks == WallOnly {
		for i := range t.Events {
			e := &t.Events[i]
			e.Time[0], e.Time[1] = e.Time[1], e.Time[0]
		}
	}
	return t, rd.Warnings(), nil
}
