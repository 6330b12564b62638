package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// cmdError is an error labelled for the command line, with the error it
// wraps still reachable through errors.Is and errors.As.
type cmdError struct {
	msg string
	err error
}

func (e *cmdError) Error() string { return e.msg }
func (e *cmdError) Unwrap() error { return e.err }

// wrapFor labels err with the command and what it was working on ("trace:
// FILE: ..."). Errors of the package of the same name already start with
// "cmd: "; that label is dropped so that each name appears once.
func wrapFor(cmd, what string, err error) error {
	inner := strings.TrimPrefix(err.Error(), cmd+": ")
	return &cmdError{msg: cmd + ": " + what + ": " + inner, err: err}
}

// PrintError writes err as ddmtui's last word on w (standard error):
// "ddmtui: " and the message, each line escaped for the terminal. Errors
// carry what peers said — a VM's FAIL message, a device's sync FAIL text,
// an app or file name — so an escape sequence in them (OSC 0 retitling the
// terminal, OSC 52 writing the clipboard, CSI 2J clearing the screen) is
// printed as visible text, never obeyed.
func PrintError(w io.Writer, err error) {
	lines := strings.Split(strings.TrimRight(err.Error(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = safetext.Terminal(strings.TrimSuffix(l, "\r"))
	}
	fmt.Fprintln(w, "ddmtui: "+strings.Join(lines, "\n"))
}
