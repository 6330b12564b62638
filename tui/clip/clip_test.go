package clip

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/gdamore/tcell/v2"
)

func TestSequenceBytes(t *testing.T) {
	got := Sequence("main\n  at a.B.c(B.java:3)\n")
	want := "\x1b]52;c;bWFpbgogIGF0IGEuQi5jKEIuamF2YTozKQo=\a"
	if string(got) != want {
		t.Fatalf("sequence %q, want %q", got, want)
	}
	if got := Sequence(""); string(got) != "\x1b]52;c;\a" {
		t.Fatalf("empty: %q", got)
	}
}

func TestBound(t *testing.T) {
	if s, cut := Bound("héllo", 10); s != "héllo" || cut {
		t.Errorf("short text changed: %q %v", s, cut)
	}
	// 'é' is 2 bytes at offsets 1..2: a cut at 2 backs off to 1.
	if s, cut := Bound("héllo", 2); s != "h" || !cut {
		t.Errorf("cut = %q %v, want \"h\" true", s, cut)
	}
}

// FakeTTY records what is written to the terminal.
type FakeTTY struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (f *FakeTTY) Start() error        { return nil }
func (f *FakeTTY) Stop() error         { return nil }
func (f *FakeTTY) Drain() error        { return nil }
func (f *FakeTTY) NotifyResize(func()) {}
func (f *FakeTTY) WindowSize() (tcell.WindowSize, error) {
	return tcell.WindowSize{Width: 80, Height: 24}, nil
}
func (f *FakeTTY) Read([]byte) (int, error) { select {} }
func (f *FakeTTY) Close() error             { return nil }
func (f *FakeTTY) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Write(b)
}

type ttyScreen struct {
	tcell.SimulationScreen
	tty *FakeTTY
}

func (s ttyScreen) Tty() (tcell.Tty, bool) { return s.tty, true }

func TestCopyWritesToTheScreensTTY(t *testing.T) {
	t.Cleanup(func() { Attach(nil) })
	Attach(nil)
	if msg := Do("x", "text"); !strings.Contains(msg, "no terminal") {
		t.Errorf("no screen: %q", msg)
	}
	Attach(tcell.NewSimulationScreen("UTF-8")) // no tty
	if _, _, err := Copy("x"); err != ErrNoTerminal {
		t.Errorf("screen without tty: %v", err)
	}
	tty := &FakeTTY{}
	Attach(ttyScreen{tcell.NewSimulationScreen("UTF-8"), tty})
	if msg := Do("thread main", "main\n"); msg != "copied: thread main (5 bytes)" {
		t.Errorf("status %q", msg)
	}
	if got := tty.buf.String(); got != "\x1b]52;c;bWFpbgo=\a" {
		t.Errorf("tty got %q", got)
	}
	tty.buf.Reset()
	big := strings.Repeat("a", Max+10)
	if msg := Do("big", big); msg != "copied: big (74000 bytes), cut to the first 74000" {
		t.Errorf("status %q", msg)
	}
	if n := tty.buf.Len(); n != len(Sequence(big[:Max])) || n > 100_000+9 {
		t.Errorf("wrote %d bytes", n)
	}
	if msg := Do("empty", ""); msg != "nothing to copy here" {
		t.Errorf("status %q", msg)
	}
}
