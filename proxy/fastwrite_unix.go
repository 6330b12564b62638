//go:build unix

package proxy

import "syscall"

// tryWrite writes what the debugger's socket takes now, without waiting,
// and returns how much that was. Errors are left to the writer, whose
// blocking write meets them again and ends the connection.
func (a *attachment) tryWrite(b []byte) int {
	n := 0
	_ = a.raw.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, err := syscall.Write(int(fd), b[n:])
			if err == syscall.EINTR {
				continue
			}
			if err != nil || m <= 0 {
				break
			}
			n += m
		}
		return true // never wait for the socket
	})
	return n
}
