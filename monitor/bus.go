package monitor

import (
	"sync"
)

// Event is something a session publishes. Events of the same CoalesceKey
// replace each other while a subscriber has not taken them yet: a newer
// thread table supersedes an older one that was never drawn.
type Event interface {
	CoalesceKey() string
}

// Bus fans events out to subscribers. Publish never blocks: each subscriber
// has its own queue, bounded by the number of distinct coalesce keys (a few
// per VM), so a slow subscriber costs memory proportional to the VMs, not
// to the traffic.
type Bus struct {
	mu   sync.Mutex
	subs map[*Subscription]struct{}
}

// NewBus returns an empty bus.
func NewBus() *Bus { return &Bus{subs: map[*Subscription]struct{}{}} }

// Subscription is one subscriber's coalescing queue.
type Subscription struct {
	bus    *Bus
	mu     sync.Mutex
	order  []string
	events map[string]Event
	notify chan struct{}
	closed bool
}

// Subscribe registers a new subscriber.
func (b *Bus) Subscribe() *Subscription {
	s := &Subscription{bus: b, events: map[string]Event{}, notify: make(chan struct{}, 1)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Publish queues ev for every subscriber.
func (b *Bus) Publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.put(ev)
	}
}

func (s *Subscription) put(ev Event) {
	k := ev.CoalesceKey()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if _, ok := s.events[k]; !ok {
		s.order = append(s.order, k)
	}
	s.events[k] = ev
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Ready receives a value whenever events are waiting.
func (s *Subscription) Ready() <-chan struct{} { return s.notify }

// Drain takes every waiting event, oldest key first.
func (s *Subscription) Drain() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.order) == 0 {
		return nil
	}
	out := make([]Event, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, s.events[k])
	}
	s.order = s.order[:0]
	clear(s.events)
	return out
}

// Pending is the number of events waiting.
func (s *Subscription) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}

// Close unsubscribes; pending events are discarded.
func (s *Subscription) Close() {
	s.bus.mu.Lock()
	delete(s.bus.subs, s)
	s.bus.mu.Unlock()
	s.mu.Lock()
	s.closed = true
	s.order = nil
	s.events = nil
	s.mu.Unlock()
}
