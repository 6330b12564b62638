package jdwp

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Vectors from spec/jdwp.md §2 and §3.
func TestPacketVectors(t *testing.T) {
	cases := []struct {
		name string
		wire string
		want Packet
	}{
		{"IDSizes command", "00 00 00 0B  00 00 00 05  00  01  07",
			Packet{ID: 5, CommandSet: 1, Command: 7, Data: []byte{}}},
		{"IDSizes reply (ART)", `00 00 00 1F  00 00 00 05  80  00 00
			00 00 00 08  00 00 00 08  00 00 00 08  00 00 00 08  00 00 00 08`,
			Packet{ID: 5, Flags: FlagReply, Data: unhex(t, "0000000800000008000000080000000800000008")}},
		{"NOT_IMPLEMENTED reply", "00 00 00 0B  40 00 00 01  80  00 63",
			Packet{ID: 0x40000001, Flags: FlagReply, ErrorCode: ErrNotImplemented, Data: []byte{}}},
		{"ddmlib HELO request", "00 00 00 17  40 00 00 01  00  C7 01  48 45 4C 4F  00 00 00 04  00 00 00 01",
			Packet{ID: 0x40000001, CommandSet: CmdSetDDM, Command: CmdDDMChunk, Data: unhex(t, "48454C4F0000000400000001")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := unhex(t, c.wire)
			p, err := Decode(b, 0)
			if err != nil {
				t.Fatal(err)
			}
			if p.ID != c.want.ID || p.Flags != c.want.Flags || p.CommandSet != c.want.CommandSet ||
				p.Command != c.want.Command || p.ErrorCode != c.want.ErrorCode || !bytes.Equal(p.Data, c.want.Data) {
				t.Fatalf("decoded %+v, want %+v", p, c.want)
			}
			if got := c.want.Marshal(); !bytes.Equal(got, b) {
				t.Fatalf("encoded % x, want % x", got, b)
			}
			rp, err := ReadPacket(bytes.NewReader(b), 0)
			if err != nil || !bytes.Equal(rp.Marshal(), b) {
				t.Fatalf("ReadPacket: %v % x", err, rp.Marshal())
			}
		})
	}
	if p, _ := Decode(unhex(t, cases[3].wire), 0); !p.IsDDM() {
		t.Error("HELO packet not recognised as DDM")
	}
}

