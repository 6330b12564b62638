// Package simpleperf reads and writes the stream of `simpleperf
// report-sample --protobuf` (spec/simpleperf.md): the magic "SIMPLEPERF", a
// little-endian u16 version, then records, each a little-endian u32 size and
// a serialized Record message, until a size of 0. Reader streams it a
// record at a time (one reusable buffer, bounded by Limits), with one small
// protowire decoder per message (decode.go); Load feeds the samples into
// trace's call-tree model (load.go), so the trace viewer, its exports and
// the JSON serve sampled profiles as they serve method traces. Writer and
// Gen produce streams with known trees for tests and benchmarks.
package simpleperf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Magic and Version open every stream (cmd_report_sample.cpp).
const (
	Magic   = "SIMPLEPERF"
	Version = 1
)

// HeaderSize is the bytes before the first record: the magic and the version.
const HeaderSize = len(Magic) + 2

// Errors a *FormatError wraps.
var (
	ErrMagic     = errors.New("not a simpleperf report-sample stream (bad magic)")
	ErrVersion   = errors.New("unsupported version")
	ErrTruncated = errors.New("stream ends inside a record")
	ErrNoEnd     = errors.New("stream ends without its end record (size 0)")
	ErrTooLarge  = errors.New("record larger than the limit")
	ErrLimit     = errors.New("past a limit")
	ErrWireType  = errors.New("wrong wire type")
	ErrMalformed = errors.New("malformed protobuf")
	ErrEmpty     = errors.New("record with no content")
)

// FormatError says where a stream is broken: the record (numbered from 1;
// 0 for the header), its offset in the stream and what was being read.
type FormatError struct {
	Record int64
	Offset int64
	What   string
	Err    error
}

