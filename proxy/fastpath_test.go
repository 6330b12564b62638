//go:build unix

package proxy

import (
	"bufio"
	"bytes"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
)

// tcpPair returns both ends of a loopback TCP connection. (Its socket
// buffers stay as they are: tiny ones make TCP stall for seconds in zero
// window probes once the reader resumes.)
func tcpPair(t *testing.T) (proxySide, debuggerSide *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	pc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close(); dc.Close() })
	return pc.(*net.TCPConn), dc.(*net.TCPConn)
}

func fastAttachment(t *testing.T, nc *net.TCPConn, queueBytes int) *attachment {
	t.Helper()
	raw, err := nc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return &attachment{p: &Proxy{opts: Options{QueueBytes: queueBytes}}, nc: nc, raw: raw, forwarding: true,
		qsignal: make(chan struct{}, 1), drained: make(chan struct{}, 1)}
}

// testPacket is an Event.Composite-shaped command with n bytes of data that
// encode its number, so that order and content can be checked.
func testPacket(i, n int) *jdwp.Packet {
	data := make([]byte, n)
	for k := range data {
		data[k] = byte(i + k)
	}
	return jdwp.NewCommand(uint32(0x10000000+i), jdwp.CmdSetEvent, jdwp.CmdEventComposite, data)
}

// With nothing queued, a VM packet goes to the debugger on the calling
// goroutine: no writer runs here, and the debugger still receives it.
func TestFastPathWritesWithoutWriter(t *testing.T) {
	here, there := tcpPair(t)
	a := fastAttachment(t, here, 1<<20)
	pk := testPacket(1, 100)
	a.mu.Lock()
	a.sendLocked(pk)
	queued, partial := len(a.queue), a.partial
	a.mu.Unlock()
	if queued != 0 || partial != nil {
		t.Fatalf("the packet waits for a writer: %d queued, %d bytes partial", queued, len(partial))
	}
	_ = there.SetReadDeadline(time.Now().Add(stallLimit))
	got, err := jdwp.ReadPacket(there, 0)
	if err != nil || got.ID != pk.ID || !bytes.Equal(got.Data, pk.Data) {
		t.Fatalf("received %v, %v; want %v", got, err, pk)
	}
}

// A debugger that does not read never stalls the VM connection's reader,
// also on the fast path: sends return at once while the socket is full, what
// it did not take waits (partly written packets first), everything arrives
// in order once the debugger reads, and past QueueBytes the debugger is
// disconnected.
func TestFastPathNeverBlocksAndKeepsOrder(t *testing.T) {
	here, there := tcpPair(t)
	const queueBytes = 64 << 20
	a := fastAttachment(t, here, queueBytes)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		a.writeLoop()
	}()
	sizes := []int{0, 5, 3000, 70000, 17, 16 << 10, 40000, 1, 200000, 64<<10 - jdwp.HeaderLen, 9}
	var sent []*jdwp.Packet
	total := 0
	waited := 0 // bytes that waited for the writer when sent
	if !within(func() {
		for i := 0; total < 24<<20; i++ {
			pk := testPacket(i, sizes[i%len(sizes)])
			a.mu.Lock()
			a.sendLocked(pk)
			waited = a.queueBytes
			a.mu.Unlock()
			sent = append(sent, pk)
			total += pk.Len()
		}
	}) {
		t.Fatal("sending to a debugger that does not read blocked")
	}
	a.mu.Lock()
	overflow := a.overflow
	a.mu.Unlock()
	if overflow {
		t.Fatal("overflow below QueueBytes")
	}
	if waited == 0 {
		t.Fatalf("%d bytes all fit in the socket: the test did not fill it", total)
	}
	// The debugger reads: every packet, in order, intact.
	_ = there.SetReadDeadline(time.Now().Add(stallLimit))
	br := bufio.NewReader(there)
	for i, want := range sent {
		got, err := jdwp.ReadPacket(br, 0)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if got.ID != want.ID || got.CommandSet != want.CommandSet || !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("packet %d: got id %#x (%d bytes), want id %#x (%d bytes)", i, got.ID, len(got.Data), want.ID, len(want.Data))
		}
	}
	// The debugger stops reading again: past QueueBytes it is cut off, and
	// no send waits for it.
	if !within(func() {
		for i := 0; i < 100000; i++ {
			a.mu.Lock()
			a.sendLocked(testPacket(i, 60000))
			over := a.overflow
			a.mu.Unlock()
			if over {
				return
			}
		}
	}) {
		t.Fatal("sending to a debugger that stopped reading blocked")
	}
	a.mu.Lock()
	overflow = a.overflow
	a.mu.Unlock()
	if !overflow {
		t.Fatal("no overflow after far more than QueueBytes")
	}
	select {
	case <-writerDone:
	case <-time.After(stallLimit):
		t.Fatal("the writer did not end after the overflow closed the connection")
	}
}

// The fast path's non-blocking write reports what the socket took; an
// error (here: the connection closed) is left to the writer.
func TestTryWriteClosed(t *testing.T) {
	here, _ := tcpPair(t)
	a := fastAttachment(t, here, 1<<20)
	here.Close()
	if n := a.tryWrite([]byte("abc")); n != 0 {
		t.Fatalf("wrote %d bytes on a closed connection", n)
	}
	var _ syscall.RawConn = a.raw
}

// The debugger's commands are read, and small packets to it written, with
// plain system calls on its socket where it has one (Linux): an ordinary
// read or write woke the runtime's monitor thread on every packet, which
// cost more than the relaying (docs/PERFORMANCE.md, "Debugger proxy").
func TestDebuggerSocketReadRaw(t *testing.T) {
	vm := startFakeVM(t)
	r := startRig(t, scan.PortRange{First: vm.port(), Last: vm.port()}, Options{})
	c := dialDebugger(t, r.waitPort(localKey(vm.port())), 1)
	if _, err := c.Request(ctxT(t), jdwp.CmdSetVirtualMachine, jdwp.CmdVMVersion, nil); err != nil {
		t.Fatal(err)
	}
	r.proxy.mu.Lock()
	a := r.proxy.entries[localKey(vm.port())].dbg
	r.proxy.mu.Unlock()
	if a == nil {
		t.Fatal("no attachment after a command was answered")
	}
	if want := runtime.GOOS == "linux"; a.rawRead != want || a.raw == nil {
		t.Fatalf("reads the debugger's socket itself: %v (want %v); writes it itself: %v", a.rawRead, want, a.raw != nil)
	}
}

// countedConn counts the reads through net.Conn's Read.
type countedConn struct {
	*net.TCPConn
	reads int
}

func (c *countedConn) Read(b []byte) (int, error) {
	c.reads++
	return c.TCPConn.Read(b)
}

// debuggerReader reads the socket under the connection, not through its
// Read, and delivers what the debugger sent.
func TestDebuggerReaderReadsTheSocket(t *testing.T) {
	proxySide, debuggerSide := tcpPair(t)
	cc := &countedConn{TCPConn: proxySide}
	br, raw := debuggerReader(cc)
	want := testPacket(1, 100)
	go debuggerSide.Write(want.Marshal())
	pk, err := jdwp.ReadPacket(br, 1<<20)
	if err != nil || !bytes.Equal(pk.Marshal(), want.Marshal()) {
		t.Fatalf("read %v, %v; want the packet sent", pk, err)
	}
	if linux := runtime.GOOS == "linux"; raw != linux || (cc.reads == 0) != linux {
		t.Fatalf("raw reads %v, %d reads through net.Conn; want raw on Linux only", raw, cc.reads)
	}
}
