package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// timelineView is the selected VM's timeline (T, :timeline), as Android
// Studio's profiler opens with: CPU %, the Java heap, PSS and the thread
// count over the session, one column a second, with GC marks — drawn from
// the model's per-VM ring (history.go). It follows the newest second until
// scrolled back; it reads the model when drawn (UI goroutine).
type timelineView struct {
	*tview.Box
	env         paneEnv
	open, close func() // the overlay's page
	back        int    // columns scrolled back from the newest sample (0: follow)
	cols        int    // chart width at the last draw
	end         int    // one past the last sample drawn
}

// TimelineScope is the scope of the keys that act while the timeline is
// open.
const TimelineScope = "timeline"

// eighthBlocks are the eighths of a cell the charts are drawn with.
var eighthBlocks = []rune{' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'}

func newTimelineView(env paneEnv, open, close func()) *timelineView {
	v := &timelineView{Box: tview.NewBox(), env: env, open: open, close: close}
	v.SetBorder(true)
	return v
}

// keys are T (open) and the timeline's own keys, which act while it is
// open (TimelineScope).
func (v *timelineView) keys() []keymap.Binding {
	const g = "Timeline"
	b, a := keymap.Bind, keymap.Alias
	return []keymap.Binding{
		b(tcell.KeyRune, 'T', "T", "the selected VM's timeline: CPU, heap, PSS, threads, GCs", "VM", v.open).As("timeline"),
		b(tcell.KeyLeft, 0, "← / →", "timeline: 10 s back / forward", g, func() { v.scroll(10) }).As("timeline-back").In(TimelineScope),
		a(tcell.KeyRight, 0, func() { v.scroll(-10) }).As("timeline-forward").In(TimelineScope),
		b(tcell.KeyPgUp, 0, "PgUp / PgDn", "timeline: a screen back / forward", g, func() { v.scroll(max(v.cols, 1)) }).As("timeline-page-back").In(TimelineScope),
		a(tcell.KeyPgDn, 0, func() { v.scroll(-max(v.cols, 1)) }).As("timeline-page-forward").In(TimelineScope),
		b(tcell.KeyHome, 0, "Home / End", "timeline: when ddmtui first saw the VM / now (follows)", g, func() { v.scroll(1 << 30) }).As("timeline-first").In(TimelineScope),
		a(tcell.KeyEnd, 0, func() { v.back = 0 }).As("timeline-follow").In(TimelineScope),
		b(tcell.KeyEscape, 0, "Esc / q / T", "timeline: back to the dashboard", g, v.close).As("timeline-close").In(TimelineScope),
		a(tcell.KeyRune, 'q', v.close).As("timeline-close").In(TimelineScope),
		a(tcell.KeyRune, 'T', v.close).As("timeline-close").In(TimelineScope),
	}
}

// scroll moves the window n columns back in time (negative: forward),
// within the samples kept.
func (v *timelineView) scroll(n int) {
	total := 0
	if h := v.env.m.history[v.env.m.sel]; h != nil {
		total = h.Len()
	}
	cur := v.back
	if cur == 0 && v.end > 0 {
		cur = max(0, total-v.end) // following a replay's position: from where it is
	}
	v.back = max(0, min(cur+n, total-v.cols))
}

// replayIndex is the sample at the replay's position, when the timelines
// hold the whole recording (model.preload).
func (v *timelineView) replayIndex(h *vmHistory) (int, bool) {
	p, ok := v.env.cfg.Timeline.(Positioner)
	if !ok || !v.env.m.preloaded || h.Len() == 0 {
		return 0, false
	}
	at := replayEpoch.Add(p.Position()).Truncate(historyStep)
	return min(max(int(at.Sub(h.At(0).at)/historyStep), 0), h.Len()-1), true
}

// metric is one strip of the timeline.
type metric struct {
	name  string
	value func(timelineSample) float64 // < 0: not known at that second
	unit  func(float64) string
	ceil  func(timelineSample) float64 // the strip's scale at a second (0: the window's maximum)
	none  string                       // said when no second has it
}

