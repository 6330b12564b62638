package trace

import (
	"errors"
	"io"
)

// source buffers an io.Reader for both halves of a trace: text lines for the
// key, then whole records for the data. It tracks the file offset of every
// byte so errors and warnings can name it. The buffer has a fixed size, so
// memory does not grow with the file.
type source struct {
	r      io.Reader
	buf    []byte
	lo, hi int   // unread bytes are buf[lo:hi]
	off    int64 // file offset of buf[lo]
	err    error // sticky read error; io.EOF at the end
	full   bool  // the last read filled the buffer: grow it next time
}

// The buffer starts small (small files are common, and fuzzing parses many)
// and grows while reads keep filling it, up to sourceBufferSize.
const (
	sourceInitialSize = 64 << 10
	sourceBufferSize  = 1 << 20
)

func newSource(r io.Reader) *source {
	return &source{r: r, buf: make([]byte, sourceInitialSize)}
}

// buffered returns the unread bytes in the buffer.
func (s *source) buffered() []byte { return s.buf[s.lo:s.hi] }

// consume marks n buffered bytes as read.
func (s *source) consume(n int) {
	s.lo += n
	s.off += int64(n)
}

// fill reads until at least want bytes are buffered (want ≤ len(buf)), or
// the input ends. It reports whether want bytes are available.
func (s *source) fill(want int) bool {
	if s.hi-s.lo >= want {
		return true
	}
	if s.lo > 0 {
		n := copy(s.buf, s.buf[s.lo:s.hi])
		s.lo, s.hi = 0, n
	}
	if size := len(s.buf); want > size || (s.full && size < sourceBufferSize) {
		size = max(want, min(4*size, sourceBufferSize))
		grown := make([]byte, size)
		copy(grown, s.buf[:s.hi])
		s.buf = grown
		s.full = false
	}
	for s.hi < want && s.err == nil {
		n, err := s.r.Read(s.buf[s.hi:])
		s.hi += n
		if s.hi == len(s.buf) {
			s.full = true
		}
		if err != nil {
			s.err = err
		} else if n == 0 {
			// A reader returning 0, nil repeatedly is broken; treat as EOF
			// after one more try to avoid spinning.
			n, err = s.r.Read(s.buf[s.hi:])
			s.hi += n
			if n == 0 && err == nil {
				err = io.ErrNoProgress
			}
			s.err = err
		}
	}
	return s.hi-s.lo >= want
}

// fillMore reads more input into the buffer if there is room and the input
// has not ended; it reports whether anything was added.
func (s *source) fillMore() bool {
	before := s.hi - s.lo
	if before >= len(s.buf) {
		return false
	}
	s.fill(before + 1)
	return s.hi-s.lo > before
}

// readErr is the read error other than the normal end of input.
func (s *source) readErr() error {
	if s.err == nil || errors.Is(s.err, io.EOF) {
		return nil
	}
	return s.err
}

// readLine returns the next line without its '\n', the file offset where it
// starts, and whether the input ended before a '\n' (then line holds the
// unterminated rest). Lines longer than maxLen give ErrLimit.
func (s *source) readLine(maxLen int) (line []byte, start int64, unterminated bool, err error) {
	start = s.off
	var long []byte // only for lines longer than the buffer
	scanned := 0
	for {
		b := s.buffered()
		for i := scanned; i < len(b); i++ {
			if b[i] == '\n' {
				line = b[:i]
				if long != nil {
					long = append(long, line...)
					line = long
				}
				if len(line) > maxLen {
					return nil, start, false, ErrLimit
				}
				s.consume(i + 1)
				return line, start, false, nil
			}
		}
		scanned = len(b)
		if len(long)+len(b) > maxLen {
			return nil, start, false, ErrLimit
		}
		if len(b) == len(s.buf) {
			// Buffer full without a newline: keep the bytes aside.
			long = append(long, b...)
			s.consume(len(b))
			scanned = 0
		}
		if !s.fillMore() {
			if err := s.readErr(); err != nil {
				return nil, start, false, err
			}
			rest := s.buffered()
			if long != nil {
				rest = append(long, rest...)
			}
			s.consume(len(s.buffered()))
			return rest, start, true, nil
		}
	}
}
