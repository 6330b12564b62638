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
	if len(socks) == 0 || len(socks) > maxSocks {
		return false
	}
	var fds [maxSocks]int32
	return hold(socks, fds[:0], func(fds []int32) bool { return poll(fds, d) })
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
