package busypoll

import (
	"runtime"
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

// rusageThread is RUSAGE_THREAD (Linux): the calling thread's usage.
const rusageThread = 1

// preemptCheck is how many polls pass between two looks at the thread's
// involuntary context switches (each look is one more system call).
const preemptCheck = 8

// involuntarySwitches returns the calling thread's involuntary context
// switches so far (-1 if unknown).
var involuntarySwitches = func() int64 {
	var ru syscall.Rusage
	if _, _, errno := syscall.RawSyscall(syscall.SYS_GETRUSAGE, rusageThread, uintptr(unsafe.Pointer(&ru)), 0); errno != 0 {
		return -1
	}
	return ru.Nivcsw
}

// poll calls ppoll(2) with a zero timeout until a descriptor is ready, d
// has passed or (if watch) the thread was preempted, yielding the CPU between calls.
// The calls are raw system calls: they never block, so the runtime need not
// know of them (its bookkeeping would wake its monitor thread, which is
// what polling avoids). The goroutine stays on its thread for the poll, so
// that the switches counted are the poller's.
func poll(fds []int32, d time.Duration, watch bool) Result {
	if watch {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	var pfds [maxSocks]pollFD
	for i, fd := range fds {
		pfds[i] = pollFD{fd: fd, events: pollIn}
	}
	var zero syscall.Timespec
	end := time.Now().Add(d)
	sw0 := int64(-1)
	if watch {
		sw0 = involuntarySwitches()
	}
	for i := 1; ; i++ {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfds[0])), uintptr(len(fds)), uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
		if errno == 0 && n > 0 {
			return Result{Ready: true}
		}
		if errno != 0 && errno != syscall.EINTR { // EINTR: a signal (the runtime's preemption); poll again
			return Result{}
		}
		if !time.Now().Before(end) {
			return Result{}
		}
		if i%preemptCheck == 0 && sw0 >= 0 && involuntarySwitches() > sw0 {
			return Result{Preempted: true}
		}
		syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
}
