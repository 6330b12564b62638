package hprof

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// ErrUnknownVersion is wrapped by the error for a header whose version
// string is not one of the known versions.
var ErrUnknownVersion = errors.New("unknown HPROF version")

// source is the byte stream under Reader and Convert: it counts the offset
// and reads record bodies into one reused buffer.
type source struct {
	br  *bufio.Reader
	off int64  // bytes consumed so far
	buf []byte // the current record body
	hdr [recordHeaderLen]byte
}

// sourceBufSize is the read buffer size; smaller when the reader says it
// holds less (bytes.Reader and the like), since a short input should not
// cost a large allocation.
const sourceBufSize = 64 << 10

// bodyStep is the first allocation for a record body larger than the
// buffer; the buffer then doubles as bytes actually arrive, so a length
// field that lies costs at most twice the bytes that exist.
const bodyStep = 64 << 10

func newSource(r io.Reader) *source {
	size := sourceBufSize
	if l, ok := r.(interface{ Len() int }); ok {
		size = min(size, max(l.Len(), 16))
	}
	return &source{br: bufio.NewReaderSize(r, size)}
}

// shortErr turns a read failure into the error to report: a FormatError at
// the offset where the data ended for EOF, the I/O error otherwise.
func (s *source) shortErr(err error, what string, got, want int) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{Offset: int(s.off), What: what,
			Err: fmt.Errorf("%w: %d of %d bytes", wire.ErrShort, got, want)}
	}
	return fmt.Errorf("hprof: reading %s at offset %d: %w", what, s.off, err)
}

// header reads and checks the file header.
func (s *source) header() (Header, error) {
	var h Header
	var version []byte
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return h, &FormatError{Offset: int(s.off), What: "header version string", Err: fmt.Errorf("%w: no NUL terminator", wire.ErrShort)}
			}
			return h, s.shortErr(err, "header", 0, 1)
		}
		s.off++
		if c == 0 {
			break
		}
		if len(version) == maxVersionLen {
			return h, &FormatError{Offset: 0, What: "header version string", Err: fmt.Errorf("%w: no NUL in the first %d bytes", ErrUnknownVersion, maxVersionLen)}
		}
		version = append(version, c)
	}
	h.Version = string(version)
	switch h.Version {
	case VersionAndroid, VersionStandard, Version101:
	default:
		return h, &FormatError{Offset: 0, What: "header version string", Err: fmt.Errorf("%w %q", ErrUnknownVersion, h.Version)}
	}
	var b [12]byte
	if n, err := io.ReadFull(s.br, b[:]); err != nil {
		s.off += int64(n)
		return h, s.shortErr(err, "header", n, len(b))
	}
	idOff := s.off
	s.off += int64(len(b))
	h.IDSize = int(binary.BigEndian.Uint32(b[:4]))
	h.Timestamp = binary.BigEndian.Uint64(b[4:])
	if h.IDSize != 4 && h.IDSize != 8 {
		return h, &FormatError{Offset: int(idOff), What: "header identifier size", Err: fmt.Errorf("%d is not 4 or 8", h.IDSize)}
	}
	return h, nil
}

// record reads the next record header. A clean end of the stream, at a
// record boundary, returns io.EOF.
func (s *source) record() (RecordInfo, error) {
	b := s.hdr[:]
	rh := RecordInfo{Offset: s.off}
	n, err := io.ReadFull(s.br, b)
	if err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return rh, io.EOF
		}
		s.off += int64(n)
		return rh, s.shortErr(err, "record header", n, recordHeaderLen)
	}
	s.off += recordHeaderLen
	rh.Tag = Tag(b[0])
	rh.Time = binary.BigEndian.Uint32(b[1:])
	rh.Length = binary.BigEndian.Uint32(b[5:])
	return rh, nil
}

// body reads the n-byte body of the record rh into the reused buffer.
func (s *source) body(rh RecordInfo) ([]byte, error) {
	n := int(rh.Length)
	if n <= cap(s.buf) {
		b := s.buf[:n]
		got, err := io.ReadFull(s.br, b)
		s.off += int64(got)
		if err != nil {
			return nil, s.shortErr(err, rh.Tag.String()+" body", got, n)
		}
		return b, nil
	}
	b := s.buf[:0]
	for len(b) < n {
		grown := make([]byte, min(n, max(2*cap(b), bodyStep)))
		copy(grown, b)
		got, err := io.ReadFull(s.br, grown[len(b):])
		s.off += int64(got)
		b = grown[:len(b)+got]
		s.buf = b
		if err != nil {
			return nil, s.shortErr(err, rh.Tag.String()+" body", len(b), n)
		}
	}
	return b, nil
}

// layout holds the sub-record sizes that depend only on the identifier
// size: fixed[t] is the body length (tag excluded) of a fixed-size
// sub-record, 0 for the variable-size ones, -1 for unknown tags.
type layout struct {
	idSize int
	fixed  [256]int32
}

var layouts = map[int]*layout{4: newLayout(4), 8: newLayout(8)}

