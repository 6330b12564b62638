package jdwp

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// Reads and writes on the socket itself, for a Conn over a TCP or Unix
// socket (or a wrapper that exposes one with SyscallConn).
//
// The socket is non-blocking and the Go netpoller still does the waiting
// (syscall.RawConn's Read and Write park the goroutine until the socket is
// ready, and honour deadlines); only the read(2) and write(2) calls are made
// without the runtime's syscall bookkeeping, which they do not need because
// they never block. That bookkeeping wakes the runtime's monitor thread when
// it sleeps: for a process that polls 200 VMs it made several thread
// switches per poll (PERFORMANCE.md, "Monitor at scale").

// rawConnOf returns the socket under nc, or nil.
func rawConnOf(nc net.Conn) syscall.RawConn {
	sc, ok := nc.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// rawReader reads the socket rc, and tells what it read to count (if any).
type rawReader struct {
	rc    syscall.RawConn
	count ReadCounter
}

func (r rawReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			r1, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait until readable
			}
			n, errno = int(r1), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, errno
	case n == 0:
		return 0, io.EOF
	}
	if r.count != nil {
		r.count.CountRead(n)
	}
	return n, nil
}

// rawWrite writes all of b to the socket rc.
func rawWrite(rc syscall.RawConn, b []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := rc.Write(func(fd uintptr) bool {
		for n < len(b) {
			r1, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[n])), uintptr(len(b)-n))
			switch e {
			case 0:
				n += int(r1)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until writable
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if err == nil && errno != 0 {
		err = errno
	}
	return n, err
}
