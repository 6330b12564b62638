package adb

import (
	"errors"
	"fmt"
)

// A small protobuf wire-format reader and writer for the one message adb
// sends in protobuf, track-app's AppProcesses (spec/adb-track-app.md). Six
// scalar fields and one repeated string do not justify a code generator and
// a runtime dependency; this reads the wire format by hand, every length
// checked against the bytes that are there before anything is taken.

// Protobuf wire types (protobuf encoding: key = field<<3 | wire type).
const (
	pbVarint  = 0
	pbFixed64 = 1
	pbBytes   = 2
	pbFixed32 = 5
)

// maxVarintLen is the longest varint: 64 bits in 7-bit groups.
const maxVarintLen = 10

// Errors of the protobuf reader; a *pbError says where.
var (
	errPBTruncated = errors.New("truncated")
	errPBOverflow  = errors.New("varint longer than 64 bits")
	errPBWireType  = errors.New("unsupported wire type")
	errPBField     = errors.New("field number 0")
)

// pbError is a decoding error at a byte offset of the message.
type pbError struct {
	Off  int
	What string // what was being read: "key", "pid", "length"
	Err  error
}

func (e *pbError) Error() string {
	return fmt.Sprintf("protobuf: %s at offset %d: %v", e.What, e.Off, e.Err)
}
func (e *pbError) Unwrap() error { return e.Err }

// pbReader reads protobuf fields from b, from off on. It never reads past
// b and never allocates from a length it was told.
type pbReader struct {
	b   []byte
	off int
}

func (r *pbReader) done() bool { return r.off >= len(r.b) }

func (r *pbReader) fail(what string, err error) error {
	return &pbError{Off: r.off, What: what, Err: err}
}

// varint reads one base-128 varint.
func (r *pbReader) varint(what string) (uint64, error) {
	var v uint64
	for i := 0; i < maxVarintLen; i++ {
		if r.off+i >= len(r.b) {
			return 0, r.fail(what, errPBTruncated)
		}
		c := r.b[r.off+i]
		if i == maxVarintLen-1 && c > 1 {
			return 0, r.fail(what, errPBOverflow)
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.off += i + 1
			return v, nil
		}
	}
	return 0, r.fail(what, errPBOverflow)
}

// key reads a field key.
func (r *pbReader) key() (field uint64, wire int, err error) {
	k, err := r.varint("key")
	if err != nil {
		return 0, 0, err
	}
	if k>>3 == 0 {
		return 0, 0, r.fail("key", errPBField)
	}
	return k >> 3, int(k & 7), nil
}

// bytes reads a length-delimited value; the result aliases b.
func (r *pbReader) bytes(what string) ([]byte, error) {
	start := r.off
	n, err := r.varint(what + " length")
	if err != nil {
		return nil, err
	}
	if left := len(r.b) - r.off; n > uint64(left) {
		r.off = start
		return nil, r.fail(what, fmt.Errorf("%w: length %d, %d bytes left", errPBTruncated, n, left))
	}
	v := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return v, nil
}

// skip passes over the value of an unknown field of the given wire type.
func (r *pbReader) skip(field uint64, wire int) error {
	what := fmt.Sprintf("field %d", field)
	switch wire {
	case pbVarint:
		_, err := r.varint(what)
		return err
	case pbBytes:
		_, err := r.bytes(what)
		return err
	case pbFixed64, pbFixed32:
		n := 8
		if wire == pbFixed32 {
			n = 4
		}
		if len(r.b)-r.off < n {
			return r.fail(what, errPBTruncated)
		}
		r.off += n
		return nil
	}
	return r.fail(what, fmt.Errorf("%w %d", errPBWireType, wire))
}

// checkWire fails when a known field arrives with another wire type.
func (r *pbReader) checkWire(field uint64, wire, want int) error {
	if wire != want {
		return r.fail(fmt.Sprintf("field %d", field), fmt.Errorf("wire type %d, want %d", wire, want))
	}
	return nil
}

// pbAppendVarint appends v as a varint.
func pbAppendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func pbAppendKey(b []byte, field, wire int) []byte {
	return pbAppendVarint(b, uint64(field)<<3|uint64(wire))
}

func pbAppendBytes(b []byte, field int, v []byte) []byte {
	b = pbAppendKey(b, field, pbBytes)
	b = pbAppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// pbAppendInt appends an int64 or bool field (a negative int64 takes ten
// bytes, as protobuf encodes it).
func pbAppendInt(b []byte, field int, v int64) []byte {
	b = pbAppendKey(b, field, pbVarint)
	return pbAppendVarint(b, uint64(v))
}
