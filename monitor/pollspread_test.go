package monitor

import (
	"fmt"
	"testing"
	"time"
)

// The first polls of 256 processes of a device are spread over the
// interval: no tenth of it holds more than twice its share.
func TestPollPhaseSpreads(t *testing.T) {
	const n, interval = 256, time.Second
	var buckets [10]int
	for i := range n {
		p := pollPhase(fmt.Sprintf("adb:127.0.0.1:5037/emu:%d", 1000+i), interval)
		if p < 0 || p >= interval {
			t.Fatalf("phase %v", p)
		}
		buckets[p*10/interval]++
	}
	for i, b := range buckets {
		if b > 2*n/10 {
			t.Errorf("tenth %d of the interval holds %d of %d first polls: %v", i, b, n, buckets)
		}
	}
	if pollPhase("x", 0) != 0 {
		t.Error("no interval, yet a phase")
	}
}
