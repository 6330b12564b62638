package monitor

import (
	"sync"
	"time"
)

// pollClock is one ticker shared by every session that polls THST at the
// same interval. At each tick its goroutine calls every member's tick in
// turn, which writes the poll request without waiting for anything (the
// reply is applied by the connection's reader): with 200 VMs the process
// wakes once per tick and writes 200 requests from one goroutine, instead of
// waking 200 goroutines that each write one and wait for their reply.
type pollClock struct {
	// mu is held while the members are called, so that leave, once it
	// returns, knows that no tick of the member is under way.
	mu      sync.Mutex
	members []ticker
	stop    chan struct{}
}

// ticker is a member of a pollClock. tick must not block: it runs on the
// clock's goroutine, before the ticks of the other members.
type ticker interface{ tick(now time.Time) }

var pollClocks struct {
	mu sync.Mutex
	m  map[time.Duration]*pollClock
}

// joinPollClock adds t to the shared clock ticking every d (> 0), started
// if need be; call leave when done with it.
func joinPollClock(d time.Duration, t ticker) *pollClock {
	pollClocks.mu.Lock()
	defer pollClocks.mu.Unlock()
	if pollClocks.m == nil {
		pollClocks.m = map[time.Duration]*pollClock{}
	}
	c := pollClocks.m[d]
	if c == nil {
		c = &pollClock{stop: make(chan struct{})}
		pollClocks.m[d] = c
		go c.run(d)
	}
	c.mu.Lock()
	c.members = append(c.members, t)
	c.mu.Unlock()
	return c
}

func (c *pollClock) run(d time.Duration) {
	tk := time.NewTicker(d)
	defer tk.Stop()
	for {
		select {
		case now := <-tk.C:
			c.mu.Lock()
			for _, m := range c.members {
				m.tick(now)
			}
			c.mu.Unlock()
		case <-c.stop:
			return
		}
	}
}

// leave removes t (joined at interval d): when it returns, no tick of t is
// under way and none will come. The clock stops with its last member.
func (c *pollClock) leave(d time.Duration, t ticker) {
	pollClocks.mu.Lock()
	defer pollClocks.mu.Unlock()
	c.mu.Lock()
	for i, m := range c.members {
		if m == t {
			last := len(c.members) - 1
			c.members[i] = c.members[last]
			c.members[last] = nil
			c.members = c.members[:last]
			break
		}
	}
	empty := len(c.members) == 0
	c.mu.Unlock()
	if empty {
		close(c.stop)
		delete(pollClocks.m, d)
	}
}
