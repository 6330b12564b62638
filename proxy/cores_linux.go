package proxy

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// readCPU reads the machine's CPU time from /proc/stat's first line (user
// nice system idle iowait irq softirq steal, in clock ticks; idle and iowait
// are not busy; guest time is inside user) and this process's own from
// getrusage.
func readCPU() cpuSample {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuSample{}
	}
	line, _, _ := bytes.Cut(b, []byte{'\n'})
	f := bytes.Fields(line)
	if len(f) < 6 || string(f[0]) != "cpu" {
		return cpuSample{}
	}
	var s cpuSample
	for i, v := range f[1:min(len(f), 9)] {
		n, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil {
			return cpuSample{}
		}
		s.total += n
		if i != 3 && i != 4 { // idle, iowait
			s.busy += n
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return cpuSample{}
	}
	s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	s.ok = true
	return s
}
