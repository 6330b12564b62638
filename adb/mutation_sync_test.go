package adb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Exact limits of the host-protocol and sync decoders: a value at the
// bound is accepted, one past it refused.

func TestParseHexDigitBound(t *testing.T) {
	if n, err := parseHex([]byte("0000000a")); err != nil || n != 10 {
		t.Fatalf("8 digits: %d, %v", n, err)
	}
	if _, err := parseHex([]byte("00000000a")); !errors.Is(err, ErrProtocol) {
		t.Fatalf("9 digits: %v", err)
	}
}

func TestReadAllBoundedExact(t *testing.T) {
	if b, err := readAllBounded(strings.NewReader("12345"), 5); err != nil || string(b) != "12345" {
		t.Fatalf("5 bytes, bound 5: %q, %v", b, err)
	}
	if b, err := readAllBounded(strings.NewReader("123456"), 5); !errors.Is(err, ErrProtocol) || b != nil {
		t.Fatalf("6 bytes, bound 5: %q, %v", b, err)
	}
}

// dent is a v1 DENT record for name.
func dent(name string) []byte {
	b := []byte("DENT")
	b = binary.LittleEndian.AppendUint32(b, 0o100644)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 2)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(name)))
	return append(b, name...)
}

var doneV1 = append([]byte("DONE"), make([]byte, 16)...)

func TestListEntryBound(t *testing.T) {
	reply := append(append(append(dent("a"), dent("b")...), dent("c")...), doneV1...)
	var names []string
	if err := readListReply(bytes.NewReader(reply), false, "p", 3, func(e DirEntry) { names = append(names, e.Name) }); err != nil || strings.Join(names, ",") != "a,b,c" {
		t.Fatalf("3 entries, bound 3: %v, %v", names, err)
	}
	err := readListReply(bytes.NewReader(reply), false, "p", 2, func(DirEntry) {})
	if err == nil || err.Error() != "adb: sync list p: more than 2 entries" {
		t.Fatalf("3 entries, bound 2: %v", err)
	}
}

func TestListNameBound(t *testing.T) {
	name := strings.Repeat("n", syncNameMax)
	var got string
	reply := append(dent(name), doneV1...)
	if err := readListReply(bytes.NewReader(reply), false, "p", 10, func(e DirEntry) { got = e.Name }); err != nil || got != name {
		t.Fatalf("name of %d bytes: %d bytes, %v", syncNameMax, len(got), err)
	}
	reply = append(dent(name+"n"), doneV1...)
	if err := readListReply(bytes.NewReader(reply), false, "p", 10, func(DirEntry) {}); !errors.Is(err, ErrProtocol) {
		t.Fatalf("name of %d bytes: %v", syncNameMax+1, err)
	}
}

func TestListV2EntryErrno(t *testing.T) {
	dnt2 := func(errno uint32, name string) []byte {
		b := binary.LittleEndian.AppendUint32([]byte("DNT2"), errno)
		b = append(b, make([]byte, 64)...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(name)))
		return append(b, name...)
	}
	reply := append(append(dnt2(0, "ok"), dnt2(uint32(syscall.EACCES), "denied")...), append([]byte("DONE"), make([]byte, 72)...)...)
	var ents []DirEntry
	if err := readListReply(bytes.NewReader(reply), true, "p", 10, func(e DirEntry) { ents = append(ents, e) }); err != nil || len(ents) != 2 {
		t.Fatalf("%v, %v", ents, err)
	}
	if ents[0].Name != "ok" || ents[0].Err != nil {
		t.Errorf("entry without errno: %+v", ents[0])
	}
	if ents[1].Name != "denied" || ents[1].Err != syscall.EACCES {
		t.Errorf("entry with EACCES: %+v", ents[1])
	}
}

func data(n int) []byte {
	b := binary.LittleEndian.AppendUint32([]byte("DATA"), uint32(n))
	return append(b, bytes.Repeat([]byte{'d'}, n)...)
}

var doneRecv = []byte("DONE\x00\x00\x00\x00")

