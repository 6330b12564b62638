package tui

import (
	"context"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/keymap"
)

// Timeline is the clock of a replayed session (`ddmtui replay FILE`): with
// Config.Timeline set, the dashboard binds the keys that drive it and shows
// Status in the status line. Its methods are called on the UI goroutine and
// must return at once (a seek that takes a while runs elsewhere).
type Timeline interface {
	TogglePlay()
	Step()
	SeekBy(d time.Duration)
	SeekEdge(end bool) // to the start, or to the end
	ScaleSpeed(factor float64)
	Status() string // e.g. "▶ 0:05.0 / 1:00.0 ×2"
}

// Positioner is a Timeline that says where in the recording it is: the
// VM timeline (T) stamps its samples with that position, so a replay draws
// the session's own time, and a seek back drops what comes after it.
type Positioner interface {
	Position() time.Duration
}

// Preloader is a Timeline that can give its whole recording's events up
// front, for the VM timelines: Preload calls add with each second's events
// in order (at: the second's position in the recording) until the end or
// until ctx ends. It runs off the UI goroutine. The timelines then show the
// whole recording, marked where the replay is, and the replay's own events
// add nothing to them.
type Preloader interface {
	Preload(ctx context.Context, add func(at time.Duration, evs []monitor.Event))
}

// startPreload fills the VM timelines from the Timeline's recording, when
// it can give one (Preloader).
func (d *Dashboard) startPreload() {
	pl, ok := d.cfg.Timeline.(Preloader)
	if !ok {
		return
	}
	ctx := d.jobs.bg()
	d.jobs.spawn(func() {
		hist := map[string]*vmHistory{}
		pl.Preload(ctx, func(at time.Duration, evs []monitor.Event) {
			recordEvents(hist, evs, replayEpoch.Add(at))
		})
		if ctx.Err() == nil {
			d.jobs.post(func() { d.m.preload(hist) })
		}
	})
}

// replayEpoch is the instant a replay's position 0 stands for.
var replayEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// sessionClock is the time the VM timeline's samples are stamped with:
// the wall clock live, the replay's position in a replay.
func (d *Dashboard) sessionClock() time.Time {
	if p, ok := d.cfg.Timeline.(Positioner); ok {
		return replayEpoch.Add(p.Position())
	}
	return d.now()
}

// seekStep is how far < and > move in a replay.
const seekStep = 10 * time.Second

// timelineKeys are the replay's keys (none when the dashboard is live).
func (d *Dashboard) timelineKeys() []keymap.Binding {
	tl := d.cfg.Timeline
	if tl == nil {
		return nil
	}
	const sec = "Replay"
	b := keymap.Bind
	return []keymap.Binding{
		b(tcell.KeyRune, ' ', "Space", "play / pause the replay", sec, tl.TogglePlay).As("replay-play"),
		b(tcell.KeyRune, '.', ".", "step to the next recorded instant", sec, tl.Step).As("replay-step"),
		b(tcell.KeyRune, '<', "< / >", "seek back / forward 10 s", sec, func() { tl.SeekBy(-seekStep) }).As("replay-back"),
		keymap.Alias(tcell.KeyRune, '>', func() { tl.SeekBy(seekStep) }).As("replay-forward"),
		b(tcell.KeyRune, '{', "{ / }", "jump to the start / end of the recording", sec, func() { tl.SeekEdge(false) }).As("replay-start"),
		keymap.Alias(tcell.KeyRune, '}', func() { tl.SeekEdge(true) }).As("replay-end"),
		b(tcell.KeyRune, '(', "( / )", "half / double the replay speed", sec, func() { tl.ScaleSpeed(0.5) }).As("replay-slower"),
		keymap.Alias(tcell.KeyRune, ')', func() { tl.ScaleSpeed(2) }).As("replay-faster"),
	}
}
