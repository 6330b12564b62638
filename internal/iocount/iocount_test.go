package iocount

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// shortWriter takes at most max bytes a write, then fails.
type shortWriter struct {
	buf bytes.Buffer
	max int
}

var errShort = errors.New("short write")

func (s *shortWriter) Write(b []byte) (int, error) {
	if len(b) > s.max {
		s.buf.Write(b[:s.max])
		return s.max, errShort
	}
	return s.buf.Write(b)
}

// N counts what the underlying writer took, short writes included, and
// Progress sees every new total.
func TestCountWriter(t *testing.T) {
	var totals []int64
	sw := &shortWriter{max: 4}
	c := &Writer{W: sw, Progress: func(n int64) { totals = append(totals, n) }}
	if n, err := c.Write([]byte("abc")); n != 3 || err != nil {
		t.Fatalf("write: %d %v", n, err)
	}
	if n, err := c.Write([]byte("defgh")); n != 4 || !errors.Is(err, errShort) {
		t.Fatalf("short write: %d %v", n, err)
	}
	if c.N != 7 || sw.buf.String() != "abcdefg" {
		t.Errorf("counted %d, wrote %q", c.N, sw.buf.String())
	}
	if len(totals) != 2 || totals[0] != 3 || totals[1] != 7 {
		t.Errorf("progress %v", totals)
	}
	// Without Progress, through io.Copy.
	plain := &Writer{W: io.Discard}
	if _, err := io.Copy(plain, bytes.NewReader(make([]byte, 100000))); err != nil || plain.N != 100000 {
		t.Errorf("copied %d: %v", plain.N, err)
	}
}