func TestRecvBlockAndLimitBounds(t *testing.T) {
	// A block of exactly SYNC_DATA_MAX, larger than the first buffer.
	var out bytes.Buffer
	n, err := readRecvReply(bytes.NewReader(append(data(SyncDataMax), doneRecv...)), &out, "p", 0)
	if err != nil || n != SyncDataMax || out.Len() != SyncDataMax {
		t.Fatalf("block of SyncDataMax: %d, %v", n, err)
	}
	// A file of exactly the limit.
	reply := append(append(data(3), data(2)...), doneRecv...)
	out.Reset()
	if n, err := readRecvReply(bytes.NewReader(reply), &out, "p", 5); err != nil || n != 5 || out.String() != "ddddd" {
		t.Fatalf("5 bytes, limit 5: %d, %q, %v", n, out.String(), err)
	}
	if n, err := readRecvReply(bytes.NewReader(reply), io.Discard, "p", 4); err == nil || n != 3 || !strings.Contains(err.Error(), "exceeds 4 bytes") {
		t.Fatalf("5 bytes, limit 4: %d, %v", n, err)
	}
}

func TestSyncFailMessageBound(t *testing.T) {
	msg := strings.Repeat("m", syncFailMax)
	r := binary.LittleEndian.AppendUint32(nil, syncFailMax)
	err := readSyncFail(bytes.NewReader(append(r, msg...)), "recv", "/p")
	var se *SyncError
	if !errors.As(err, &se) || se.Message != msg {
		t.Fatalf("FAIL of %d bytes: %.60v", syncFailMax, err)
	}
	r = binary.LittleEndian.AppendUint32(nil, syncFailMax+1)
	if err := readSyncFail(bytes.NewReader(append(r, msg+"m"...)), "recv", "/p"); !errors.Is(err, ErrProtocol) {
		t.Fatalf("FAIL of %d bytes: %.60v", syncFailMax+1, err)
	}
}

func TestSyncPathBound(t *testing.T) {
	if err := checkSyncPath("stat", strings.Repeat("a", SyncPathMax)); err != nil {
		t.Fatalf("path of SyncPathMax bytes: %v", err)
	}
	if err := checkSyncPath("stat", strings.Repeat("a", SyncPathMax+1)); err == nil {
		t.Fatal("path above SyncPathMax accepted")
	}
	if err := checkSyncPath("stat", ""); err == nil {
		t.Fatal("empty path accepted")
	}
}

// expiredCtx has a deadline in the past but has not noticed yet, as a
// context whose timer has not fired when the stream's deadline (the same
// instant) ends a read.
type expiredCtx struct{ context.Context }

func (expiredCtx) Deadline() (time.Time, bool) { return time.Unix(1, 0), true }

func TestSyncFailAfterDeadlineNamesIt(t *testing.T) {
	host, dev := net.Pipe()
	defer dev.Close()
	s := NewSync(host, nil)
	defer s.Close()
	err := s.fail(expiredCtx{context.Background()}, errors.New("read: i/o timeout"), false)
	if !errors.Is(err, context.DeadlineExceeded) || s.broken == nil {
		t.Fatalf("got %v (broken %v), want DeadlineExceeded and a broken stream", err, s.broken)
	}
	// A device-reported failure (keep) is returned as it is.
	s = NewSync(host, nil)
	dev2 := errors.New("device said no")
	if err := s.fail(expiredCtx{context.Background()}, dev2, true); err != dev2 || s.broken != nil {
		t.Fatalf("kept failure: %v (broken %v)", err, s.broken)
	}
}

// The RECV buffer grows by doubling: four blocks each a byte larger than
// the last cost one allocation more than the first block alone would.
func TestRecvBufferDoubles(t *testing.T) {
	one := append(data(4097), doneRecv...)
	var four []byte
	for n := 4097; n <= 4100; n++ {
		four = append(four, data(n)...)
	}
	four = append(four, doneRecv...)
	a := testing.AllocsPerRun(20, func() { readRecvReply(bytes.NewReader(one), io.Discard, "p", 0) })
	b := testing.AllocsPerRun(20, func() { readRecvReply(bytes.NewReader(four), io.Discard, "p", 0) })
	if a != b {
		t.Fatalf("%v allocations for one block, %v for four growing blocks: want the same", a, b)
	}
}