func newLayout(idSize int) *layout {
	l := &layout{idSize: idSize}
	for i := range l.fixed {
		l.fixed[i] = -1
	}
	for t, rl := range rootLayouts {
		if rl.root {
			l.fixed[t] = int32(rl.size(idSize))
		}
	}
	l.fixed[SubHeapDumpInfo] = int32(4 + idSize)
	for _, t := range []SubTag{SubClassDump, SubInstanceDump, SubObjectArrayDump, SubPrimitiveArray, SubPrimitiveArrayNoData} {
		l.fixed[t] = 0
	}
	return l
}

// peekType reads a basic type byte; it fails at the byte's own offset when
// the byte is not a basic type (or is TypeObject and objects are not
// allowed). It returns the value size, 0 after a failure.
func peekType(r *wire.Reader, body []byte, idSize int, what string, object bool) (Type, int) {
	if r.Err() != nil {
		return 0, 0
	}
	if r.Len() < 1 {
		r.U1(what) // records ErrShort
		return 0, 0
	}
	t := Type(body[r.Offset()])
	size := t.Size(idSize)
	if size == 0 || (t == TypeObject && !object) {
		r.Failf(what, "invalid basic type %d", uint8(t))
		return 0, 0
	}
	r.Skip(1, what)
	return t, size
}

// skipSub advances r, positioned on a sub-record's tag byte in body, past
// that sub-record, checking every length against what remains of the
// record. It returns the tag; a failure is left in r.
func (l *layout) skipSub(r *wire.Reader, body []byte) SubTag {
	tag := SubTag(body[r.Offset()])
	switch n := l.fixed[tag]; {
	case n > 0:
		r.Skip(1+int(n), tag.String())
		return tag
	case n < 0:
		r.Failf("heap dump sub-record", "unknown tag 0x%02X", uint8(tag))
		return tag
	}
	id := l.idSize
	r.Skip(1, "")
	switch tag {
	case SubClassDump:
		r.Skip(7*id+8, "class dump")
		for i, n := 0, int(r.U2("constant pool size")); i < n && r.Err() == nil; i++ {
			r.Skip(2, "constant pool index")
			_, size := peekType(r, body, id, "constant type", true)
			r.Skip(size, "constant value")
		}
		for i, n := 0, int(r.U2("static field count")); i < n && r.Err() == nil; i++ {
			r.Skip(id, "static field name")
			_, size := peekType(r, body, id, "static field type", true)
			r.Skip(size, "static field value")
		}
		for i, n := 0, int(r.U2("instance field count")); i < n && r.Err() == nil; i++ {
			r.Skip(id, "instance field name")
			peekType(r, body, id, "instance field type", true)
		}
	case SubInstanceDump:
		r.Skip(2*id+4, "instance dump")
		n := r.U4("instance data length")
		r.Skip(r.Count(uint64(n), 1, "instance data"), "instance data")
	case SubObjectArrayDump:
		r.Skip(id+4, "object array dump")
		n := r.U4("object array length")
		r.Skip(id, "object array class")
		r.Skip(r.Count(uint64(n), id, "object array elements")*id, "object array elements")
	case SubPrimitiveArray, SubPrimitiveArrayNoData:
		r.Skip(id+4, tag.String())
		n := r.U4("primitive array length")
		_, size := peekType(r, body, id, "primitive array type", false)
		if tag == SubPrimitiveArray && r.Err() == nil {
			r.Skip(r.Count(uint64(n), size, "primitive array elements")*size, "primitive array elements")
		}
	}
	return tag
}

// fastEnd returns the offset just past the sub-record at body[off] when it
// is a fixed-size sub-record, an instance dump or an array dump that fits
// in body; otherwise -1, and the caller walks it with skipSub, which checks
// every field and reports where it is wrong. This is Convert's hot path:
// plain arithmetic on the few length fields, no per-field calls.
func (l *layout) fastEnd(body []byte, off int) int {
	tag := SubTag(body[off])
	id := l.idSize
	rest := len(body) - off
	if n := int(l.fixed[tag]); n > 0 {
		if 1+n <= rest {
			return off + 1 + n
		}
		return -1
	}
	switch tag {
	case SubInstanceDump: // id, u4 stack serial, id class, u4 length, data
		h := 1 + 2*id + 8
		if h > rest {
			return -1
		}
		n := int(binary.BigEndian.Uint32(body[off+h-4:]))
		if n > rest-h {
			return -1
		}
		return off + h + n
	case SubObjectArrayDump: // id, u4 stack serial, u4 count, id class, ids
		h := 1 + 2*id + 8
		if h > rest {
			return -1
		}
		n := int(binary.BigEndian.Uint32(body[off+1+id+4:]))
		if n > (rest-h)/id {
			return -1
		}
		return off + h + n*id
	case SubPrimitiveArray, SubPrimitiveArrayNoData: // id, u4 stack serial, u4 count, u1 type, data
		h := 1 + id + 9
		if h > rest {
			return -1
		}
		t := Type(body[off+h-1])
		size := t.Size(id)
		if size == 0 || t == TypeObject {
			return -1
		}
		if tag == SubPrimitiveArrayNoData {
			return off + h
		}
		n := int(binary.BigEndian.Uint32(body[off+1+id+4:]))
		if n > (rest-h)/size {
			return -1
		}
		return off + h + n*size
	}
	return -1
}
