//go:build linux

// Command gorelay is a Go relay for the proxy benchmark's floors
// (scripts/bench-proxy-floor.sh; docs/PERFORMANCE.md, "Debugger proxy"):
//
//	gorelay netpoll LISTEN_PORT TARGET_PORT  a goroutine per direction, io.Copy over
//	                                          the runtime's netpoller (what the proxy does)
//	gorelay rawwait LISTEN_PORT TARGET_PORT  a goroutine per direction, locked to its
//	                                          thread, waiting in ppoll(2) on its socket
//	                                          (raw system calls, 1 ms at a time) and
//	                                          falling back to the netpoller when idle
//
// It listens on 127.0.0.1:LISTEN_PORT and, for each connection, connects to
// 127.0.0.1:TARGET_PORT and copies bytes both ways until either side closes.
// rawwait measures what a relay in Go gains when the thread that reads is the
// one the kernel wakes, as in a C relay with blocking reads, rather than the
// runtime's netpoller thread that then hands the goroutine over.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

func main() {
	if len(os.Args) != 4 || (os.Args[1] != "netpoll" && os.Args[1] != "rawwait") {
		fmt.Fprintln(os.Stderr, "usage: gorelay netpoll|rawwait LISTEN_PORT TARGET_PORT")
		os.Exit(2)
	}
	mode, lport, tport := os.Args[1], os.Args[2], os.Args[3]
	if mode == "rawwait" {
		// A thread waiting in a raw ppoll keeps its P: leave the rest of
		// the program two more.
		runtime.GOMAXPROCS(runtime.NumCPU() + 2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+lport)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		t, err := net.Dial("tcp", "127.0.0.1:"+tport)
		if err != nil {
			c.Close()
			continue
		}
		a, b := c.(*net.TCPConn), t.(*net.TCPConn)
		for _, conn := range []*net.TCPConn{a, b} {
			_ = conn.SetNoDelay(true)
		}
		copyFn := func(dst, src *net.TCPConn) { _, _ = io.Copy(dst, src) }
		if mode == "rawwait" {
			copyFn = rawCopy
		}
		go func() { copyFn(b, a); _ = b.CloseWrite() }()
		go func() { copyFn(a, b); _ = a.CloseWrite() }()
	}
}

// rawCopy copies src to dst, reading with rawRead.
func rawCopy(dst, src *net.TCPConn) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc, err := src.SyscallConn()
	if err != nil {
		return
	}
	wc, err := dst.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := rawRead(rc, buf)
		if n > 0 && rawWrite(wc, buf[:n]) != nil {
			return
		}
		if err != nil {
			return
		}
	}
}

// rawWrite writes all of b with raw system calls, letting the netpoller
// wait when the socket is full.
func rawWrite(wc syscall.RawConn, b []byte) error {
	var errno syscall.Errno
	err := wc.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			r1, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch e {
			case 0:
				b = b[r1:]
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// pollFD is struct pollfd.
type pollFD struct {
	fd      int32
	events  int16
	revents int16
}

// quietMillis is how long rawRead waits in ppoll before it lets the
// netpoller wait: longer than the benchmark's other legs take between two
// of this relay's round trips.
const quietMillis = 50

// rawRead reads the socket: while the descriptor is held (RawConn.Read's
// callback), it waits in ppoll for up to 1 ms at a time (the goroutine can
// be preempted between two) and reads when the socket is readable; after
// quietMillis without data it lets the netpoller wait (the callback returns
// false), so an idle connection holds no thread and a Close is held up for
// that long at most.
func rawRead(rc syscall.RawConn, b []byte) (n int, err error) {
	var readErr error
	err = rc.Read(func(fd uintptr) bool {
		for quiet := 0; ; {
			r1, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			if e == syscall.EAGAIN {
				if !waitReadable(fd) {
					if quiet++; quiet == quietMillis {
						return false // quiet for a while: the netpoller waits
					}
				}
				continue
			}
			if e != syscall.EINTR {
				n, readErr = int(r1), readResult(r1, e)
				return true
			}
		}
	})
	if err == nil {
		err = readErr
	}
	if err != nil {
		n = 0
	}
	return n, err
}

// waitReadable waits up to 1 ms in ppoll for fd to become readable.
func waitReadable(fd uintptr) bool {
	p := pollFD{fd: int32(fd), events: 1}   // POLLIN
	ts := syscall.Timespec{Nsec: 1_000_000} // ppoll writes back the time left: a fresh one each call
	k, _, e := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&p)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	return e == 0 && k > 0
}

// readResult is read(2)'s outcome as an error: its errno, or io.EOF for a
// read of nothing.
func readResult(r1 uintptr, e syscall.Errno) error {
	if e != 0 {
		return e
	}
	if r1 == 0 {
		return io.EOF
	}
	return nil
}
