package tui

import (
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/tui/style"
)

// A progress line does not replace a message flashed less than flashHold
// ago ("busy: … under way" was overwritten by the dump's next progress
// line before anyone could read it); after the hold it does, and a
// progress line replaces the one before it at once.
func TestProgressWaitsForAFlashedMessage(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	now := t0
	got := make(chan string, 1)
	step := func(f func(p *statusLine)) string {
		hs.dash.App().QueueUpdate(func() {
			hs.dash.now = func() time.Time { return now }
			f(hs.dash.statusP)
			got <- hs.dash.statusP.msg.text
		})
		return <-got
	}
	step(func(p *statusLine) { p.flash("busy: a heap dump is under way") })
	now = t0.Add(flashHold / 2)
	if s := step(func(p *statusLine) { p.show("received 1 KiB") }); s != "busy: a heap dump is under way" {
		t.Errorf("within the hold the status says %q", s)
	}
	now = t0.Add(flashHold)
	if s := step(func(p *statusLine) { p.show("received 2 KiB") }); s != "received 2 KiB" {
		t.Errorf("after the hold the status says %q", s)
	}
	if s := step(func(p *statusLine) { p.show("received 3 KiB") }); s != "received 3 KiB" {
		t.Errorf("a progress line did not replace the one before: %q", s)
	}
}
