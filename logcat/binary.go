package logcat

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// The binary record `logcat -B` writes is struct logger_entry followed by
// its payload, all little-endian (AOSP liblog, include/log/log_read.h):
//
//	v1 (20 bytes, kernel logger): len u16, __pad u16 (0), pid i32, tid i32, sec i32, nsec i32
//	v2 (24 bytes, kernel logger): len u16, hdr_size u16 (24), pid, tid, sec, nsec, euid u32
//	v3 (24 bytes, logd):          len u16, hdr_size u16 (24), pid, tid, sec, nsec, lid u32
//	v4 (28 bytes, logd):          len u16, hdr_size u16 (28), pid, tid, sec, nsec, lid u32, uid u32
//
// len counts the payload only. For text buffers the payload is a priority
// byte, the tag and a NUL, the message and a NUL (missing when logd cut the
// message); events, stats and security carry binary event records.
const (
	HeaderV1Size = 20 // hdr_size reads 0 (the v1 __pad field)
	HeaderV3Size = 24 // v2 (euid) and v3 (lid) share the size
	HeaderV4Size = 28
	// MaxEntryLen bounds header plus payload (LOGGER_ENTRY_MAX_LEN, 5 KiB:
	// the size of a reader's buffer in liblog).
	MaxEntryLen = 5 * 1024
	// MaxPayload is what a writer may log (LOGGER_ENTRY_MAX_PAYLOAD); longer
	// messages are cut by liblog/logd. The decoder accepts up to
	// MaxEntryLen minus the header, as a liblog reader does.
	MaxPayload = 4068
)

// Errors a BinaryDecoder wraps in a *FormatError (the stream cannot be
// followed further) or a *PayloadError (one entry is bad; the next one can
// be read).
var (
	ErrHeaderSize      = errors.New("hdr_size is not 0, 24 or 28")
	ErrEntryTooLong    = errors.New("header and payload exceed 5120 bytes (LOGGER_ENTRY_MAX_LEN)")
	ErrTruncated       = errors.New("stream ends inside an entry")
	ErrNanoseconds     = errors.New("nsec is not below 1e9")
	ErrLogID           = errors.New("lid outside the 4 bits log ids use")
	ErrShortPayload    = errors.New("payload shorter than priority, tag NUL and message")
	ErrTagUnterminated = errors.New("tag has no NUL")
	ErrTrailingBytes   = errors.New("bytes after the message's NUL")
)

