package profileview

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/clip"
)

type recTTY struct{ bytes.Buffer }

func (f *recTTY) Start() error                          { return nil }
func (f *recTTY) Stop() error                           { return nil }
func (f *recTTY) Drain() error                          { return nil }
func (f *recTTY) NotifyResize(func())                   {}
func (f *recTTY) WindowSize() (tcell.WindowSize, error) { return tcell.WindowSize{}, nil }
func (f *recTTY) Close() error                          { return nil }

type ttyScreen struct {
	tcell.SimulationScreen
	tty *recTTY
}

func (s ttyScreen) Tty() (tcell.Tty, bool) { return s.tty, true }

// TestCopyMethodSignature: y writes the selected method's signature to the
// terminal as OSC 52 and the footer says so.
func TestCopyMethodSignature(t *testing.T) {
	hs := newHarness(t, testProfile(t, trace.Dual))
	tty := &recTTY{}
	clip.Attach(ttyScreen{hs.screen, tty})
	t.Cleanup(func() { clip.Attach(nil) })
	what, text := hs.v.CopyText()
	if what == "" || !strings.HasPrefix(text, hs.firstRow()) || !strings.Contains(text, "(") {
		t.Fatalf("CopyText = %q, %q; first row %q", what, text, hs.firstRow())
	}
	hs.runes("y")
	if got, want := tty.String(), string(clip.Sequence(text)); got != want {
		t.Fatalf("terminal got %q, want %q", got, want)
	}
	hs.contains(fmt.Sprintf("copied: %s (%d bytes)", what, len(text)))
}
