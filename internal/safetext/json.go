package safetext

import (
	"io"
	"unicode/utf8"
)

// JSON returns a writer that passes JSON text on to w with every control
// character above ASCII that IsControl names — the C1 controls
// U+0080–U+009F and the bidirectional controls (U+202A–U+202E,
// U+2066–U+2069, LRM, RLM, ALM) — written as a \uNNNN escape. encoding/json
// escapes only C0 (and U+2028, U+2029), so a name from a VM in `--json`
// output shown on a terminal could still carry a C1 CSI or reorder what a
// person reads. Outside strings JSON is ASCII, so the rewrite only ever
// touches string contents, and decodes to the same value.
//
// It is a post-pass on the encoder's output, so every JSON writer of the
// commands (headless.WriteJSON, the JSON lines of logcat and serve, the
// streamed thread-dump and trace reports) applies one rule. A character
// split across two writes is held (at most 2 bytes) until the next one.
func JSON(w io.Writer) io.Writer {
	if j, ok := w.(*jsonWriter); ok {
		return j
	}
	return &jsonWriter{w: w}
}

type jsonWriter struct {
	w       io.Writer
	pending [utf8.UTFMax]byte
	npend   int
	out     []byte
}

func (j *jsonWriter) Write(p []byte) (int, error) {
	if j.npend == 0 && cleanJSON(p) {
		return j.w.Write(p)
	}
	buf := p
	if j.npend > 0 {
		buf = append(j.pending[:j.npend:j.npend], p...)
		j.npend = 0
	}
	j.out = j.out[:0]
	start := 0
	for i := 0; i < len(buf); {
		c := buf[i]
		if c != 0xc2 && c != 0xd8 && c != 0xe2 {
			i++
			continue
		}
		if !utf8.FullRune(buf[i:]) {
			j.out = append(j.out, buf[start:i]...)
			j.npend = copy(j.pending[:], buf[i:])
			start = len(buf)
			break
		}
		r, n := utf8.DecodeRune(buf[i:])
		if r >= 0x80 && IsControl(r) {
			j.out = append(j.out, buf[start:i]...)
			const digits = "0123456789abcdef"
			j.out = append(j.out, '\\', 'u', digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf])
			start = i + n
		}
		i += n
	}
	j.out = append(j.out, buf[start:]...)
	if _, err := j.w.Write(j.out); err != nil {
		return 0, err
	}
	if cap(j.out) > 64<<10 {
		j.out = nil // a large document's copy is not kept
	}
	return len(p), nil
}

// cleanJSON reports that p holds no byte that can start a rune JSON
// rewrites (nor a piece of one).
func cleanJSON(p []byte) bool {
	for _, c := range p {
		if c == 0xc2 || c == 0xd8 || c == 0xe2 {
			return false
		}
	}
	return true
}
