// Package wire holds the one byte-decoding shape used by jdwp/ and ddm/: a
// bounds-checked big-endian Reader with a sticky error that records the offset
// of the first failure, and an append-based Writer.
//
// A length read from the wire is a claim, not a fact: Reader never allocates
// more than the bytes it actually holds, so a hostile length field yields a
// FormatError instead of a large allocation.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
)

// ErrShort is wrapped by a FormatError when the data ends before a field.
var ErrShort = errors.New("data ends early")

// ErrTooLong is wrapped by a FormatError when a length field exceeds what the
// buffer can hold or a configured limit.
var ErrTooLong = errors.New("length exceeds the data")

// ErrTrailing is wrapped by a FormatError when bytes remain after the last
// field of a fixed layout.
var ErrTrailing = errors.New("unexpected bytes after the last field")

// FormatError reports malformed input: what was being read, at which byte
// offset, and why.
type FormatError struct {
	Offset int    // byte offset of the failing field from the start of the buffer
	What   string // field name, e.g. "thread count"
	Err    error  // ErrShort, ErrTooLong, or a specific cause
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s at offset %d: %v", e.What, e.Offset, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Reader reads big-endian values from a byte slice. After the first failure
// every further read returns zero values and Err reports that first failure.
type Reader struct {
	buf  []byte
	off  int
	base int // added to offsets in errors (position of buf in a larger frame)
	err  error
}

// NewReader returns a Reader over b. base is added to offsets reported in
// errors, so a chunk body decoder can report offsets within its packet.
func NewReader(b []byte, base int) *Reader { return &Reader{buf: b, base: base} }

// Err returns the first error, or nil.
func (r *Reader) Err() error { return r.err }

// Offset is the current position relative to the start of the buffer.
func (r *Reader) Offset() int { return r.off }

// Len is the number of unread bytes.
func (r *Reader) Len() int { return len(r.buf) - r.off }

// Rest returns the unread bytes (without copying) and consumes them.
func (r *Reader) Rest() []byte {
	if r.err != nil {
		return nil
	}
	b := r.buf[r.off:]
	r.off = len(r.buf)
	return b
}

// Fail records err (if no earlier error exists) at the current offset.
func (r *Reader) Fail(what string, err error) {
	if r.err == nil {
		r.err = &FormatError{Offset: r.base + r.off, What: what, Err: err}
	}
}

// Failf records a formatted failure at the current offset.
func (r *Reader) Failf(what, format string, args ...any) {
	r.Fail(what, fmt.Errorf(format, args...))
}

func (r *Reader) need(n int, what string) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.Len() < n {
		r.Fail(what, ErrShort)
		return false
	}
	return true
}

// U1 reads one byte.
func (r *Reader) U1(what string) uint8 {
	if !r.need(1, what) {
		return 0
	}
	v := r.buf[r.off]
	r.off++
	return v
}

// Bool reads one byte as a boolean (non-zero is true).
func (r *Reader) Bool(what string) bool { return r.U1(what) != 0 }

// U2 reads a big-endian uint16.
func (r *Reader) U2(what string) uint16 {
	if !r.need(2, what) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.buf[r.off:])
	r.off += 2
	return v
}

// S2 reads a big-endian int16.
func (r *Reader) S2(what string) int16 { return int16(r.U2(what)) }

// U4 reads a big-endian uint32.
func (r *Reader) U4(what string) uint32 {
	if !r.need(4, what) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.buf[r.off:])
	r.off += 4
	return v
}

// S4 reads a big-endian int32.
func (r *Reader) S4(what string) int32 { return int32(r.U4(what)) }

// U8 reads a big-endian uint64.
func (r *Reader) U8(what string) uint64 {
	if !r.need(8, what) {
		return 0
	}
	v := binary.BigEndian.Uint64(r.buf[r.off:])
	r.off += 8
	return v
}

// U2LE reads a little-endian uint16 (for the few layouts that copy a
// little-endian C struct, such as DDM's NHGT reply).
func (r *Reader) U2LE(what string) uint16 {
	if !r.need(2, what) {
		return 0
	}
	v := binary.LittleEndian.Uint16(r.buf[r.off:])
	r.off += 2
	return v
}

// U4LE reads a little-endian uint32.
func (r *Reader) U4LE(what string) uint32 {
	if !r.need(4, what) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.buf[r.off:])
	r.off += 4
	return v
}

// U8LE reads a little-endian uint64.
func (r *Reader) U8LE(what string) uint64 {
	if !r.need(8, what) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.buf[r.off:])
	r.off += 8
	return v
}