func (v *timelineView) metrics() []metric {
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", x) }
	bytes := func(x float64) string { return humanBytes(uint64(x)) }
	count := func(x float64) string { return fmt.Sprintf("%.0f", x) }
	return []metric{
		{name: "CPU", value: func(s timelineSample) float64 { return s.cpu }, unit: pct,
			none: "no CPU times yet (THST or /proc)"},
		{name: "Java heap", value: func(s timelineSample) float64 { return float64(s.heapUsed) }, unit: bytes,
			ceil: func(s timelineSample) float64 { return float64(s.heapSize) },
			none: "no heap summary yet (HPIF or meminfo)"},
		{name: "PSS", value: func(s timelineSample) float64 { return float64(s.pss) }, unit: bytes,
			none: "no PSS (dumpsys meminfo needs an adb device)"},
		{name: "Threads", value: func(s timelineSample) float64 { return float64(s.threads) }, unit: count,
			none: "no thread table yet"},
	}
}

// Draw draws the header, the four strips, the GC marks and the time axis.
func (v *timelineView) Draw(screen tcell.Screen) {
	v.DrawForSubclass(screen, v)
	x, y, w, h := v.GetInnerRect()
	if w < 10 || h < 3 {
		return
	}
	e := v.env
	plain := tcell.StyleDefault
	dim, bold := plain.Dim(true), plain.Bold(true)
	accent := plain.Foreground(e.pal.Accent())
	text := func(cx, cy int, s string, st tcell.Style) int {
		return printCells(screen, cx, cy, x+w-cx, s, st)
	}
	vm, ok := e.m.selected()
	hist := e.m.history[e.m.sel]
	v.SetTitle(" Timeline ")
	if !ok || hist == nil || hist.Len() == 0 {
		text(x, y, "no VM selected, or nothing heard from it yet", dim)
		return
	}
	v.SetTitle(" Timeline · " + style.Escape(vmLabel(vm, 40)) + " ")
	v.cols = w
	v.back = max(0, min(v.back, hist.Len()-w))
	end := hist.Len() - v.back // one past the newest sample shown
	pos, replay := v.replayIndex(hist)
	if replay && v.back == 0 {
		end = min(hist.Len(), max(pos+1+w/4, w)) // follow the replay, a quarter ahead
	}
	v.end = end
	from := max(0, end-w)
	last := hist.At(end - 1)
	current := last // "now" in the labels: the newest second, or the replay's
	if replay {
		current = hist.At(pos)
	}
	head := fmt.Sprintf("seen since %s (%s) · 1 column = %s", clockOf(e.cfg.Timeline, hist.first), spanOf(last.at.Sub(hist.first)), historyStep)
	switch {
	case replay:
		head = fmt.Sprintf("the whole recording, %s to %s · 1 column = %s · ◆ replay at %s", clockOf(e.cfg.Timeline, hist.At(0).at),
			clockOf(e.cfg.Timeline, hist.At(hist.Len()-1).at), historyStep, clockOf(e.cfg.Timeline, hist.At(pos).at))
		if v.back > 0 {
			head += " (End: follow it)"
		}
	case v.back > 0:
		head += fmt.Sprintf(" · %s back (End: follow)", spanOf(hist.At(hist.Len()-1).at.Sub(last.at)))
	}
	text(x, y, head, dim)
	// Each strip: a label line, then chart rows when it has data (the rows
	// shared among those); then the GC marks and the time axis.
	ms := v.metrics()
	type stat struct {
		peak, ceil float64
		any        bool
	}
	stats := make([]stat, len(ms))
	charts := 0
	for k, mt := range ms {
		st := &stats[k]
		for i := from; i < end; i++ {
			s := hist.At(i)
			if val := mt.value(s); val >= 0 {
				st.peak, st.any = max(st.peak, val), true
			}
			if mt.ceil != nil {
				st.ceil = max(st.ceil, mt.ceil(s))
			}
		}
		if st.any {
			charts++
		}
	}
	spare := max(0, h-1-len(ms)-2)
	cy := y + 1
	for k, mt := range ms {
		if cy >= y+h {
			break
		}
		peak, ceil, any := stats[k].peak, stats[k].ceil, stats[k].any
		rows := 0
		if any {
			rows = max(1, spare/charts)
			spare -= rows
			charts--
		}
		scale := max(peak, ceil)
		label := mt.name + "  "
		cx := text(x, cy, label, bold)
		switch now := mt.value(current); {
		case !any:
			text(cx, cy, mt.none, dim)
		default:
			desc := "max " + mt.unit(peak)
			if now >= 0 {
				desc = "now " + mt.unit(now) + " · " + desc
			}
			if mt.ceil != nil && ceil > 0 {
				desc += " · of " + mt.unit(ceil)
			}
			text(cx, cy, desc, plain)
		}
		cy++
		nrows := max(0, min(rows, y+h-cy))
		if any && scale > 0 {
			for i := from; i < end; i++ {
				val := mt.value(hist.At(i))
				if val < 0 {
					continue
				}
				eighths := int(val/scale*float64(nrows*8) + 0.5)
				if val > 0 && eighths == 0 {
					eighths = 1 // above zero shows
				}
				for r := 0; r < nrows; r++ {
					lv := min(max(eighths-r*8, 0), 8)
					screen.SetContent(x+i-from, cy+nrows-1-r, eighthBlocks[lv], nil, accent)
				}
			}
		}
		cy += nrows
	}
	if cy < y+h {
		if !hasGC(hist, from, end) {
			text(x, cy, "no GC seen in this window", dim)
		}
		for i := from; i < end; i++ {
			if hist.At(i).gc {
				screen.SetContent(x+i-from, cy, '▲', nil, plain.Foreground(e.pal.Warning()))
			}
		}
		cy++
	}
	if cy < y+h {
		left := clockOf(e.cfg.Timeline, hist.At(from).at)
		right := clockOf(e.cfg.Timeline, last.at) + " ▲ GC"
		if replay {
			right = clockOf(e.cfg.Timeline, last.at) + " ◆ replay ▲ GC"
		}
		text(x, cy, left, dim)
		text(x+max(len(left)+1, w-uniseg.StringWidth(right)), cy, right, dim)
		if replay && pos >= from && pos < end {
			screen.SetContent(x+pos-from, cy, '◆', nil, bold.Foreground(e.pal.Accent()))
		}
	}
}

