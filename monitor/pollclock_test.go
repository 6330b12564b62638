package monitor

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// countTicker counts its ticks; its tick can be made to block.
type countTicker struct {
	n     atomic.Int64
	ticks chan struct{} // gets a value per tick, if there is room
	hold  sync.RWMutex  // write-locked by the test: tick waits for it
}

func newCountTicker() *countTicker { return &countTicker{ticks: make(chan struct{}, 1)} }

func (c *countTicker) tick(time.Time) {
	c.hold.RLock()
	c.n.Add(1)
	c.hold.RUnlock()
	select {
	case c.ticks <- struct{}{}:
	default:
	}
}

func waitTick(t *testing.T, c *countTicker) {
	t.Helper()
	select {
	case <-c.ticks:
	case <-time.After(10 * time.Second):
		t.Fatal("no tick")
	}
}

// Members of one interval share one clock, whose ticks reach every one of
// them, and whose goroutine ends when the last one leaves.
func TestPollClockShared(t *testing.T) {
	leakcheck.Check(t)
	const d = 5 * time.Millisecond
	ta, tb, tc := newCountTicker(), newCountTicker(), newCountTicker()
	a, b := joinPollClock(d, ta), joinPollClock(d, tb)
	if a != b {
		t.Fatal("two clocks for one interval")
	}
	if c := joinPollClock(2*d, tc); c == a {
		t.Error("one clock for two intervals")
	} else {
		waitTick(t, tc)
		c.leave(2*d, tc)
	}
	waitTick(t, ta)
	waitTick(t, tb)
	a.leave(d, ta)
	// After leave, ta gets no tick while tb goes on.
	n := ta.n.Load()
	waitTick(t, tb)
	waitTick(t, tb)
	if got := ta.n.Load(); got != n {
		t.Errorf("%d ticks after leave", got-n)
	}
	b.leave(d, tb)
	pollClocks.mu.Lock()
	left := pollClocks.m[d]
	pollClocks.mu.Unlock()
	if left != nil {
		t.Error("the clock is left after every member left")
	}
}

// leave waits for a tick of the member that is under way: once it returns,
// the member's tick is not running.
func TestPollClockLeaveWaitsForTick(t *testing.T) {
	leakcheck.Check(t)
	const d = 2 * time.Millisecond
	m := newCountTicker()
	c := joinPollClock(d, m)
	waitTick(t, m)
	m.hold.Lock() // the next tick blocks in m.tick
	time.Sleep(5 * d)
	left := make(chan struct{})
	go func() {
		c.leave(d, m)
		close(left)
	}()
	select {
	case <-left:
		t.Fatal("leave returned while the member's tick was under way")
	case <-time.After(50 * time.Millisecond):
	}
	m.hold.Unlock()
	<-left
	n := m.n.Load()
	time.Sleep(5 * d)
	if got := m.n.Load(); got != n {
		t.Errorf("%d ticks after leave returned", got-n)
	}
}
