package jdwp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// recordingWriter keeps what it is given, in the pieces given; it fails
// once it holds failAt bytes when failAt > 0.
type recordingWriter struct {
	buf      bytes.Buffer
	pieces   int
	maxPiece int
	failAt   int
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.failAt > 0 && w.buf.Len()+len(b) > w.failAt {
		return 0, errors.New("full")
	}
	w.pieces++
	w.maxPiece = max(w.maxPiece, len(b))
	return w.buf.Write(b)
}

// Divert takes the body of a large packet it wants, after the head it was
// shown, in pieces of at most 64 KiB; a large packet it declines and the
// small ones reach Incoming whole and unchanged (the peeked head is not
// lost); a writer that fails is told once, and the stream stays in step.
func TestDivert(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	const big = 3<<20 + 17
	body := func(tag byte, n int) []byte {
		d := make([]byte, n)
		for i := range d {
			d[i] = byte(i*7) ^ tag
		}
		d[0] = tag
		return d
	}
	var w recordingWriter
	ends := make(chan error, 4)
	offered := 0
	c := NewConn(b, Options{MaxPacketLen: 8 << 20, Divert: func(p *Packet, n int, head []byte) (io.Writer, func(error)) {
		offered++
		if len(head) != DivertHead || n != big || head[0] != 'T' {
			return nil, nil
		}
		return &w, func(err error) { ends <- err }
	}})
	defer c.Close()
	take := body('T', big)
	leave := body('L', big)
	small := body('T', 100)
	go func() {
		for i, d := range [][]byte{take, leave, small, take} {
			WritePacket(a, &Packet{ID: uint32(i + 1), CommandSet: 0xC7, Command: 1, Data: d})
		}
	}()
	for _, want := range [][]byte{leave, small} {
		select {
		case p := <-c.Incoming():
			if !bytes.Equal(p.Data, want) {
				t.Fatalf("packet %d: %d bytes, not as sent", p.ID, len(p.Data))
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no packet")
		}
	}
	for range 2 {
		if err := <-ends; err != nil {
			t.Fatal(err)
		}
	}
	if w.buf.Len() != 2*(big-DivertHead) || !bytes.Equal(w.buf.Bytes()[:big-DivertHead], take[DivertHead:]) ||
		!bytes.Equal(w.buf.Bytes()[big-DivertHead:], take[DivertHead:]) || w.maxPiece > divertPiece {
		t.Fatalf("diverted %d bytes in %d pieces of at most %d", w.buf.Len(), w.pieces, w.maxPiece)
	}
	if offered != 3 || c.Stats().PacketsIn.Load() != 4 {
		t.Errorf("offered %d packets (want the 3 large ones), %d counted in", offered, c.Stats().PacketsIn.Load())
	}

	// A failing writer: one end with its error, the body dropped, the
	// next packet whole.
	w = recordingWriter{failAt: 1 << 20}
	go func() {
		WritePacket(a, &Packet{ID: 9, CommandSet: 0xC7, Command: 1, Data: take})
		WritePacket(a, &Packet{ID: 10, CommandSet: 0xC7, Command: 1, Data: small})
	}()
	if err := <-ends; err == nil || err.Error() != "full" {
		t.Fatalf("end: %v", err)
	}
	if p := <-c.Incoming(); p.ID != 10 || !bytes.Equal(p.Data, small) {
		t.Fatalf("after a failed diversion: packet %d", p.ID)
	}

	// The peer gone mid-body: end gets the read error.
	go func() {
		var h [HeaderLen]byte
		p := Packet{ID: 11, CommandSet: 0xC7, Command: 1, Data: take}
		a.Write(p.AppendHeader(h[:0]))
		a.Write(take[:2<<20])
		a.Close()
	}()
	if err := <-ends; !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("end after the peer left: %v", err)
	}
	<-c.Done()
}
