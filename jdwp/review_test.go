package jdwp

import (
	"bytes"
	"errors"
	"testing"
)

// TestPacketExactlyAtTheLimit: a packet whose length equals the limit is
// read; one byte more is refused before anything is read past the header.
func TestPacketExactlyAtTheLimit(t *testing.T) {
	const limit = HeaderLen + 5
	ok := (&Packet{ID: 7, CommandSet: 1, Command: 1, Data: []byte{1, 2, 3, 4, 5}}).Marshal()
	p, err := ReadPacket(bytes.NewReader(ok), limit)
	if err != nil || !bytes.Equal(p.Data, []byte{1, 2, 3, 4, 5}) {
		t.Fatalf("packet at the limit: %v %v", p, err)
	}
	if _, err := Decode(ok, limit); err != nil {
		t.Fatalf("Decode at the limit: %v", err)
	}
	over := (&Packet{ID: 8, CommandSet: 1, Command: 1, Data: make([]byte, 6)}).Marshal()
	r := bytes.NewReader(over)
	if _, err := ReadPacket(r, limit); !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("one byte over the limit: %v", err)
	}
	if r.Len() != 6 {
		t.Fatalf("%d bytes left unread, want the 6 data bytes", r.Len())
	}
}

// TestErrorReplyCarriesNoData: JDWP error replies have no data (spec
// jdwp.md, reply packets), so NewReply drops what it is given for them and
// keeps it for ErrNone.
func TestErrorReplyCarriesNoData(t *testing.T) {
	e := NewReply(9, ErrInvalidThread, []byte{1, 2, 3})
	if e.Data != nil || len(e.Marshal()) != HeaderLen || e.ErrorCode != ErrInvalidThread || !e.IsReply() {
		t.Fatalf("error reply %+v, wire %x", e, e.Marshal())
	}
	ok := NewReply(9, ErrNone, []byte{1, 2, 3})
	if !bytes.Equal(ok.Data, []byte{1, 2, 3}) || len(ok.Marshal()) != HeaderLen+3 {
		t.Fatalf("success reply %+v", ok)
	}
}
