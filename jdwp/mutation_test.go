package jdwp

// Tests that kill the mutants scripts/mutation.sh found alive in this
// package (docs/TESTING.md, "Mutation testing"). Each states exact values.

import (
	"bytes"
	"errors"
	"net"
	"testing"
	"time"
)

// TestBudgetExactPeak: reading a packet of n data bytes above 1 MiB holds
// n/2 bytes of pieces and then the n-byte buffer: a budget of exactly that
// is enough, one byte less is not, and nothing stays held afterwards.
func TestBudgetExactPeak(t *testing.T) {
	const n = 2*readChunk + 2 // pieces of 1 MiB and 1 byte, then the buffer
	const peak = n/2 + n
	in := bigPacket(HeaderLen + n)
	b := NewBudget(peak)
	p, err := ReadPacketBudget(bytes.NewReader(in), 0, b)
	if err != nil || len(p.Data) != n || !bytes.Equal(p.Data, in[HeaderLen:]) {
		t.Fatalf("budget of exactly %d: %v", peak, err)
	}
	if b.Used() != 0 || b.Peak() != peak {
		t.Fatalf("used %d peak %d, want 0 %d", b.Used(), b.Peak(), peak)
	}
	short := NewBudget(peak - 1)
	if _, err := ReadPacketBudget(bytes.NewReader(in), 0, short); !errors.Is(err, ErrBudget) {
		t.Fatalf("budget of %d: %v, want ErrBudget", peak-1, err)
	}
	// Refused before its first piece: nothing was taken (issue 30's soak:
	// it used to read half the packet first).
	if short.Used() != 0 || short.Peak() != 0 {
		t.Fatalf("after the refusal: used %d peak %d, want 0 0", short.Used(), short.Peak())
	}
}

// TestBudgetZeroAndNil: a zero-limit budget bounds nothing and only counts
// (the one budget type's rule, internal/budget); a nil one bounds and
// counts nothing.
func TestBudgetZeroAndNil(t *testing.T) {
	in := bigPacket(HeaderLen + 2*readChunk)
	zero := NewBudget(0)
	if _, err := ReadPacketBudget(bytes.NewReader(in), 0, zero); err != nil {
		t.Fatalf("zero budget: %v", err)
	}
	if zero.Used() != 0 || zero.Peak() != 3*readChunk {
		t.Fatalf("zero budget: used %d peak %d, want 0 %d", zero.Used(), zero.Peak(), 3*readChunk)
	}
	var none *Budget
	if _, err := ReadPacketBudget(bytes.NewReader(in), 0, none); err != nil {
		t.Fatalf("nil budget: %v", err)
	}
	if none.Used() != 0 || none.Peak() != 0 {
		t.Fatal("nil budget reports bytes")
	}
	none.Give(5) // no panic
}

// TestSmallPacketsBypassBudget: a packet of up to 1 MiB of data is read in
// one buffer without drawing from the budget; one byte more draws from it.
func TestSmallPacketsBypassBudget(t *testing.T) {
	b := NewBudget(1)
	at := bigPacket(HeaderLen + readChunk)
	p, err := ReadPacketBudget(bytes.NewReader(at), 0, b)
	if err != nil || len(p.Data) != readChunk || b.Peak() != 0 {
		t.Fatalf("1 MiB of data: %v, peak %d", err, b.Peak())
	}
	over := bigPacket(HeaderLen + readChunk + 1)
	if _, err := ReadPacketBudget(bytes.NewReader(over), 0, b); !errors.Is(err, ErrBudget) {
		t.Fatalf("1 MiB + 1 of data: %v, want ErrBudget", err)
	}
}

// TestSetMaxPacketLen: the limit changes from the next header on; 0 (or
// less) goes back to the Options value.
func TestSetMaxPacketLen(t *testing.T) {
	srv, cli := net.Pipe()
	c := NewConn(cli, Options{MaxPacketLen: 100})
	defer c.Close()
	defer srv.Close()
	if c.MaxPacketLen() != 100 {
		t.Fatalf("initial limit %d, want 100", c.MaxPacketLen())
	}
	for _, tc := range []struct{ set, want int }{{20, 20}, {0, 100}, {HeaderLen + 2, HeaderLen + 2}, {-1, 100}, {HeaderLen + 2, HeaderLen + 2}} {
		c.SetMaxPacketLen(tc.set)
		if got := c.MaxPacketLen(); got != tc.want {
			t.Fatalf("SetMaxPacketLen(%d): limit %d, want %d", tc.set, got, tc.want)
		}
	}
	go func() {
		_ = WritePacket(srv, NewCommand(1, CmdSetDDM, CmdDDMChunk, []byte{1, 2}))
		_ = WritePacket(srv, NewCommand(2, CmdSetDDM, CmdDDMChunk, []byte{1, 2, 3}))
	}()
	select {
	case p := <-c.Incoming():
		if p.ID != 1 || len(p.Data) != 2 {
			t.Fatalf("packet at the limit: %v", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the packet at the limit did not arrive")
	}
	select {
	case <-c.Done():
		if err := c.Err(); !errors.Is(err, ErrPacketTooLarge) || err.Error() != "jdwp: read: jdwp: packet length exceeds the limit: 14 > 13" {
			t.Fatalf("packet over the limit ended the connection with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a packet over the limit did not end the connection")
	}
}

// TestIncomingHoldsExactlyMaxQueued: with nothing taken from Incoming,
// packets are queued while their bytes together stay within MaxQueued:
// two 512 KiB packets fill a 1 MiB bound exactly, and both are queued.
func TestIncomingHoldsExactlyMaxQueued(t *testing.T) {
	srv, cli := net.Pipe()
	c := NewConn(cli, Options{MaxQueued: 1 << 20})
	defer c.Close()
	defer srv.Close()
	go func() {
		pk := bigPacket(512 << 10)
		for i := 0; i < 3; i++ {
			if _, err := srv.Write(pk); err != nil {
				return
			}
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(c.Incoming()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d packets queued, want 2 (1 MiB of 1 MiB)", len(c.Incoming()))
		}
		time.Sleep(time.Millisecond)
	}
	for i := 0; i < 3; i++ {
		select {
		case p := <-c.Incoming():
			if p.Len() != 512<<10 {
				t.Fatalf("packet %d: %d bytes", i, p.Len())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("packet %d did not arrive", i)
		}
	}
}

// TestHandshakeZeroTimeoutIsDefault: a timeout of 0 means the default, in
// both roles, not "already expired".
func TestHandshakeZeroTimeoutIsDefault(t *testing.T) {
	srv, cli := net.Pipe()
	defer srv.Close()
	defer cli.Close()
	done := make(chan error, 1)
	go func() { done <- ClientHandshake(cli, 0) }()
	time.Sleep(20 * time.Millisecond)
	if err := ServerHandshake(srv, 0); err != nil {
		t.Fatalf("server: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("client: %v", err)
	}
}