// FormatError is a broken record frame: the decoder cannot find the next
// entry, so the stream is over.
type FormatError struct {
	Offset int64  // byte offset of the entry in the stream
	Field  string // "len", "hdr_size", …
	Err    error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("logcat: binary entry at offset %d: %s: %v", e.Offset, e.Field, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// PayloadError is one entry whose frame is sound but whose payload is not;
// the decoder is positioned at the next entry.
type PayloadError struct {
	Offset int64 // byte offset of the entry in the stream
	PID    int32
	Err    error
}

func (e *PayloadError) Error() string {
	return fmt.Sprintf("logcat: binary entry at offset %d (pid %d): payload: %v", e.Offset, e.PID, e.Err)
}

func (e *PayloadError) Unwrap() error { return e.Err }

// BinaryOptions tune decoding.
type BinaryOptions struct {
	// Header24IsEUID reads a 24-byte header's last field as v2's euid
	// (kernel logger, Android 4.x) instead of v3's lid; the entry's buffer
	// is then Main and UID the euid.
	Header24IsEUID bool
}

// DecodeBinary decodes the first entry in b and returns it with the number
// of bytes it took. A *FormatError means b does not start with a whole
// entry (ErrTruncated when more bytes would help); a *PayloadError means
// the frame is sound (n is its size) but the payload is not. Strings are
// copied out of b.
func DecodeBinary(b []byte, opts BinaryOptions) (e Entry, n int, err error) {
	return decodeBinary(b, 0, opts)
}

// frameSize reads the header's len and hdr_size and returns the whole
// entry's size, or a FormatError.
func frameSize(b []byte, off int64) (hdr, total int, err error) {
	if len(b) < 4 {
		return 0, 0, &FormatError{Offset: off, Field: "len", Err: ErrTruncated}
	}
	plen := int(binary.LittleEndian.Uint16(b[0:]))
	switch hs := int(binary.LittleEndian.Uint16(b[2:])); hs {
	case 0:
		hdr = HeaderV1Size
	case HeaderV3Size, HeaderV4Size:
		hdr = hs
	default:
		return 0, 0, &FormatError{Offset: off, Field: "hdr_size", Err: fmt.Errorf("%w: %d", ErrHeaderSize, hs)}
	}
	if hdr+plen > MaxEntryLen {
		return 0, 0, &FormatError{Offset: off, Field: "len", Err: fmt.Errorf("%w: %d+%d", ErrEntryTooLong, hdr, plen)}
	}
	return hdr, hdr + plen, nil
}

func decodeBinary(b []byte, off int64, opts BinaryOptions) (e Entry, n int, err error) {
	hdr, total, err := frameSize(b, off)
	if err != nil {
		return Entry{}, 0, err
	}
	if len(b) < total {
		return Entry{}, 0, &FormatError{Offset: off, Field: "payload", Err: ErrTruncated}
	}
	le := binary.LittleEndian
	e.PID = int32(le.Uint32(b[4:]))
	e.TID = int32(le.Uint32(b[8:]))
	sec, nsec := le.Uint32(b[12:]), le.Uint32(b[16:])
	e.UID = -1
	switch {
	case hdr == HeaderV3Size && opts.Header24IsEUID:
		e.UID = int32(le.Uint32(b[20:]))
	case hdr >= HeaderV3Size:
		lid := le.Uint32(b[20:])
		if lid > 15 {
			return Entry{}, total, &PayloadError{Offset: off, PID: e.PID, Err: fmt.Errorf("%w: %d", ErrLogID, lid)}
		}
		e.Buffer = LogID(lid)
		if hdr == HeaderV4Size {
			e.UID = int32(le.Uint32(b[24:]))
		}
	}
	if nsec >= 1e9 {
		return Entry{}, total, &PayloadError{Offset: off, PID: e.PID, Err: fmt.Errorf("%w: %d", ErrNanoseconds, nsec)}
	}
	e.Time = time.Unix(int64(sec), int64(nsec))
	if err := decodePayload(&e, b[hdr:total]); err != nil {
		return Entry{}, total, &PayloadError{Offset: off, PID: e.PID, Err: err}
	}
	return e, total, nil
}

// decodePayload fills priority, tag and message from a payload.
func decodePayload(e *Entry, p []byte) error {
	if e.Buffer.binaryPayload() {
		// An event record: int32 tag number, then typed values. Kept as a
		// short description; ddmtui does not decode events.
		if len(p) < 4 {
			return fmt.Errorf("%w: event record of %d bytes", ErrShortPayload, len(p))
		}
		e.Priority = Info
		e.Tag = fmt.Sprintf("event#%d", binary.LittleEndian.Uint32(p))
		e.Message = fmt.Sprintf("[%d bytes of binary event data]", len(p)-4)
		return nil
	}
	// logprint's rule: a priority and two NULs at least.
	if len(p) < 3 {
		return fmt.Errorf("%w: %d bytes", ErrShortPayload, len(p))
	}
	e.Priority = Priority(p[0])
	rest := p[1:]
	t := bytes.IndexByte(rest, 0)
	if t < 0 {
		return ErrTagUnterminated
	}
	msg := rest[t+1:]
	m := bytes.IndexByte(msg, 0)
	switch {
	case m < 0:
		e.Flags |= FlagTruncated
		m = len(msg)
	case m != len(msg)-1:
		return fmt.Errorf("%w: %d", ErrTrailingBytes, len(msg)-1-m)
	}
	// One allocation for tag and message together.
	s := string(rest[:t+1+m])
	e.Tag = s[:t]
	e.Message = s[t+1:]
	return nil
}

// BinaryDecoder reads entries from a `logcat -B` stream.
type BinaryDecoder struct {
	r    *bufio.Reader
	off  int64
	opts BinaryOptions
}

// NewBinaryDecoder reads from r (buffered here).
func NewBinaryDecoder(r io.Reader, opts BinaryOptions) *BinaryDecoder {
	return &BinaryDecoder{r: bufio.NewReaderSize(r, 64<<10), opts: opts}
}

// Offset is the stream offset of the next entry.
func (d *BinaryDecoder) Offset() int64 { return d.off }

// Next decodes the next entry into e. It returns io.EOF at a clean end, a
// *FormatError when the stream is broken (ErrTruncated if it ends inside an
// entry), or a *PayloadError for one bad entry, after which Next may be
// called again. Read errors are returned as they are.
func (d *BinaryDecoder) Next(e *Entry) error {
	head, err := d.r.Peek(4)
	if err != nil {
		if err == io.EOF && len(head) == 0 {
			return io.EOF
		}
		return d.readErr(err)
	}
	_, total, err := frameSize(head, d.off)
	if err != nil {
		return err
	}
	b, err := d.r.Peek(total)
	if err != nil {
		return d.readErr(err)
	}
	ent, n, err := decodeBinary(b, d.off, d.opts)
	d.off += int64(total)
	_, _ = d.r.Discard(total)
	if err != nil {
		return err
	}
	_ = n
	*e = ent
	return nil
}

func (d *BinaryDecoder) readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &FormatError{Offset: d.off, Field: "entry", Err: ErrTruncated}
	}
	return err
}