func hasGC(h *vmHistory, from, end int) bool {
	for i := from; i < end; i++ {
		if h.At(i).gc {
			return true
		}
	}
	return false
}

// clockOf writes a sample's time: the time of day live, the position in
// the recording in a replay.
func clockOf(tl Timeline, t time.Time) string {
	if _, ok := tl.(Positioner); ok {
		return spanOf(t.Sub(replayEpoch))
	}
	return t.Format("15:04:05")
}

// spanOf writes a duration as m:ss or h:mm:ss.
func spanOf(dur time.Duration) string {
	s := int(dur.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// printCells writes s from (x, y), at most w cells, and returns the column
// after it. s is ours or escaped for the terminal already.
func printCells(screen tcell.Screen, x, y, w int, s string, st tcell.Style) int {
	g := uniseg.NewGraphemes(strings.TrimRight(s, "\n"))
	end := x + w
	for g.Next() {
		rs := g.Runes()
		if x+g.Width() > end {
			break
		}
		screen.SetContent(x, y, rs[0], rs[1:], st)
		x += g.Width()
	}
	return x
}

// openTimeline shows the selected VM's timeline.
func (o *overlays) openTimeline() {
	if _, ok := o.env.m.selected(); !ok {
		o.env.flash("timeline: no VM selected")
		return
	}
	o.timeline.back = 0
	o.show("timeline", o.timeline)
}
