package viewer

import (
	"errors"
	"fmt"
	"os"

	"github.com/gdamore/tcell/v2"
	"golang.org/x/term"
)

// ErrNoTerminal says there is no terminal to draw on: stdin or stdout is
// not a tty, or the process has no controlling terminal (setsid).
var ErrNoTerminal = errors.New("needs a terminal")

// CheckTerminal returns an error wrapping ErrNoTerminal unless stdin and
// stdout are both terminals. Commands call it before they open ports or
// start work, so failing leaves nothing held.
func CheckTerminal() error {
	switch {
	case !term.IsTerminal(int(os.Stdin.Fd())):
		return fmt.Errorf("%w: stdin is not a terminal (for output without one, see `ddmtui list`, `snapshot` and the other commands)", ErrNoTerminal)
	case !term.IsTerminal(int(os.Stdout.Fd())):
		return fmt.Errorf("%w: stdout is not a terminal (for output without one, see `ddmtui list`, `snapshot` and the other commands)", ErrNoTerminal)
	}
	return nil
}

// OpenTerminal checks for a terminal and initialises a screen on it. The
// screen it returns is already initialised (its Init does nothing), so it
// can be handed to tview.Application.SetScreen. A screen that failed to
// initialise is never returned: tcell's Fini on one panics.
func OpenTerminal() (tcell.Screen, error) {
	if err := CheckTerminal(); err != nil {
		return nil, err
	}
	s, err := tcell.NewScreen()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoTerminal, err)
	}
	if err := s.Init(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoTerminal, err)
	}
	return initialised{s}, nil
}

type initialised struct{ tcell.Screen }

func (initialised) Init() error { return nil }