func (e *FormatError) Error() string {
	if e.Record == 0 {
		return fmt.Sprintf("simpleperf: header: %s: %v", e.What, e.Err)
	}
	return fmt.Sprintf("simpleperf: record %d (offset %d): %s: %v", e.Record, e.Offset, e.What, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Limits bound what a stream may claim; zero fields take the defaults.
type Limits struct {
	// MaxRecord is the largest record (default 64 MiB: a file record with
	// a big symbol table is the largest simpleperf writes).
	MaxRecord int
	// MaxCallChain is the most frames of one sample (default 262,144).
	MaxCallChain int
	// MaxSymbols is the most symbols of one file (default 4 Mi).
	MaxSymbols int
}

// Default limits.
const (
	DefaultMaxRecord    = 64 << 20
	DefaultMaxCallChain = 1 << 18
	DefaultMaxSymbols   = 4 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxRecord <= 0 {
		l.MaxRecord = DefaultMaxRecord
	}
	if l.MaxCallChain <= 0 {
		l.MaxCallChain = DefaultMaxCallChain
	}
	if l.MaxSymbols <= 0 {
		l.MaxSymbols = DefaultMaxSymbols
	}
	return l
}

// Kind is the record type (the Record message's oneof).
type Kind int

// Record kinds, by their field number in Record.
const (
	KindSample        Kind = 1
	KindLost          Kind = 2
	KindFile          Kind = 3
	KindThread        Kind = 4
	KindMeta          Kind = 5
	KindContextSwitch Kind = 6
)

func (k Kind) String() string {
	switch k {
	case KindSample:
		return "sample"
	case KindLost:
		return "lost"
	case KindFile:
		return "file"
	case KindThread:
		return "thread"
	case KindMeta:
		return "meta_info"
	case KindContextSwitch:
		return "context_switch"
	}
	return fmt.Sprintf("kind %d", int(k))
}

// Reader reads a stream record by record. After Next returns a kind, the
// matching field (Sample, Lost, File, Thread, Meta, Switch) holds the
// record; Sample.Callchain is reused by the next call, the strings are
// fresh. Memory is one record buffer (at most Limits.MaxRecord, grown in
// steps as the bytes arrive, never from the size a record claims) and the
// current record.
type Reader struct {
	Version uint16

	Sample Sample
	Lost   Lost
	File   File
	Thread Thread
	Meta   MetaInfo
	Switch ContextSwitch

	// rawChains (Load's) leaves call chains undecoded: Sample.Callchain
	// is empty and the entries (each its whole field: tag, length and
	// CallChainEntry) lie one after another in chainBytes, entry i ending
	// at chainEnds[i]; chainBytes is the record's own bytes (valid until
	// the next record) when the entries were one run there, else
	// chainCopy.
	rawChains            bool
	chainBytes           []byte
	chainEnds            []int32
	chainStart, chainEnd int
	chainCopied          bool
	chainCopy            []byte

	r      *bufio.Reader
	lim    Limits
	buf    []byte
	sz     [4]byte // a record's size (a field: a local would escape through io.ReadFull)
	record int64   // records read, the current one included
	off    int64   // stream offset of the current record's size
	next   int64   // stream offset of the next record's size
	done   bool
}

// NewReader reads the header and returns a reader positioned at the first
// record.
func NewReader(r io.Reader, lim Limits) (*Reader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 1<<20 {
		br = bufio.NewReaderSize(r, 1<<20)
	}
	var h [HeaderSize]byte
	if n, err := io.ReadFull(br, h[:]); err != nil {
		if n >= len(Magic) && string(h[:len(Magic)]) == Magic {
			return nil, &FormatError{What: "version", Err: ErrTruncated}
		}
		return nil, &FormatError{What: "magic", Err: ErrMagic}
	}
	if string(h[:len(Magic)]) != Magic {
		return nil, &FormatError{What: "magic", Err: ErrMagic}
	}
	v := binary.LittleEndian.Uint16(h[len(Magic):])
	if v != Version {
		return nil, &FormatError{What: "version", Err: fmt.Errorf("%w %d (this reader knows %d)", ErrVersion, v, Version)}
	}
	return &Reader{Version: v, r: br, lim: lim.withDefaults(), next: int64(HeaderSize)}, nil
}

// Sniff reports whether b (the first bytes of a file) opens a report-sample
// stream.
func Sniff(b []byte) bool {
	return len(b) >= len(Magic) && string(b[:len(Magic)]) == Magic
}

// Record is the number of the record Next returned last (from 1).
func (r *Reader) Record() int64 { return r.record }

// Offset is the stream offset of the record Next returned last.
func (r *Reader) Offset() int64 { return r.off }

// BytesRead is the stream bytes consumed so far.
func (r *Reader) BytesRead() int64 { return r.next }

func (r *Reader) fail(what string, err error) error {
	return &FormatError{Record: r.record, Offset: r.off, What: what, Err: err}
}

// Next reads the next record and returns its kind; io.EOF after the end
// record. A record that is none of the known kinds (a newer simpleperf) is
// skipped.
func (r *Reader) Next() (Kind, error) {
	for {
		if r.done {
			return 0, io.EOF
		}
		r.record++
		r.off = r.next
		sz := r.sz[:]
		if n, err := io.ReadFull(r.r, sz); err != nil {
			if n == 0 && err == io.EOF {
				return 0, r.fail("size", ErrNoEnd)
			}
			return 0, r.fail("size", ErrTruncated)
		}
		size := binary.LittleEndian.Uint32(sz)
		r.next += 4
		if size == 0 {
			r.done = true
			return 0, io.EOF
		}
		if int64(size) > int64(r.lim.MaxRecord) {
			return 0, r.fail("size", fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, size, r.lim.MaxRecord))
		}
		var body []byte
		var err error
		peeked := int(size) <= r.r.Size()
		if peeked {
			// Decoded in the reader's own buffer: nothing decoded points
			// into it (strings are copied), so no copy of the record.
			if body, err = r.r.Peek(int(size)); err != nil {
				return 0, r.fail("body", ErrTruncated)
			}
		} else if body, err = r.read(int(size)); err != nil {
			return 0, r.fail("body", err)
		}
		r.next += int64(size)
		k, err := r.decodeRecord(body)
		if peeked {
			r.r.Discard(int(size))
		}
		if err != nil {
			return 0, err
		}
		if k != 0 {
			return k, nil
		}
	}
}

// read reads n bytes into the record buffer, growing it at most 1 MiB
// beyond what has arrived, so a size past the end of a short stream costs
// no more than the stream.
func (r *Reader) read(n int) ([]byte, error) {
	const step = 1 << 20
	if n <= cap(r.buf) {
		r.buf = r.buf[:n]
		if _, err := io.ReadFull(r.r, r.buf); err != nil {
			return nil, ErrTruncated
		}
		return r.buf, nil
	}
	r.buf = r.buf[:0]
	for len(r.buf) < n {
		k := min(n-len(r.buf), step)
		if cap(r.buf)-len(r.buf) < k {
			nb := make([]byte, len(r.buf), len(r.buf)+max(k, min(n-len(r.buf), len(r.buf))))
			copy(nb, r.buf)
			r.buf = nb
		}
		got, err := io.ReadFull(r.r, r.buf[len(r.buf):len(r.buf)+k])
		r.buf = r.buf[:len(r.buf)+got]
		if err != nil {
			return nil, ErrTruncated
		}
	}
	return r.buf, nil
}
