package monitor

import (
	"sync"
	"time"
)

// pollClock is one ticker shared by every session that polls THST at the
// same interval: with 200 VMs the process wakes once per tick and polls them
// all, instead of waking for each VM's own timer at its own instant (400
// wake-ups a second at 2 Hz). Sessions hold a reference while they poll;
// the ticker stops with the last one.
type pollClock struct {
	mu   sync.Mutex
	tick chan struct{} // closed at the next tick, then replaced
	refs int
	stop chan struct{}
}

var pollClocks struct {
	mu sync.Mutex
	m  map[time.Duration]*pollClock
}

// acquirePollClock returns the shared clock ticking every d (> 0); call
// release when done with it.
func acquirePollClock(d time.Duration) *pollClock {
	pollClocks.mu.Lock()
	defer pollClocks.mu.Unlock()
	if pollClocks.m == nil {
		pollClocks.m = map[time.Duration]*pollClock{}
	}
	c := pollClocks.m[d]
	if c == nil {
		c = &pollClock{tick: make(chan struct{}), stop: make(chan struct{})}
		pollClocks.m[d] = c
		go c.run(d)
	}
	c.refs++
	return c
}

func (c *pollClock) run(d time.Duration) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			c.mu.Lock()
			close(c.tick)
			c.tick = make(chan struct{})
			c.mu.Unlock()
		case <-c.stop:
			return
		}
	}
}

// next returns a channel closed at the next tick.
func (c *pollClock) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tick
}

// release drops a reference taken by acquirePollClock.
func (c *pollClock) release(d time.Duration) {
	pollClocks.mu.Lock()
	defer pollClocks.mu.Unlock()
	c.refs--
	if c.refs == 0 {
		close(c.stop)
		delete(pollClocks.m, d)
	}
}
