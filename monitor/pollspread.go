package monitor

import (
	"hash/fnv"
	"time"
)

// pollPhase is how long a device process's first /proc or meminfo poll
// waits: a fraction of interval set by the process's key, so that the
// polls of the processes of a device spread over the interval instead of
// all reaching the device's shell at its start (issue 37 #9: thousands of
// processes listed at once made thousands of shell commands at once).
// The polls after the first keep that phase.
func pollPhase(key string, interval time.Duration) time.Duration {
	if interval <= 0 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return time.Duration(uint64(interval) / 1024 * uint64(h.Sum32()%1024))
}
