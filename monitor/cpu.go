package monitor

import "time"

// cpuTracker turns cumulative CPU times (clock ticks) into a percentage
// between two samples of the same thread: 100 means one core busy for the
// whole interval. Ticks are USER_HZ, 100 per second on Android and Linux.
type cpuTracker struct {
	last     map[uint64]int // utime+stime per thread id at the last sample
	lastTime time.Time
}

// ticksPerSecond is USER_HZ.
const ticksPerSecond = 100

// sample sets CPUPercent and CPUKnown on every thread of a fresh sample
// taken at now, from its delta since the previous sample. A thread new
// since then (or the first sample) gets CPUKnown false.
func (c *cpuTracker) sample(now time.Time, threads map[uint64]*Thread) {
	elapsed := now.Sub(c.lastTime).Seconds()
	next := make(map[uint64]int, len(threads))
	for id, t := range threads {
		total := t.UTime + t.STime
		next[id] = total
		prev, ok := c.last[id]
		if !ok || c.lastTime.IsZero() || elapsed <= 0 || total < prev {
			t.CPUPercent, t.CPUKnown = 0, false
			continue
		}
		t.CPUPercent = float64(total-prev) / ticksPerSecond / elapsed * 100
		t.CPUKnown = true
	}
	c.last, c.lastTime = next, now
}
