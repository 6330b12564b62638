package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// knownHistory is 200 seconds of a VM with planted peaks: CPU 160% at
// second 50 and 80% at 182, 5 threads at 190, a 12M heap at 170 (of 16M),
// PSS 64M at 195, a GC at 185; otherwise 10%, 3 threads, 8M, 40M.
func knownHistory() *vmHistory {
	h := newHistory(sec(0))
	for i := 0; i < 200; i++ {
		s := timelineSample{at: sec(i), cpu: 10, threads: 3, heapUsed: 8 << 20, heapSize: 16 << 20, pss: 40 << 20}
		switch i {
		case 50:
			s.cpu = 160
		case 182:
			s.cpu = 80
		case 190:
			s.threads = 5
		case 170:
			s.heapUsed = 12 << 20
		case 195:
			s.pss = 64 << 20
		case 185:
			s.gc = true
		}
		h.push(s)
	}
	return h
}

// cellAt returns the rune at column x of line (runes, not bytes).
func cellAt(line string, x int) rune {
	rs := []rune(line)
	if x < 0 || x >= len(rs) {
		return 0
	}
	return rs[x]
}

// findLine returns the index of the first line containing sub and the rune
// column where it starts.
func findLine(t *testing.T, lines []string, sub string) (int, int) {
	t.Helper()
	for y, l := range lines {
		if i := strings.Index(l, sub); i >= 0 {
			return y, len([]rune(l[:i]))
		}
	}
	t.Fatalf("no line with %q:\n%s", sub, strings.Join(lines, "\n"))
	return 0, 0
}

func TestTimelineDrawsKnownSamples(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.dash.App().QueueUpdateDraw(func() { hs.dash.m.history["local:8000"] = knownHistory() })
	hs.key(tcell.KeyRune, 'T')
	hs.waitText("Timeline · com.example.mail (1234)")
	// The window holds the newest 118 seconds (82…199): 160% at 50 is out.
	hs.waitText("CPU  now 10.0% · max 80.0%")
	hs.waitText("Java heap  now 8.0M · max 12.0M · of 16.0M")
	hs.waitText("PSS  now 40.0M · max 64.0M")
	hs.waitText("Threads  now 3 · max 5")
	lines := hs.text()
	cpuY, x0 := findLine(t, lines, "CPU  now")
	heapY, _ := findLine(t, lines, "Java heap  now")
	col := func(i int) int { return x0 + i - 82 }
	// Second 182 is the window's CPU maximum: a full column; 10% of 80%
	// is seven eighths of the bottom row and nothing above.
	for y := cpuY + 1; y < heapY; y++ {
		if r := cellAt(lines[y], col(182)); r != '█' {
			t.Fatalf("CPU peak column row %d: %q\n%s", y, r, strings.Join(lines, "\n"))
		}
		want := ' '
		if y == heapY-1 {
			want = '▇'
		}
		if r := cellAt(lines[y], col(100)); r != want {
			t.Fatalf("CPU 10%% column row %d: %q, want %q", y, r, want)
		}
	}
	// The heap strip is scaled to the heap's size (16M): 8M fills the
	// lower half of its rows exactly, 12M three quarters.
	pssY, _ := findLine(t, lines, "PSS  now")
	rows := pssY - heapY - 1
	if rows%4 != 0 {
		t.Fatalf("heap chart %d rows at 120x40, want a multiple of 4", rows)
	}
	for r := 0; r < rows; r++ {
		y := pssY - 1 - r // from the bottom
		want8, want12 := ' ', ' '
		if r < rows/2 {
			want8 = '█'
		}
		if r < rows*3/4 {
			want12 = '█'
		}
		if got := cellAt(lines[y], col(100)); got != want8 {
			t.Fatalf("8M column, row %d from the bottom: %q, want %q", r, got, want8)
		}
		if got := cellAt(lines[y], col(170)); got != want12 {
			t.Fatalf("12M column, row %d from the bottom: %q, want %q", r, got, want12)
		}
	}
	if heapY-cpuY-1 < 3 {
		t.Fatalf("CPU chart only %d rows at 120x40", heapY-cpuY-1)
	}
	// The GC mark is under second 185 alone.
	gcY, _ := findLine(t, lines, "▲ GC")
	gcMarks := gcY - 1
	if cellAt(lines[gcMarks], col(185)) != '▲' || cellAt(lines[gcMarks], col(184)) != ' ' || cellAt(lines[gcMarks], col(186)) != ' ' {
		t.Fatalf("GC marks row: %q", lines[gcMarks])
	}
	if !strings.Contains(lines[gcY], "10:01:22") || !strings.Contains(lines[gcY], "10:03:19") {
		t.Fatalf("time axis %q, want 10:01:22 … 10:03:19", lines[gcY])
	}
	// Home: back to when the VM was first seen; the 160% peak shows.
	hs.key(tcell.KeyHome, 0)
	hs.waitText("CPU  now 10.0% · max 160.0%")
	hs.waitText("back (End: follow)")
	hs.key(tcell.KeyEnd, 0)
	hs.waitText("CPU  now 10.0% · max 80.0%")
	// Left scrolls 10 s back; Esc returns to the dashboard.
	hs.key(tcell.KeyLeft, 0)
	hs.waitText("0:10 back (End: follow)")
	hs.key(tcell.KeyEscape, 0)
	hs.waitGone("Timeline ·")
	hs.waitText("Binder:1234_1")
}

