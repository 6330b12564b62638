//go:build unix

package mapping

import "syscall"

// cpuNanos is the process's user and system CPU time so far: on a shared
// machine the benchmarks report it beside wall time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
