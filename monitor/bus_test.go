package monitor

import (
	"fmt"
	"testing"
)

type testEvent struct {
	key string
	n   int
}

func (e testEvent) CoalesceKey() string { return e.key }

func TestBusCoalescesPerKeyKeepingOrder(t *testing.T) {
	b := NewBus()
	s := b.Subscribe()
	defer s.Close()
	b.Publish(testEvent{"threads/vm1", 1})
	b.Publish(testEvent{"heap/vm1", 1})
	b.Publish(testEvent{"threads/vm1", 2})
	b.Publish(testEvent{"threads/vm2", 1})
	b.Publish(testEvent{"threads/vm1", 3})
	select {
	case <-s.Ready():
	default:
		t.Fatal("no readiness signal")
	}
	got := fmt.Sprint(s.Drain())
	want := "[{threads/vm1 3} {heap/vm1 1} {threads/vm2 1}]"
	if got != want {
		t.Fatalf("drained %s, want %s", got, want)
	}
	if s.Drain() != nil || s.Pending() != 0 {
		t.Fatal("queue not empty after drain")
	}
}

func TestBusPublishNeverBlocksOnSlowSubscriber(t *testing.T) {
	b := NewBus()
	slow := b.Subscribe() // never drained
	fast := b.Subscribe()
	defer slow.Close()
	defer fast.Close()
	for i := 0; i < 100000; i++ {
		b.Publish(testEvent{fmt.Sprintf("threads/vm%d", i%50), i})
	}
	if n := slow.Pending(); n != 50 {
		t.Fatalf("slow subscriber holds %d events, want 50 (one per key)", n)
	}
	evs := fast.Drain()
	if len(evs) != 50 || evs[0].(testEvent).n != 99950 {
		t.Fatalf("fast subscriber got %d events, first %v", len(evs), evs[0])
	}
}

func TestBusClosedSubscriberGetsNothing(t *testing.T) {
	b := NewBus()
	s := b.Subscribe()
	s.Close()
	b.Publish(testEvent{"x", 1})
	if s.Pending() != 0 {
		t.Fatal("closed subscription received an event")
	}
}