// Count checks a count read from the wire before anything is allocated for
// it: n elements of at least minSize bytes each must fit in the unread
// bytes. It returns n as an int, or 0 after recording ErrTooLong. minSize
// values below 1 are treated as 1.
func (r *Reader) Count(n uint64, minSize int, what string) int {
	if r.err != nil {
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	if n > uint64(r.Len())/uint64(minSize) {
		r.Fail(what, ErrTooLong)
		return 0
	}
	return int(n)
}

// End records ErrTrailing if unread bytes remain. Call it after the last
// field of a layout that must fill its buffer exactly.
func (r *Reader) End(what string) {
	if r.err == nil && r.Len() > 0 {
		r.Fail(what, ErrTrailing)
	}
}

// ID reads a big-endian unsigned id of size bytes (1..8), as JDWP object,
// method and field ids whose size the VM chooses.
func (r *Reader) ID(size int, what string) uint64 {
	if size < 1 || size > 8 {
		r.Failf(what, "id size %d out of range 1..8", size)
		return 0
	}
	if !r.need(size, what) {
		return 0
	}
	var v uint64
	for _, b := range r.buf[r.off : r.off+size] {
		v = v<<8 | uint64(b)
	}
	r.off += size
	return v
}

// Bytes returns the next n bytes without copying.
func (r *Reader) Bytes(n int, what string) []byte {
	if !r.need(n, what) {
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// Skip advances n bytes.
func (r *Reader) Skip(n int, what string) { r.Bytes(n, what) }

// UTF16 reads n UTF-16BE code units (2n bytes) and returns them as a Go
// string. n is checked against the remaining bytes before anything is
// allocated.
func (r *Reader) UTF16(n uint32, what string) string {
	if r.err != nil {
		return ""
	}
	if uint64(n)*2 > uint64(r.Len()) {
		r.Fail(what, ErrTooLong)
		return ""
	}
	b := r.Bytes(int(n)*2, what)
	return DecodeUTF16(b)
}

// DDMString reads a DDM string: u4 count of UTF-16 units, then the units.
func (r *Reader) DDMString(what string) string {
	n := r.U4(what)
	return r.UTF16(n, what)
}

// JDWPString reads a JDWP string: u4 byte length, then UTF-8 bytes.
func (r *Reader) JDWPString(what string) string {
	n := r.U4(what)
	if r.err != nil {
		return ""
	}
	if uint64(n) > uint64(r.Len()) {
		r.Fail(what, ErrTooLong)
		return ""
	}
	return string(r.Bytes(int(n), what))
}

// DecodeUTF16 converts UTF-16BE bytes (even length) to a Go string. Unpaired
// surrogates become U+FFFD.
func DecodeUTF16(b []byte) string {
	ascii := true
	for i := 0; i+1 < len(b); i += 2 {
		if b[i] != 0 || b[i+1] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		out := make([]byte, len(b)/2)
		for i := range out {
			out[i] = b[2*i+1]
		}
		return string(out)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.BigEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

// Writer appends big-endian values to a byte slice.
type Writer struct{ B []byte }

// U1 appends one byte.
func (w *Writer) U1(v uint8) { w.B = append(w.B, v) }

// Bool appends 1 or 0.
func (w *Writer) Bool(v bool) {
	if v {
		w.U1(1)
	} else {
		w.U1(0)
	}
}

// U2 appends a big-endian uint16.
func (w *Writer) U2(v uint16) { w.B = binary.BigEndian.AppendUint16(w.B, v) }

// S2 appends a big-endian int16.
func (w *Writer) S2(v int16) { w.U2(uint16(v)) }

// U4 appends a big-endian uint32.
func (w *Writer) U4(v uint32) { w.B = binary.BigEndian.AppendUint32(w.B, v) }

// S4 appends a big-endian int32.
func (w *Writer) S4(v int32) { w.U4(uint32(v)) }

// U8 appends a big-endian uint64.
func (w *Writer) U8(v uint64) { w.B = binary.BigEndian.AppendUint64(w.B, v) }

// U2LE appends a little-endian uint16.
func (w *Writer) U2LE(v uint16) { w.B = binary.LittleEndian.AppendUint16(w.B, v) }

// U4LE appends a little-endian uint32.
func (w *Writer) U4LE(v uint32) { w.B = binary.LittleEndian.AppendUint32(w.B, v) }

// U8LE appends a little-endian uint64.
func (w *Writer) U8LE(v uint64) { w.B = binary.LittleEndian.AppendUint64(w.B, v) }

// ID appends v as a big-endian id of size bytes (1..8).
func (w *Writer) ID(size int, v uint64) {
	for i := size - 1; i >= 0; i-- {
		w.B = append(w.B, byte(v>>(8*uint(i))))
	}
}

// Bytes appends raw bytes.
func (w *Writer) Bytes(b []byte) { w.B = append(w.B, b...) }

// UTF16 appends s as UTF-16BE code units, without a length.
func (w *Writer) UTF16(s string) {
	for _, u := range utf16.Encode([]rune(s)) {
		w.U2(u)
	}
}

// UTF16Len is the number of UTF-16 code units s encodes to.
func UTF16Len(s string) int {
	n := 0
	for _, c := range s {
		if c >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// DDMString appends a DDM string: u4 count of UTF-16 units, then the units.
func (w *Writer) DDMString(s string) {
	w.U4(uint32(UTF16Len(s)))
	w.UTF16(s)
}

// JDWPString appends a JDWP string: u4 byte length, then UTF-8.
func (w *Writer) JDWPString(s string) {
	w.U4(uint32(len(s)))
	w.B = append(w.B, s...)
}
