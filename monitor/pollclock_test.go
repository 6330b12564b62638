package monitor

import (
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/leakcheck"
)

// Sessions of one interval share one clock, whose ticks reach every one of
// them, and whose goroutine ends with the last release.
func TestPollClockShared(t *testing.T) {
	leakcheck.Check(t)
	const d = 5 * time.Millisecond
	a, b := acquirePollClock(d), acquirePollClock(d)
	if a != b {
		t.Fatal("two clocks for one interval")
	}
	if c := acquirePollClock(2 * d); c == a {
		t.Error("one clock for two intervals")
	} else {
		c.release(2 * d)
	}
	ta, tb := a.next(), b.next()
	for _, ch := range []<-chan struct{}{ta, tb} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatal("no tick")
		}
	}
	a.release(d)
	b.release(d)
	pollClocks.mu.Lock()
	left := pollClocks.m[d]
	pollClocks.mu.Unlock()
	if left != nil {
		t.Error("the clock is left after every release")
	}
}
