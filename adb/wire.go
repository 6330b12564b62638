package adb

import (
	"errors"
	"fmt"
	"io"
)

// Host protocol framing (spec/adb.md §1.1): a request is 4 hex digits giving
// the payload length, then the payload; an answer starts with OKAY or FAIL;
// FAIL and many OKAY answers carry a hex4-prefixed string.

const (
	statusOkay = "OKAY"
	statusFail = "FAIL"

	// maxRequest is the longest request a hex4 prefix can describe. The
	// server itself would take up to 1 MiB but four hex digits stop at
	// 0xffff.
	maxRequest = 0xffff

	// DefaultMaxReply bounds a length-prefixed reply (a device list, a
	// track-jdwp message, a FAIL message) when Client.MaxReply is zero.
	DefaultMaxReply = 1 << 20

	// maxHexDigits bounds how many digits a length prefix may have; see
	// readFramed for why more than four occur at all.
	maxHexDigits = 8
)

// ErrProtocol is wrapped by errors caused by bytes that do not follow the
// host protocol: an unknown status word, a length that is not hex, a reply
// longer than the configured bound.
var ErrProtocol = errors.New("protocol error")

// Error is a FAIL answer from the adb server (or, relayed by it, from the
// device): Op is the request that failed, Message the server's reason, e.g.
// "device 'X' not found" or "closed".
type Error struct {
	Op      string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("adb: %s: %s", e.Op, e.Message) }

// protocolErrorf returns an error wrapping ErrProtocol.
func protocolErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrProtocol, fmt.Sprintf(format, args...))
}

// appendRequest appends the hex4-framed request to b. The length prefix is
// upper-case like ddmlib's; the server accepts either case.
func appendRequest(b []byte, req string) ([]byte, error) {
	if len(req) == 0 || len(req) > maxRequest {
		return b, fmt.Errorf("adb: request of %d bytes: must be 1..%d", len(req), maxRequest)
	}
	b = fmt.Appendf(b, "%04X", len(req))
	return append(b, req...), nil
}

// writeRequest sends one framed request in a single write.
func writeRequest(w io.Writer, req string) error {
	b, err := appendRequest(nil, req)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// readStatus reads OKAY or FAIL. A FAIL answer yields *Error with op and the
// server's message.
func readStatus(r io.Reader, op string, maxLen int) error {
	var st [4]byte
	if _, err := io.ReadFull(r, st[:]); err != nil {
		return fmt.Errorf("reading status: %w", noEOF(err))
	}
	switch string(st[:]) {
	case statusOkay:
		return nil
	case statusFail:
		msg, err := readMessage(r, maxLen)
		if err != nil {
			return fmt.Errorf("reading FAIL message: %w", err)
		}
		return &Error{Op: op, Message: string(msg)}
	default:
		return protocolErrorf("status %q is neither OKAY nor FAIL", st[:])
	}
}

// hexValue returns the value of one hex digit (either case) and whether c is
// one.
func hexValue(c byte) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10, true
	}
	return 0, false
}

// parseHex parses a hex number of up to maxHexDigits digits.
func parseHex(b []byte) (int, error) {
	if len(b) == 0 || len(b) > maxHexDigits {
		return 0, protocolErrorf("length prefix %q: want 4 to %d hex digits", b, maxHexDigits)
	}
	n := 0
	for _, c := range b {
		v, ok := hexValue(c)
		if !ok {
			return 0, protocolErrorf("length prefix %q is not hex", b)
		}
		n = n<<4 | v
	}
	return n, nil
}

// readMessage reads a hex4 length and that many bytes, refusing lengths
// above maxLen before allocating.
func readMessage(r io.Reader, maxLen int) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("reading length: %w", err)
	}
	n, err := parseHex(h[:])
	if err != nil {
		return nil, err
	}
	if n > maxLen {
		return nil, protocolErrorf("reply of %d bytes exceeds the bound of %d", n, maxLen)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("reading %d-byte reply: %w", n, noEOF(err))
	}
	return buf, nil
}

// readFramed reads one message of a stream whose payloads are line lists
// (track-devices, track-jdwp): empty, or ending in '\n'.
//
// The server formats the length with printf("%04x"), which prints MORE than
// four digits for a payload above 0xffff bytes (a list of several hundred
// devices). A fixed four-digit reader then takes a prefix of the length
// for the whole of it and loses the stream. The two cases are told apart
// by the list's last byte: when the four-digit reading gives a payload
// that does not end in '\n' although the next byte is a hex digit, the
// length had more digits and reading continues. Prefixes longer than four
// digits never start with '0', which keeps the common case unambiguous.
func readFramed(r io.Reader, maxLen int) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("reading length: %w", err)
	}
	n, err := parseHex(h[:])
	if err != nil {
		return nil, err
	}
	digits := 4
	buf, err := readBounded(r, nil, n, maxLen)
	if err != nil {
		return nil, err
	}
	for {
		if len(buf) == 0 || buf[len(buf)-1] == '\n' || h[0] == '0' || digits == maxHexDigits {
			return buf, nil
		}
		v, ok := hexValue(buf[0])
		if !ok {
			return buf, nil // malformed list; the parser reports it
		}
		// The first payload byte was one more digit of the length.
		digits++
		n = n<<4 | v
		buf, err = readBounded(r, buf[1:], n, maxLen)
		if err != nil {
			return nil, err
		}
	}
}

// readBounded extends have to n bytes read from r, failing if n > maxLen.
// Memory grows only as bytes arrive (at most 64 KiB ahead of them), so a
// hostile length cannot make it allocate more than it receives.
func readBounded(r io.Reader, have []byte, n, maxLen int) ([]byte, error) {
	if n > maxLen {
		return nil, protocolErrorf("reply of %d bytes exceeds the bound of %d", n, maxLen)
	}
	for len(have) < n {
		step := min(n-len(have), 64<<10)
		start := len(have)
		have = append(have, make([]byte, step)...)
		if _, err := io.ReadFull(r, have[start:]); err != nil {
			return nil, fmt.Errorf("reading %d-byte reply: %w", n, noEOF(err))
		}
	}
	return have, nil
}

// splitOneShot takes the complete answer of a one-shot service (everything
// after OKAY up to the server's close) and returns its payload. The length
// prefix must account for every byte; like readFramed it accepts a prefix of
// more than four digits, which the server writes for payloads above 0xffff.
func splitOneShot(all []byte) ([]byte, error) {
	for k := 4; k <= maxHexDigits && k <= len(all); k++ {
		if k > 4 && all[0] == '0' {
			break
		}
		n, err := parseHex(all[:k])
		if err != nil {
			break
		}
		if n == len(all)-k {
			return all[k:], nil
		}
	}
	if len(all) < 4 {
		return nil, protocolErrorf("reply of %d bytes has no length prefix", len(all))
	}
	return nil, protocolErrorf("length prefix %q does not match the %d bytes that follow", all[:4], len(all)-4)
}

// readAllBounded reads r to EOF, failing once more than maxLen bytes arrive.
func readAllBounded(r io.Reader, maxLen int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(maxLen)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxLen {
		return nil, protocolErrorf("reply exceeds the bound of %d bytes", maxLen)
	}
	return b, nil
}

// noEOF turns a bare io.EOF (the peer closed between messages) into
// io.ErrUnexpectedEOF where more bytes were required.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
