//go:build unix

package viewtree

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user+system) this process has used, or 0
// where it is not known: the benchmarks report it beside wall time, which
// a loaded machine stretches.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
