// Package busypoll waits for a socket to become readable without letting
// the thread sleep.
//
// A thread that sleeps in the kernel and is woken by a packet pays for the
// wake-up: on a virtual machine with idle CPUs that is the CPU's halt and the
// hypervisor's interrupt, about 20 µs per hop on the 2-core machine of
// docs/PERFORMANCE.md, more than the work of relaying the packet. For a
// relay whose peers answer within microseconds (a debugger's command to a
// local JVM, and the debugger's next command) polling for a short while
// costs less CPU than it saves in latency. Readable is that poll: it never
// blocks, yields the CPU to any other runnable thread between polls, and
// gives up after its budget, when the caller goes back to waiting the
// ordinary way (the Go netpoller).
//
// Poll also watches whether its thread is being preempted: on Linux the
// thread's involuntary context switches (getrusage RUSAGE_THREAD,
// ru_nivcsw), which grow when another runnable thread takes the CPU from
// the poller (a yield that hands the CPU over counts too). A poll that sees
// them grow ends at once and says so (Result.Preempted): the CPU it burns
// is wanted elsewhere, perhaps by the very peer it waits for. Whether to
// poll at all is the caller's rule (proxy/spin.go measures it).
package busypoll

import (
	"syscall"
	"time"
)

// Readable polls the sockets until one of them has data to read (or has
// been closed by its peer) or d has passed, and reports whether one became
// readable. It holds each socket's descriptor for the duration (a Close
// meanwhile waits for it). Where polling is not implemented, and for a
// non-positive d, no sockets or a socket that is already closed, it returns
// false at once.
func Readable(d time.Duration, socks ...syscall.RawConn) bool {
	return pollSocks(d, false, socks).Ready
}

// Result is what one poll saw.
type Result struct {
	// Ready: a socket became readable (or was closed by its peer).
	Ready bool
	// Preempted: the poll ended early because its thread was switched out
	// involuntarily (another thread wanted the CPU).
	Preempted bool
}

// Poll is Readable that also ends, and says so, when its thread is
// preempted.
func Poll(d time.Duration, socks ...syscall.RawConn) Result {
	return pollSocks(d, true, socks)
}

func pollSocks(d time.Duration, watch bool, socks []syscall.RawConn) Result {
	if len(socks) == 0 || len(socks) > maxSocks {
		return Result{}
	}
	var fds [maxSocks]int32
	var r Result
	hold(socks, fds[:0], func(fds []int32) bool {
		r = poll(fds, d, watch)
		return r.Ready
	})
	return r
}

// maxSocks bounds the sockets one call watches.
const maxSocks = 4

// hold calls f with the descriptors of socks, each held open by its
// RawConn.Control for the duration.
func hold(socks []syscall.RawConn, fds []int32, f func([]int32) bool) bool {
	if len(socks) == 0 {
		return f(fds)
	}
	if socks[0] == nil {
		return false
	}
	ok := false
	err := socks[0].Control(func(fd uintptr) {
		ok = hold(socks[1:], append(fds, int32(fd)), f)
	})
	return err == nil && ok
}
