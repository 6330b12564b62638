package tui

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/clip"
	"github.com/ddmtui/ddmtui/tui/style"
)

// fakeTTY records what the program writes to its terminal.
type fakeTTY struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (f *fakeTTY) Start() error                          { return nil }
func (f *fakeTTY) Stop() error                           { return nil }
func (f *fakeTTY) Drain() error                          { return nil }
func (f *fakeTTY) NotifyResize(func())                   {}
func (f *fakeTTY) WindowSize() (tcell.WindowSize, error) { return tcell.WindowSize{}, nil }
func (f *fakeTTY) Read([]byte) (int, error)              { select {} }
func (f *fakeTTY) Close() error                          { return nil }
func (f *fakeTTY) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Write(b)
}

func (f *fakeTTY) take() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.buf.String()
	f.buf.Reset()
	return s
}

// ttyScreen is a simulated screen with a terminal behind it.
type ttyScreen struct {
	tcell.SimulationScreen
	tty *fakeTTY
}

func (s ttyScreen) Tty() (tcell.Tty, bool) { return s.tty, true }

// TestCopyFocusedRow: y writes the focused row's text to the terminal as
// one OSC 52 sequence and says what it copied in the status line.
func TestCopyFocusedRow(t *testing.T) {
	t.Cleanup(func() { clip.Attach(nil) })
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	tty := &fakeTTY{}
	clip.Attach(ttyScreen{hs.screen, tty})
	hs.waitText("AsyncTask #1")
	vm := "com.example.mail · pid 1234 · Dalvik v2.1.0 · local:8000"
	hs.key(tcell.KeyRune, 'y')
	hs.waitText("copied: VM com.example.mail (")
	if got, want := tty.take(), "\x1b]52;c;"+b64(vm)+"\a"; got != want {
		t.Fatalf("VM row: terminal got %q, want %q", got, want)
	}
	hs.waitText(fmt.Sprintf("copied: VM com.example.mail (%d bytes)", len(vm)))
	hs.key(tcell.KeyTab, 0) // the thread table
	hs.key(tcell.KeyHome, 0)
	hs.key(tcell.KeyEnter, 0)
	hs.waitText("(Worker.java:42)")
	hs.key(tcell.KeyRune, 'y')
	text := "\"main\" tid=1 running sysTid=1234\n  at com.example.Worker.run1(Worker.java:42)\n  at java.lang.Thread.run(Thread.java:923)\n"
	hs.waitText(fmt.Sprintf("copied: thread main and its stack (%d bytes)", len(text)))
	if got, want := tty.take(), string(clip.Sequence(text)); got != want {
		t.Fatalf("thread with stack: terminal got %q, want %q", got, want)
	}
}

func b64(s string) string {
	seq := string(clip.Sequence(s))
	return seq[len("\x1b]52;c;") : len(seq)-1]
}

func TestCopiedLinesAreEscaped(t *testing.T) {
	got := safeLines("evil\x1b]52;c;AAAA\a name\n  at x.Y.z(Y.java:1)")
	if strings.ContainsAny(got, "\x1b\a") || strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "\n  at x.Y.z(Y.java:1)") {
		t.Fatalf("safeLines = %q", got)
	}
}