// posTimeline is a replay clock that tells its position.
type posTimeline struct{ fakeTimeline }

func (p *posTimeline) Position() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pos
}

// TestTimelineInReplayUsesTheRecordingsClock: in a replay the samples are
// stamped with the replay's position, and the axis shows it.
func TestTimelineInReplayUsesTheRecordingsClock(t *testing.T) {
	tl := &posTimeline{}
	tl.pos = 65 * time.Second
	hs := startCfg(t, 120, 40, style.Palette{}, twoVMs, func(c *Config) { c.Timeline = tl })
	hs.waitText("Binder:1234_1")
	hs.runes(":timeline\r")
	hs.waitText("seen since 1:05 (0:00)")
	hs.waitText("Threads  now 3 · max 3")
	hs.waitText("1:05 ▲ GC")
}

func TestTimelineKeyInHelp(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, '?')
	hs.waitText("Keys")
	for i := 0; i < 4; i++ {
		hs.key(tcell.KeyPgDn, 0) // the help is taller than the screen
	}
	hs.waitText("the selected VM's timeline: CPU, heap, PSS, threads, GCs")
	hs.waitText("timeline: when ddmtui first saw the VM")
}

// preloadTimeline is a replay clock with a recording to preload: 300
// seconds of local:8000 with 3 threads, 9 at second 150.
type preloadTimeline struct{ posTimeline }

func (p *preloadTimeline) Preload(ctx context.Context, add func(time.Duration, []monitor.Event)) {
	for s := 0; s < 300 && ctx.Err() == nil; s++ {
		n := 3
		switch s {
		case 150:
			n = 9
		case 100:
			n = 4 // where the replay is
		}
		add(time.Duration(s)*time.Second, []monitor.Event{monitor.ThreadsUpdated{Key: "local:8000", Threads: make([]monitor.Thread, n)}})
	}
}

// TestTimelinePreloadedReplayShowsTheWholeRecording: with a Preloader the
// timeline holds the whole recording, follows and marks the replay's
// position, scrolls over the rest, and the replay's own events add nothing.
func TestTimelinePreloadedReplayShowsTheWholeRecording(t *testing.T) {
	tl := &preloadTimeline{}
	tl.pos = 100 * time.Second
	hs := startCfg(t, 120, 40, style.Palette{}, twoVMs, func(c *Config) { c.Timeline = tl })
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'T')
	hs.waitText("the whole recording, 0:00 to 4:59 · 1 column = 1s · ◆ replay at 1:40")
	// Following the replay: the window ends a quarter of it past 1:40
	// (seconds 12…129), so the 9 threads of 2:30 are not in it; "now" is
	// the replay's second.
	hs.waitText("Threads  now 4 · max 4")
	lines := hs.text()
	_, x0 := findLine(t, lines, "the whole recording")
	axisY, _ := findLine(t, lines, "◆ replay ▲ GC")
	if r := cellAt(lines[axisY], x0+100-12); r != '◆' {
		t.Fatalf("position mark: %q at the replay's column; axis %q", r, lines[axisY])
	}
	if !strings.Contains(lines[axisY], "0:12") || !strings.Contains(lines[axisY], "2:09") {
		t.Fatalf("axis %q, want 0:12 … 2:09", lines[axisY])
	}
	// The replay's own events add nothing to a preloaded timeline.
	hs.store.SetThreads("local:8000", make([]monitor.Thread, 7))
	hs.waitFor("the 7 threads in the model", func(string) bool {
		n := 0
		hs.dash.App().QueueUpdate(func() { n = len(hs.dash.m.threads["local:8000"]) })
		return n == 7
	})
	hs.waitText("Threads  now 4 · max 4")
	// A screen forward, from where it follows: seconds 130…247.
	hs.key(tcell.KeyPgDn, 0)
	hs.waitText("Threads  now 4 · max 9")
	hs.waitText("(End: follow it)")
	hs.key(tcell.KeyEnd, 0)
	hs.waitText("Threads  now 4 · max 4")
}
