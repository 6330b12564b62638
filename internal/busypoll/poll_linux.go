package busypoll

import (
	"syscall"
	"time"
	"unsafe"
)

// pollFD is struct pollfd.
type pollFD struct {
	fd      int32
	events  int16
	revents int16
}

// pollIn is POLLIN. A descriptor whose peer closed it, or in error, is
// reported ready too (POLLHUP, POLLERR need not be asked for).
const pollIn = 0x1

// poll calls ppoll(2) with a zero timeout until a descriptor is ready or d
// has passed, yielding the CPU between calls. The calls are raw system
// calls: they never block, so the runtime need not know of them (its
// bookkeeping would wake its monitor thread, which is what polling avoids).
func poll(fds []int32, d time.Duration) bool {
	var pfds [maxSocks]pollFD
	for i, fd := range fds {
		pfds[i] = pollFD{fd: fd, events: pollIn}
	}
	var zero syscall.Timespec
	end := time.Now().Add(d)
	for {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfds[0])), uintptr(len(fds)), uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
		if errno == 0 && n > 0 {
			return true
		}
		if errno != 0 && errno != syscall.EINTR { // EINTR: a signal (the runtime's preemption); poll again
			return false
		}
		if !time.Now().Before(end) {
			return false
		}
		syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
}
