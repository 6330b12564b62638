package jdwp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// bigPacket is a DDM command of n bytes in all.
func bigPacket(n int) []byte {
	b := make([]byte, n)
	hdr := NewCommand(7, CmdSetDDM, CmdDDMChunk, nil).AppendHeader(nil)
	copy(b, hdr)
	binary.BigEndian.PutUint32(b, uint32(n))
	for i := HeaderLen; i < n; i += 4096 {
		b[i] = byte(i >> 12)
	}
	return b
}

func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// Issue 16 item 4: a large packet's buffer is exactly its length, and
// reading it allocates at most 1.5 times it (it was 2.9 times, the buffer
// 10% longer than the packet); a peer that lies about the length costs at
// most twice what it sent.
func TestReadPacketSizesByArrival(t *testing.T) {
	const n = 40 << 20
	in := bigPacket(n)
	var p *Packet
	alloc := allocated(func() {
		var err error
		if p, err = ReadPacket(bytes.NewReader(in), 0); err != nil {
			t.Fatal(err)
		}
	})
	if cap(p.Data) != n-HeaderLen || !bytes.Equal(p.Data, in[HeaderLen:]) {
		t.Fatalf("data: len %d cap %d", len(p.Data), cap(p.Data))
	}
	if alloc > n*3/2+(1<<20) {
		t.Errorf("reading a %d MiB packet allocated %d MiB", n>>20, alloc>>20)
	}
	// A claim of 300 MiB with 5 MiB sent.
	lie := bigPacket(5 << 20)
	binary.BigEndian.PutUint32(lie, 300<<20)
	alloc = allocated(func() {
		if _, err := ReadPacket(bytes.NewReader(lie), 0); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("short packet: %v", err)
		}
	})
	if alloc > 2*(5<<20)+(1<<20) {
		t.Errorf("a 300 MiB claim with 5 MiB sent allocated %d MiB", alloc>>20)
	}
}

// A Budget shared by two readers: while one holds most of it, the other's
// large packet fails with ErrBudget; the first completes; nothing stays held.
func TestBudgetSharedByReaders(t *testing.T) {
	b := NewBudget(10 << 20)
	const n = 6 << 20 // needs 9 MiB at its peak
	aSrv, aCli := net.Pipe()
	bSrv, bCli := net.Pipe()
	defer aSrv.Close()
	defer bSrv.Close()
	aDone := make(chan error, 1)
	go func() {
		_, err := ReadPacketBudget(aCli, 0, b)
		aDone <- err
	}()
	pa := bigPacket(n)
	if _, err := aSrv.Write(pa[:4<<20]); err != nil { // A holds 3 MiB of pieces and its 6 MiB buffer
		t.Fatal(err)
	}
	for b.Used() < 8<<20 { // its pieces and its buffer: 9 MiB less the header
		runtime.Gosched()
	}
	bDone := make(chan error, 1)
	go func() {
		_, err := ReadPacketBudget(bCli, 0, b)
		bDone <- err
	}()
	go func() { _, _ = bSrv.Write(bigPacket(n)) }()
	if err := <-bDone; !errors.Is(err, ErrBudget) {
		t.Fatalf("second reader: %v, want ErrBudget", err)
	}
	bCli.Close()
	if _, err := aSrv.Write(pa[4<<20:]); err != nil {
		t.Fatal(err)
	}
	if err := <-aDone; err != nil {
		t.Fatalf("first reader: %v", err)
	}
	if b.Used() != 0 || b.Peak() > 10<<20 {
		t.Fatalf("budget used %d, peak %d", b.Used(), b.Peak())
	}
}

// Issue 16 item 4: what waits in Incoming is bounded in bytes (MaxQueued):
// a consumer that does not read stops the reader, whatever the packet count.
func TestIncomingBoundedByBytes(t *testing.T) {
	srv, cli := net.Pipe()
	c := NewConn(cli, Options{MaxQueued: 1 << 20})
	defer c.Close()
	defer srv.Close()
	written := make(chan int, 16)
	go func() {
		pk := bigPacket(512 << 10)
		for i := 0; i < 10; i++ {
			if _, err := srv.Write(pk); err != nil {
				return
			}
			written <- i
		}
	}()
	time.Sleep(300 * time.Millisecond) // the reader fills what it may
	if n := len(written); n > 4 {
		t.Fatalf("the peer wrote %d packets of 512 KiB with nothing taken from Incoming (bound 1 MiB)", n)
	}
	for i := 0; i < 10; i++ {
		select {
		case p := <-c.Incoming():
			if p.Len() != 512<<10 {
				t.Fatalf("packet %d: %d bytes", i, p.Len())
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("packet %d did not arrive", i)
		}
	}
}