// AppendBinary appends e as a binary record with the given header size
// (HeaderV1Size, HeaderV3Size or HeaderV4Size), as logd and `logcat -B`
// write it: the message gets its NUL unless e has FlagTruncated. For events
// buffers nothing but text entries are supported. It fails when the record
// would exceed MaxEntryLen or the header size is unknown.
func AppendBinary(dst []byte, e *Entry, hdrSize int) ([]byte, error) {
	switch hdrSize {
	case HeaderV1Size, HeaderV3Size, HeaderV4Size:
	default:
		return dst, fmt.Errorf("logcat: header size %d: %w", hdrSize, ErrHeaderSize)
	}
	if strings.IndexByte(e.Tag, 0) >= 0 || strings.IndexByte(e.Message, 0) >= 0 {
		return dst, fmt.Errorf("logcat: a NUL in the tag or message cannot be encoded")
	}
	plen := 1 + len(e.Tag) + 1 + len(e.Message)
	if !e.Has(FlagTruncated) {
		plen++
	}
	if hdrSize+plen > MaxEntryLen {
		return dst, fmt.Errorf("logcat: %w: %d+%d", ErrEntryTooLong, hdrSize, plen)
	}
	le := binary.LittleEndian
	dst = le.AppendUint16(dst, uint16(plen))
	if hdrSize == HeaderV1Size {
		dst = le.AppendUint16(dst, 0)
	} else {
		dst = le.AppendUint16(dst, uint16(hdrSize))
	}
	dst = le.AppendUint32(dst, uint32(e.PID))
	dst = le.AppendUint32(dst, uint32(e.TID))
	dst = le.AppendUint32(dst, uint32(e.Time.Unix()))
	dst = le.AppendUint32(dst, uint32(e.Time.Nanosecond()))
	if hdrSize >= HeaderV3Size {
		dst = le.AppendUint32(dst, uint32(e.Buffer))
	}
	if hdrSize == HeaderV4Size {
		dst = le.AppendUint32(dst, uint32(e.UID))
	}
	dst = append(dst, byte(e.Priority))
	dst = append(dst, e.Tag...)
	dst = append(dst, 0)
	dst = append(dst, e.Message...)
	if !e.Has(FlagTruncated) {
		dst = append(dst, 0)
	}
	return dst, nil
}