func TestErrorNameOnTheWire(t *testing.T) {
	// Spec §2: NOT_IMPLEMENTED arrives as bytes 00 63; ddmlib's byte-swapped
	// reading would give 0x6300. Ours must give 99.
	p, err := Decode(unhex(t, "0000000B4000000180 0063"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.ErrorCode != 99 || p.ErrorCode.String() != "NOT_IMPLEMENTED" {
		t.Fatalf("error code %d %s", p.ErrorCode, p.ErrorCode)
	}
}

func TestLengthLimits(t *testing.T) {
	huge := unhex(t, "FF FF FF FF  00 00 00 01  00  01 01")
	if n := bytesAllocated(func() {
		_, err := ReadPacket(bytes.NewReader(huge), 0)
		if !errors.Is(err, ErrPacketTooLarge) {
			t.Fatalf("4 GiB length: err = %v", err)
		}
	}); n > 4096 {
		t.Fatalf("rejecting a 4 GiB length allocated %d bytes", n)
	}
	if _, err := ReadPacket(bytes.NewReader(unhex(t, "00 00 00 0A 00 00 00 01 00 01 01")), 0); !errors.Is(err, ErrBadLength) {
		t.Fatalf("length 10: err = %v", err)
	}
	if _, err := ReadPacket(bytes.NewReader(unhex(t, "00 00 00 20 00 00 00 01 00 01 01")), 16); !errors.Is(err, ErrPacketTooLarge) {
		t.Fatalf("length over configured max: err = %v", err)
	}
	// A claim of 100 MiB with 3 bytes behind it: an error, and no 100 MiB buffer.
	claim := unhex(t, "06 40 00 00 00 00 00 01 00 C7 01 01 02 03")
	var err error
	if n := bytesAllocated(func() { _, err = ReadPacket(bytes.NewReader(claim), 0) }); n > 2*readChunk {
		t.Fatalf("a 100 MiB claim with 3 bytes behind it allocated %d bytes", n)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated large packet: err = %v", err)
	}
	if _, err := Decode(unhex(t, "00 00 00 0C 00 00 00 01 00 01 01"), 0); err == nil {
		t.Fatal("Decode accepted a length that does not match the buffer")
	}
}

// bytesAllocated reports the heap bytes fn allocates.
func bytesAllocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

func TestReadPacketLargeGrowsInSteps(t *testing.T) {
	data := bytes.Repeat([]byte{0xAB}, 3*readChunk+17)
	p := NewCommand(9, CmdSetDDM, CmdDDMChunk, data)
	got, err := ReadPacket(bytes.NewReader(p.Marshal()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data, data) {
		t.Fatal("large packet data differs")
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{CommandName(15, 1), "EventRequest.Set"},
		{CommandName(64, 100), "Event.Composite"},
		{CommandName(0xC7, 1), "DDM.Chunk"},
		{CommandName(11, 99), "ThreadReference.99"},
		{CommandName(200, 3), "200/3"},
		{ErrInvalidThread.String(), "INVALID_THREAD"},
		{ErrorCode(9999).String(), "ERROR_9999"},
		{EventKindName(EventBreakpoint), "BREAKPOINT"},
		{SuspendPolicyName(2), "ALL"},
		{ThreadStatusName(ThreadMonitor), "monitor"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	err := error(&ReplyError{Code: ErrNotImplemented, CommandSet: CmdSetDDM, Command: 1})
	if !errors.Is(err, &ReplyError{Code: ErrNotImplemented}) || errors.Is(err, &ReplyError{Code: ErrInternal}) {
		t.Fatal("ReplyError.Is does not match on code")
	}
	if !strings.Contains(err.Error(), "DDM.Chunk: NOT_IMPLEMENTED (99)") {
		t.Fatalf("error text %q", err)
	}
}

func TestStandardCommandCodecs(t *testing.T) {
	v := Version{"Android Runtime 2.1.0", 1, 6, "1.6.0", "Dalvik"}
	got, err := DecodeVersion(AppendVersion(nil, v))
	if err != nil || got != v {
		t.Fatalf("Version round trip: %+v %v", got, err)
	}
	sz := IDSizes{4, 4, 8, 8, 8}
	gs, err := DecodeIDSizes(AppendIDSizes(nil, sz))
	if err != nil || gs != sz {
		t.Fatalf("IDSizes round trip: %+v %v", gs, err)
	}
	if _, err := DecodeIDSizes(AppendIDSizes(nil, IDSizes{0, 4, 8, 8, 8})); err == nil {
		t.Fatal("IDSizes with a zero size accepted")
	}
	ids := []uint64{1, 0x1234, 0xFFFFFFFFFF}
	gi, err := DecodeIDList(AppendIDList(nil, 8, ids), 8)
	if err != nil || len(gi) != 3 || gi[2] != 0xFFFFFFFFFF {
		t.Fatalf("id list: %v %v", gi, err)
	}
	// A count of 2^31 with no ids behind it: rejected before allocation.
	if _, err := DecodeIDList(unhex(t, "80000000"), 8); err == nil {
		t.Fatal("id list with a huge count accepted")
	}
	ts, err := DecodeThreadStatus(AppendThreadStatus(nil, ThreadStatusReply{ThreadWait, 1}))
	if err != nil || ts.Status != ThreadWait || ts.SuspendStatus != 1 {
		t.Fatalf("status: %+v %v", ts, err)
	}
	name, err := DecodeString(AppendString(nil, "Signal Catcher"))
	if err != nil || name != "Signal Catcher" {
		t.Fatalf("string: %q %v", name, err)
	}
	if _, err := DecodeString(unhex(t, "7FFFFFFF 41")); err == nil {
		t.Fatal("string longer than its data accepted")
	}
	if _, err := DecodeID(unhex(t, "0000000000000001 00"), 8); err == nil {
		t.Fatal("id with trailing bytes accepted")
	}
}
