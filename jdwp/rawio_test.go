package jdwp

import (
	"bytes"
	"context"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// hiddenConn hides the socket under a net.Conn (no SyscallConn).
type hiddenConn struct{ net.Conn }

// Packets of every size class cross a TCP connection intact whether the
// Conn reads and writes the socket itself (Linux: small packets written
// from one copy, large ones through net.Conn) or only through net.Conn.
func TestSocketIOSizes(t *testing.T) {
	leakcheck.Check(t)
	sizes := []int{0, 1, rawWriteMax - HeaderLen - 1, rawWriteMax - HeaderLen, rawWriteMax - HeaderLen + 1, 70000, 1 << 20}
	for _, hide := range []bool{false, true} {
		addr := listen(t, echoVM(1))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		nc, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if err := ClientHandshake(nc, time.Second); err != nil {
			t.Fatal(err)
		}
		var under net.Conn = nc
		if hide {
			under = hiddenConn{nc}
		}
		c := NewConn(under, Options{})
		if raw := c.raw != nil; raw != (!hide && runtime.GOOS == "linux") {
			t.Errorf("hidden %v: reads the socket itself: %v", hide, raw)
		}
		for _, n := range sizes {
			data := bytes.Repeat([]byte{byte(n), 0xC7, 0}, n/3+1)[:n]
			p, err := c.Request(context.Background(), CmdSetDDM, CmdDDMChunk, data)
			if err != nil || !bytes.Equal(p.Data, data) {
				t.Fatalf("hidden %v, %d bytes: %v (%d bytes back)", hide, n, err, len(p.Data))
			}
		}
		out, in := c.Stats().BytesOut.Load(), c.Stats().RawBytesIn.Load()
		var want uint64
		for _, n := range sizes {
			want += uint64(HeaderLen + n)
		}
		if out != want || in != want {
			t.Errorf("hidden %v: %d bytes out, %d in, want %d each", hide, out, in, want)
		}
		c.Close()
	}
}

// NewRawReader reads what comes later, and the end of the stream, and is
// nil for a connection without a socket.
func TestNewRawReader(t *testing.T) {
	if NewRawReader(hiddenConn{}) != nil {
		t.Fatal("no socket: want no raw reader")
	}
	if runtime.GOOS != "linux" {
		t.Skipf("raw reads are implemented on Linux only (this is %s)", runtime.GOOS)
	}
	addr := listen(t, func(s net.Conn) {
		time.Sleep(20 * time.Millisecond)
		s.Write([]byte("late"))
	})
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := ClientHandshake(nc, time.Second); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(NewRawReader(nc))
	if err != nil || string(got) != "late" {
		t.Fatalf("read %q, %v; want \"late\"", got, err)
	}
}
