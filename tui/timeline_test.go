package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/style"
)

// fakeTimeline records what the keys asked for.
type fakeTimeline struct {
	mu    sync.Mutex
	calls []string
	pos   time.Duration
}

func (f *fakeTimeline) note(s string) { f.mu.Lock(); f.calls = append(f.calls, s); f.mu.Unlock() }
func (f *fakeTimeline) TogglePlay()   { f.note("play") }
func (f *fakeTimeline) Step()         { f.note("step") }
func (f *fakeTimeline) SeekBy(d time.Duration) {
	f.mu.Lock()
	f.pos += d
	f.mu.Unlock()
	f.note(fmt.Sprint("seek ", d))
}
func (f *fakeTimeline) SeekEdge(end bool)         { f.note(fmt.Sprint("edge ", end)) }
func (f *fakeTimeline) ScaleSpeed(factor float64) { f.note(fmt.Sprint("speed ", factor)) }
func (f *fakeTimeline) Status() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprintf("▶ %s / 1m0s", f.pos)
}
func (f *fakeTimeline) got() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, ", ")
}

// TestReplayTimelineKeys: with a Timeline the replay's keys drive it, the
// status line shows its position, and help lists the keys; a live
// dashboard has none of them.
func TestReplayTimelineKeys(t *testing.T) {
	tl := &fakeTimeline{}
	hs := startCfg(t, 120, 40, style.Palette{}, nil, func(c *Config) { c.Timeline = tl })
	hs.waitText("▶ 0s / 1m0s")
	hs.key(tcell.KeyRune, ' ')
	hs.runes(".><}{)(")
	want := "play, step, seek 10s, seek -10s, edge true, edge false, speed 2, speed 0.5"
	deadline := time.Now().Add(2 * time.Second)
	for tl.got() != want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := tl.got(); got != want {
		t.Fatalf("calls %q, want %q", got, want)
	}
	hs.runes(">>")
	hs.waitText("▶ 20s / 1m0s")
	hs.key(tcell.KeyRune, '?')
	hs.waitText("show or hide this help")
	for i := 0; i < 6; i++ { // the Replay section comes last
		hs.key(tcell.KeyPgDn, 0)
	}
	hs.waitText("seek back / forward 10 s")

	live := start(t, 120, 40, style.Palette{}, nil)
	live.key(tcell.KeyRune, '?')
	live.waitText("show or hide this help")
	for i := 0; i < 6; i++ {
		live.key(tcell.KeyPgDn, 0)
	}
	live.waitText("closes this help")
	live.waitGone("seek back / forward 10 s")
}
