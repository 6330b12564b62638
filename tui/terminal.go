package tui

import "github.com/ddmtui/ddmtui/tui/viewer"

// ErrNoTerminal is returned by Run (and CheckTerminal) when there is no
// terminal to draw on: stdin or stdout is not a tty, or there is no
// controlling terminal (setsid).
var ErrNoTerminal = viewer.ErrNoTerminal

// CheckTerminal says whether the dashboard can run here; commands call it
// before they open ports, so that failing leaves nothing held.
func CheckTerminal() error { return viewer.CheckTerminal() }
