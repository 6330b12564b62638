//go:build unix

package proxy

import (
	"syscall"
	"unsafe"
)

// tryWrite writes what the debugger's socket takes now, without waiting,
// and returns how much that was. Errors are left to the writer, whose
// blocking write meets them again and ends the connection. The write is a
// raw system call: it never blocks, and syscall.Write's bookkeeping woke
// the runtime's monitor thread (asleep while every P is idle, as between
// two of a debugger's commands) on every reply (docs/PERFORMANCE.md,
// "Debugger proxy").
func (a *attachment) tryWrite(b []byte) int {
	n := 0
	_ = a.raw.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[n])), uintptr(len(b)-n))
			if errno == syscall.EINTR {
				continue
			}
			if errno != 0 || m == 0 {
				break
			}
			n += int(m)
		}
		return true // never wait for the socket
	})
	return n
}
