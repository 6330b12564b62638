//go:build linux

// Command pollfloor measures the least CPU a monitor can spend per THST poll
// of VMs behind an adb server: every VM's jdwp:<pid> stream is opened through
// the server, and then one thread, with no Go runtime machinery in the loop
// (no goroutine per connection, no netpoller, plain system calls), writes a
// THST request to every stream at each tick and reads the replies as epoll
// reports them. What it costs per poll is what the kernel charges for a
// loopback request and reply (the write, which runs the receiving side of
// TCP too, the wake-up, the read): the floor under ddmtui's and ddmlib's
// figures in scripts/bench-monitor-adb.sh, which runs it as a third tool.
//
//	go run ./scripts/pollfloor -adb 127.0.0.1:5037 -serial SERIAL -for 60s -every 500ms
//
// It prints "cpu_s replies vms events" (replies and the VMs' own packets
// counted by their headers). cpu_s is the whole process's CPU, opening the
// streams included, as /usr/bin/time counts the other tools' (their
// sessions' set-up included). Run it with GODEBUG=asyncpreemptoff=1, so
// that the runtime does not interrupt the blocked loop with signals.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

func main() {
	addr := flag.String("adb", "127.0.0.1:5037", "adb server")
	serial := flag.String("serial", "", "device serial")
	dur := flag.Duration("for", 60*time.Second, "how long to poll")
	every := flag.Duration("every", 500*time.Millisecond, "poll interval")
	events := flag.Bool("events", false, "also ask every VM for what ddmtui and ddmlib ask for besides the polls: thread notifications (THEN: THCR, THDE, THNM) and heap info at every GC (HPIF), and read them")
	conns := flag.Bool("conns", false, "poll through a jdwp.Conn per stream (its reader goroutine, the Go netpoller) from one ticker goroutine, the replies counted by callbacks: the floor of ddmtui's own design")
	flag.Parse()
	run := runEpoll
	if *conns {
		run = runConns
	}
	ncs, err := openStreams(*addr, *serial, *events)
	if err == nil {
		err = run(ncs, *dur, *every)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pollfloor:", err)
		os.Exit(1)
	}
}

// openStreams opens every VM's jdwp:<pid> stream of serial and does the
// JDWP handshake on it; with events it also asks every VM for thread
// notifications and heap info at every GC (-events).
func openStreams(addr, serial string, events bool) ([]net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := &adb.Client{Addr: addr}
	tr, err := c.TrackJDWP(ctx, serial)
	if err != nil {
		return nil, err
	}
	var pids []int
	select {
	case pids = <-tr.Updates():
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tr.Close()
	var ncs []net.Conn
	for _, pid := range pids {
		nc, err := c.OpenJDWP(ctx, serial, pid)
		if err != nil {
			return nil, err
		}
		if err := jdwp.ClientHandshake(nc, 5*time.Second); err != nil {
			return nil, fmt.Errorf("pid %d: %w", pid, err)
		}
		if events {
			for i, m := range []ddm.Message{&ddm.ThreadNotifyRequest{Enable: true}, &ddm.HeapInfoRequest{When: ddm.HeapInfoEveryGC}} {
				p := jdwp.Packet{ID: 0x30000000 + uint32(i), CommandSet: jdwp.CmdSetDDM, Command: jdwp.CmdDDMChunk, Data: ddm.AppendMessage(nil, m)}
				if _, err := nc.Write(p.Append(nil)); err != nil {
					return nil, fmt.Errorf("pid %d: %w", pid, err)
				}
			}
		}
		ncs = append(ncs, nc)
	}
	return ncs, nil
}

// cpuSince is the process's CPU time (user + system) since ru0.
func cpuSince(ru0 syscall.Rusage) time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return tv(ru.Utime) + tv(ru.Stime) - tv(ru0.Utime) - tv(ru0.Stime)
}

