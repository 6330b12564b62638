package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal (a tty: /dev/null is a
// character device but not one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
