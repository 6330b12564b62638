// Package clip copies text to the user's clipboard through the terminal:
// the OSC 52 escape sequence (ESC ] 52 ; c ; base64 BEL), which terminals
// honour over SSH too (inside tmux, with `set -g set-clipboard on`). The
// sequence goes to the terminal the views draw on, through its tty.
package clip

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// Max bounds the text copied, in bytes: its base64 form (4/3 of it) then
// stays under the ~100 kB that OSC 52 consumers (xterm, tmux, terminal
// emulators) accept.
const Max = 74_000

// Sequence is the OSC 52 sequence that puts text on the clipboard.
func Sequence(text string) []byte {
	b := make([]byte, 0, 8+base64.StdEncoding.EncodedLen(len(text)))
	b = append(b, "\x1b]52;c;"...)
	b = base64.StdEncoding.AppendEncode(b, []byte(text))
	return append(b, '\a')
}

// Bound cuts text to at most max bytes, at a character boundary, and says
// whether it did.
func Bound(text string, max int) (string, bool) {
	if len(text) <= max {
		return text, false
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut], true
}

var screen atomic.Pointer[tcell.Screen]

// Attach names the screen the program draws on: Copy writes to its tty.
// Views call it when their screen is known.
func Attach(s tcell.Screen) {
	if s == nil {
		screen.Store(nil)
		return
	}
	screen.Store(&s)
}

// ErrNoTerminal is returned by Copy when there is no terminal to write to.
var ErrNoTerminal = errors.New("no terminal to copy through")

// Copy puts text (bounded by Max) on the clipboard through the attached
// screen's terminal and returns the bytes copied and whether text was cut.
func Copy(text string) (n int, cut bool, err error) {
	p := screen.Load()
	if p == nil {
		return 0, false, ErrNoTerminal
	}
	tty, ok := (*p).Tty()
	if !ok || tty == nil {
		return 0, false, ErrNoTerminal
	}
	return write(tty, text)
}

func write(w io.Writer, text string) (int, bool, error) {
	text, cut := Bound(text, Max)
	if _, err := w.Write(Sequence(text)); err != nil {
		return 0, false, fmt.Errorf("copy: %w", err)
	}
	return len(text), cut, nil
}

// Status is the status line after copying what: "copied: <what> (N bytes)".
func Status(what string, n int, cut bool) string {
	s := fmt.Sprintf("copied: %s (%d bytes)", what, n)
	if cut {
		s += fmt.Sprintf(", cut to the first %d", Max)
	}
	return s
}

// Do copies text and returns the status line to show: what was copied
// (what names it, e.g. "thread main"), or why nothing was.
func Do(what, text string) string {
	if text == "" {
		return "nothing to copy here"
	}
	n, cut, err := Copy(text)
	if err != nil {
		return "copy: " + err.Error()
	}
	return Status(what, n, cut)
}