// runConns polls as ddmtui's monitor does, without its model: a jdwp.Conn
// per stream, a ticker goroutine writing every request with
// TryRequestFunc, replies counted on the readers.
func runConns(ncs []net.Conn, dur, every time.Duration) error {
	var replies, events atomic.Int64
	conns := make([]*jdwp.Conn, len(ncs))
	for i, nc := range ncs {
		conns[i] = jdwp.NewConn(nc, jdwp.Options{Route: func(*jdwp.Packet) bool {
			events.Add(1)
			return true
		}})
		defer conns[i].Close()
	}
	count := func(p *jdwp.Packet, err error) {
		if err == nil {
			replies.Add(1)
		}
	}
	req := ddm.AppendChunk(nil, ddm.TypeTHST, nil)
	var ru0 syscall.Rusage // zero: the whole process (see the package comment)
	tk := time.NewTicker(every)
	defer tk.Stop()
	end := time.After(dur)
	for {
		for _, c := range conns {
			if _, err := c.TryRequestFunc(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, req, count); err != nil && !errors.Is(err, jdwp.ErrBusy) {
				return err
			}
		}
		select {
		case <-tk.C:
		case <-end:
			fmt.Printf("%.3f %d %d %d\n", cpuSince(ru0).Seconds(), replies.Load(), len(conns), events.Load())
			return nil
		}
	}
}

func runEpoll(ncs []net.Conn, dur, every time.Duration) error {
	var fds []int
	for _, nc := range ncs {
		fd, err := own(nc)
		if err != nil {
			return err
		}
		fds = append(fds, fd)
	}

	runtime.LockOSThread()
	ep, err := syscall.EpollCreate1(0)
	if err != nil {
		return err
	}
	for _, fd := range fds {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
		if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return err
		}
	}
	var ru0 syscall.Rusage // zero: the whole process (see the package comment)
	chunk := ddm.AppendChunk(nil, ddm.TypeTHST, nil)
	req := make([]byte, jdwp.HeaderLen+len(chunk))
	binary.BigEndian.PutUint32(req, uint32(len(req)))
	req[9], req[10] = jdwp.CmdSetDDM, jdwp.CmdDDMChunk // flags 0: a command
	copy(req[jdwp.HeaderLen:], chunk)
	streams := map[int32]*framer{}
	for _, fd := range fds {
		streams[int32(fd)] = &framer{}
	}
	events := make([]syscall.EpollEvent, 256)
	buf := make([]byte, 1<<16)
	replies, vmPackets := 0, 0
	start := time.Now()
	next := start
	id := uint32(0x40000000)
	for {
		now := time.Now()
		if now.Sub(start) >= dur {
			break
		}
		if !now.Before(next) {
			binary.BigEndian.PutUint32(req[4:], id)
			id++
			for _, fd := range fds {
				if _, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&req[0])), uintptr(len(req))); e != 0 {
					return e
				}
			}
			next = next.Add(every)
			continue
		}
		wait := int(next.Sub(now)/time.Millisecond) + 1
		n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(wait), 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		for _, ev := range events[:n] {
			for { // edge or level: read what is there
				r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(ev.Fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
				if e == syscall.EAGAIN || (e == 0 && r == 0) {
					break
				}
				if e != 0 {
					return e
				}
				nr, nv := streams[ev.Fd].take(buf[:r])
				replies, vmPackets = replies+nr, vmPackets+nv
				if int(r) < len(buf) {
					break
				}
			}
		}
	}
	fmt.Printf("%.3f %d %d %d\n", cpuSince(ru0).Seconds(), replies, len(fds), vmPackets)
	return nil
}

// framer follows the packet boundaries of one stream (a packet may arrive
// in pieces: adb forwards what the VM wrote, header and body apart).
type framer struct {
	hdr  [jdwp.HeaderLen]byte
	have int // header bytes of the current packet seen
	left int // body bytes of the current packet still to come
}

// take consumes b and returns how many replies, and how many of the VM's
// own packets (commands: events, DDM chunks), began in it.
func (f *framer) take(b []byte) (replies, commands int) {
	for len(b) > 0 {
		if f.left > 0 {
			k := min(f.left, len(b))
			f.left -= k
			b = b[k:]
			continue
		}
		k := copy(f.hdr[f.have:], b)
		f.have += k
		b = b[k:]
		if f.have < jdwp.HeaderLen {
			break
		}
		f.have = 0
		f.left = max(int(binary.BigEndian.Uint32(f.hdr[:]))-jdwp.HeaderLen, 0)
		if f.hdr[8]&0x80 != 0 {
			replies++
		} else {
			commands++
		}
	}
	return replies, commands
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}

// own takes the socket out of nc: a duplicate of its descriptor, after
// which nc is closed (and so removed from the Go runtime's poller).
func own(nc net.Conn) (int, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return 0, fmt.Errorf("%T has no socket", nc)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = syscall.Dup(int(s)) }); err != nil {
		return 0, err
	}
	if derr != nil {
		return 0, derr
	}
	nc.Close()
	return fd, nil
}
