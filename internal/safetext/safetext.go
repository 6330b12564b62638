// Package safetext makes strings that come from a VM (thread names, app
// names, class names, dump lines) safe to show on a terminal: control
// characters and the bidirectional overrides cannot reach it.
//
// Every string received from a peer is data. Plain-text output (JSON aside,
// which encodes its own escapes) calls Terminal. Views that hand text to a
// tview widget call tui/style.Escape, which also neutralises tview's tags;
// this package stays free of any UI package, so the codecs that use it
// link none.
package safetext

import (
	"strings"
	"unicode/utf8"
)

// Terminal replaces every control character (C0, DEL, C1), and the Unicode
// bidirectional overrides that can reorder what a person sees, with a visible
// escape such as \x1b or \u202e. Invalid UTF-8 bytes become \xNN.
func Terminal(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(hexByte(s[i]))
		case r < 0x20 || r == 0x7f:
			b.WriteString(hexByte(byte(r)))
		case r >= 0x80 && r < 0xa0, isBidiControl(r):
			b.WriteString(`\u`)
			const digits = "0123456789abcdef"
			b.WriteByte(digits[r>>12&0xf])
			b.WriteByte(digits[r>>8&0xf])
			b.WriteByte(digits[r>>4&0xf])
			b.WriteByte(digits[r&0xf])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func hexByte(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{'\\', 'x', digits[c>>4], digits[c&0xf]})
}

// IsControl reports a rune Terminal escapes: a C0 or C1 control, DEL, or a
// bidirectional control (U+202A–U+202E, U+2066–U+2069, LRM, RLM, ALM).
// Names made from a VM's text (file names) replace such runes.
func IsControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidiControl(r)
}

func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			// slow path for non-ASCII
			for _, r := range s[i:] {
				if r == utf8.RuneError || (r >= 0x80 && r < 0xa0) || isBidiControl(r) || (r < 0x20) || r == 0x7f {
					return false
				}
			}
			return utf8.ValidString(s[i:])
		}
	}
	return true
}
