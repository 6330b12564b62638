package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// benchLogPane is a log pane holding n entries (a mix of tags, levels and
// messages, some multi-line) and a regex query, on a 120x40 screen.
func benchLogPane(b *testing.B, n int, query string) (*logPane, tcell.SimulationScreen) {
	b.Helper()
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		b.Fatal(err)
	}
	screen.SetSize(120, 40)
	d := New(Config{Store: monitor.NewStore(monitor.NewBus()), Palette: style.Palette{}, Screen: screen})
	p := d.logP
	p.later = nil // the benchmark drives the chunks
	p.log = devicelog.New(nil, "", 0)
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	tags := []string{"ActivityManager", "okhttp.OkHttpClient", "Choreographer", "Camera", "OpenGLRenderer"}
	p.all = make([]logcat.Entry, n)
	for i := range p.all {
		msg := fmt.Sprintf("request %d done in %d ms, %d bytes", i, i%997, i*7%65536)
		if i%50 == 0 {
			msg = fmt.Sprintf("java.net.SocketTimeoutException: timeout %dms\n\tat okhttp3.internal.Call.execute(Call.java:%d)", i%3000, i%500)
		}
		p.all[i] = logcat.Entry{Seq: uint64(i + 1), Time: t0.Add(time.Duration(i) * time.Millisecond), PID: 5120, TID: int32(5120 + i%9),
			Priority: logcat.Priority(2 + i%6), Tag: tags[i%len(tags)], Message: msg}
	}
	q, err := logcat.Compile(query, logcat.QueryOptions{})
	if err != nil {
		b.Fatal(err)
	}
	p.qsrc, p.query, p.words = query, q, queryWords(query)
	return p, screen
}

// One frame while the query is being re-applied (the worst case): one
// chunk of logChunk entries filtered with a regex, then the visible rows
// drawn, with 200,000 entries buffered. The frame budget is 33 ms.
func BenchmarkLogPaneFrameRefilter(b *testing.B) {
	for _, bc := range []struct{ name, query string }{
		{"literal-regex", `level:I message~:"timeout [0-9]+ms"`},
		{"plain-regex", `message~:"[a-z]+ [0-9]+[05] "`}, // no literal to narrow it: the regex runs on every entry
	} {
		b.Run(bc.name, func(b *testing.B) {
			p, screen := benchLogPane(b, 200_000, bc.query)
			matched := 0
			for b.Loop() {
				p.shown, p.done = p.shown[:0], len(p.all)-logChunk
				p.step()
				p.draw(screen, 1, 1, 118, 38)
				matched = len(p.shown)
			}
			if matched == 0 {
				b.Fatal("the query matches nothing")
			}
		})
	}
}

// A steady frame: 200,000 entries buffered and filtered, following; a few
// new entries arrive and the visible rows are drawn (wrap on).
func BenchmarkLogPaneFrameFollow(b *testing.B) {
	p, screen := benchLogPane(b, 200_000, `message~:"timeout [0-9]+ms"`)
	all := p.all
	p.all = all[:len(all)-1000]
	for p.done < len(p.all) {
		p.step()
	}
	if len(p.shown) == 0 {
		b.Fatal("the query matches nothing")
	}
	p.wrap = true
	k := len(p.shown)
	for b.Loop() {
		p.all, p.done, p.shown = all, len(all)-1000, p.shown[:k] // 1000 new entries arrive
		p.step()
		p.draw(screen, 1, 1, 118, 38)
	}
}
