package adb

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

func unhexSync(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scriptedDevice answers each expected request (exact bytes) with reply,
// over an in-memory stream, and reports what it got wrong.
func scriptedDevice(t *testing.T, feats []string, steps ...[2][]byte) (*Sync, <-chan error) {
	t.Helper()
	host, dev := net.Pipe()
	errc := make(chan error, 1)
	go func() {
		defer dev.Close()
		for i, st := range steps {
			got := make([]byte, len(st[0]))
			if _, err := io.ReadFull(dev, got); err != nil {
				errc <- err
				return
			}
			if !bytes.Equal(got, st[0]) {
				errc <- errors.New("step " + string(rune('0'+i)) + ": request " + hex.EncodeToString(got) + ", want " + hex.EncodeToString(st[0]))
				return
			}
			if _, err := dev.Write(st[1]); err != nil {
				errc <- err
				return
			}
		}
		// QUIT, or the host closing.
		q := make([]byte, 8)
		if _, err := io.ReadFull(dev, q); err == nil && string(q) != "QUIT\x00\x00\x00\x00" {
			errc <- errors.New("expected QUIT, got " + hex.EncodeToString(q))
			return
		}
		errc <- nil
	}()
	s := NewSync(host, feats)
	t.Cleanup(func() { s.Close() })
	return s, errc
}

func finish(t *testing.T, s *Sync, errc <-chan error) {
	t.Helper()
	s.Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// Byte layouts from AOSP file_sync_protocol.h; the path below is 17 bytes.
const syncPath = "/data/local/tmp/a"

func TestSyncStatV1Vector(t *testing.T) {
	req := append(unhexSync(t, "53544154 11000000"), syncPath...)
	// "STAT" mode 0100644, size 5, mtime 1700000000.
	reply := unhexSync(t, "53544154 a4810000 05000000 00f15365")
	missing := append(unhexSync(t, "53544154 0d000000"), "/no/such/file"...)
	zeros := unhexSync(t, "53544154 00000000 00000000 00000000")
	s, errc := scriptedDevice(t, nil, [2][]byte{req, reply}, [2][]byte{missing, zeros})
	ctx := context.Background()
	fi, err := s.Stat(ctx, syncPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode != 0o100644 || !fi.IsRegular() || fi.IsDir() || fi.Size != 5 || fi.MTime.Unix() != 1700000000 || fi.V2 {
		t.Errorf("stat v1: %+v", fi)
	}
	_, err = s.Stat(ctx, "/no/such/file")
	var se *SyncError
	if !errors.As(err, &se) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("all-zero STAT: %v, want a SyncError matching fs.ErrNotExist", err)
	}
	// A STAT error is not a broken stream: the service goes on.
	if s.broken != nil {
		t.Errorf("stream marked broken after a missing file: %v", s.broken)
	}
	finish(t, s, errc)
}

func TestSyncRequestBytes(t *testing.T) {
	got := appendSyncRequest(nil, idStat, syncPath)
	want := append(unhexSync(t, "53544154 11000000"), syncPath...)
	if !bytes.Equal(got, want) {
		t.Fatalf("STAT request % x, want % x", got, want)
	}
	if got := appendSyncRequest(nil, idQuit, ""); !bytes.Equal(got, []byte("QUIT\x00\x00\x00\x00")) {
		t.Fatalf("QUIT % x", got)
	}
	if err := checkSyncPath("stat", strings.Repeat("a", SyncPathMax+1)); err == nil {
		t.Error("a 1025-byte path was accepted")
	}
	if err := checkSyncPath("stat", ""); err == nil {
		t.Error("an empty path was accepted")
	}
}

// statV2Reply is a STA2 answer for a regular file: dev 0xfd00, ino 77,
// mode 0100600, nlink 1, uid/gid 2000, size 0x1_0000_0002 (beyond v1's
// u32), atime/mtime/ctime 1700000000/1700000001/1700000002.
const statV2Reply = "53544132 00000000 00fd000000000000 4d00000000000000 80810000 01000000 d0070000 d0070000" +
	" 0200000001000000 00f1536500000000 01f1536500000000 02f1536500000000"

func TestSyncStatV2Vector(t *testing.T) {
	req := append(unhexSync(t, "53544132 11000000"), syncPath...)
	missing := append(unhexSync(t, "53544132 04000000"), "/nix"...)
	// error ENOENT (2) and zeros.
	enoent := unhexSync(t, "53544132 02000000"+strings.Repeat("00", 64))
	s, errc := scriptedDevice(t, []string{"shell_v2", FeatureStatV2}, [2][]byte{req, unhexSync(t, statV2Reply)}, [2][]byte{missing, enoent})
	if len(unhexSync(t, statV2Reply)) != statV2Size {
		t.Fatalf("vector is %d bytes", len(unhexSync(t, statV2Reply)))
	}
	ctx := context.Background()
	fi, err := s.Stat(ctx, syncPath)
	if err != nil {
		t.Fatal(err)
	}
	want := FileInfo{Mode: 0o100600, Size: 0x1_0000_0002, V2: true, Dev: 0xfd00, Ino: 77, NLink: 1, UID: 2000, GID: 2000,
		ATime: time.Unix(1700000000, 0), MTime: time.Unix(1700000001, 0), CTime: time.Unix(1700000002, 0)}
	if fi != want {
		t.Errorf("stat v2:\n got %+v\nwant %+v", fi, want)
	}
	_, err = s.Stat(ctx, "/nix")
	var se *SyncError
	if !errors.As(err, &se) || se.Errno != syscall.ENOENT || !IsNotExist(err) {
		t.Errorf("STA2 with ENOENT: %v", err)
	}
	finish(t, s, errc)
}

func TestSyncListVectors(t *testing.T) {
	// v1: DENT mode size mtime namelen name …, then a 20-byte DONE.
	v1 := unhexSync(t, "44454e54 ed410000 00100000 00f15365 01000000 2e"+
		"44454e54 a4810000 03000000 00f15365 06000000 612062 0d0a00"+
		"444f4e45 00000000 00000000 00000000 00000000")
	// v2: DNT2 + the 68 STA2 bytes + namelen + name, then a 76-byte DONE.
	dnt2 := "444e5432" + statV2Reply[8:] + " 03000000 787878"
	v2 := unhexSync(t, dnt2+"444f4e45"+strings.Repeat("00", 72))
	s1, errc1 := scriptedDevice(t, nil, [2][]byte{append(unhexSync(t, "4c495354 05000000"), "/data"...), v1})
	ents, err := s1.List(context.Background(), "/data")
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 || ents[0].Name != "." || !ents[0].IsDir() || ents[1].Name != "a b\r\n\x00" || ents[1].Size != 3 || ents[1].Mode != 0o100644 {
		t.Errorf("list v1: %+v", ents)
	}
	finish(t, s1, errc1)

	s2, errc2 := scriptedDevice(t, []string{FeatureLsV2}, [2][]byte{append(unhexSync(t, "4c495332 05000000"), "/data"...), v2})
	ents, err = s2.List(context.Background(), "/data")
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name != "xxx" || ents[0].Size != 0x1_0000_0002 || ents[0].UID != 2000 || !ents[0].V2 {
		t.Errorf("list v2: %+v", ents)
	}
	finish(t, s2, errc2)
}

// Binary content with "\r\n" and NUL arrives unchanged, across DATA blocks.
func TestSyncRecvVectors(t *testing.T) {
	content := []byte("a\r\n\x00b")
	reply := unhexSync(t, "44415441 03000000 610d0a 44415441 02000000 0062 444f4e45 00000000")
	fail := append(unhexSync(t, "4641494c 26000000"), "open failed: No such file or directory"...)
	for _, v2 := range []bool{false, true} {
		var feats []string
		req := append(unhexSync(t, "52454356 11000000"), syncPath...)
		if v2 {
			feats = []string{FeatureSendRecvV2}
			req = append(append(unhexSync(t, "52435632 11000000"), syncPath...), unhexSync(t, "52435632 00000000")...)
		}
		s, errc := scriptedDevice(t, feats, [2][]byte{req, reply})
		var got bytes.Buffer
		n, err := s.Recv(context.Background(), syncPath, &got, 0)
		if err != nil || n != 5 || !bytes.Equal(got.Bytes(), content) {
			t.Fatalf("v2=%v: recv %q (%d), %v", v2, got.Bytes(), n, err)
		}
		finish(t, s, errc)

		// A FAIL names the reason and leaves the stream unusable.
		s, errc = scriptedDevice(t, feats, [2][]byte{req, fail})
		_, err = s.Recv(context.Background(), syncPath, io.Discard, 0)
		var se *SyncError
		if !errors.As(err, &se) || se.Message != "open failed: No such file or directory" || !IsNotExist(err) {
			t.Errorf("v2=%v: FAIL gave %v", v2, err)
		}
		if _, err := s.Stat(context.Background(), "/x"); err == nil {
			t.Error("a Sync after a failed RECV is still used")
		}
		finish(t, s, errc)
	}
}

func TestSyncRecvBounds(t *testing.T) {
	over := unhexSync(t, "44415441 01000100") // 65537 bytes: more than SYNC_DATA_MAX
	if _, err := readRecvReply(bytes.NewReader(over), io.Discard, "p", 0); !errors.Is(err, ErrProtocol) {
		t.Errorf("oversized DATA: %v", err)
	}
	two := unhexSync(t, "44415441 03000000 616161 444f4e45 00000000")
	if _, err := readRecvReply(bytes.NewReader(two), io.Discard, "p", 2); err == nil || !strings.Contains(err.Error(), "exceeds 2 bytes") {
		t.Errorf("limit: %v", err)
	}
	bigFail := unhexSync(t, "4641494c ffffffff")
	if _, err := readRecvReply(bytes.NewReader(bigFail), io.Discard, "p", 0); !errors.Is(err, ErrProtocol) {
		t.Errorf("4 GiB FAIL message: %v", err)
	}
	longName := unhexSync(t, "44454e54 00000000 00000000 00000000 ffffff7f")
	if err := readListReply(bytes.NewReader(longName), false, "p", 10, func(DirEntry) {}); !errors.Is(err, ErrProtocol) {
		t.Errorf("2 GiB name: %v", err)
	}
	var many []byte
	for range 3 {
		many = append(many, unhexSync(t, "44454e54 00000000 00000000 00000000 01000000 61")...)
	}
	if err := readListReply(bytes.NewReader(many), false, "p", 2, func(DirEntry) {}); err == nil {
		t.Error("more entries than the bound were accepted")
	}
	if _, err := readRecvReply(bytes.NewReader([]byte("OKAY\x00\x00\x00\x00")), io.Discard, "p", 0); !errors.Is(err, ErrProtocol) {
		t.Errorf("unknown record: %v", err)
	}
}

// A cancelled context interrupts a request whose reply never comes.
func TestSyncContextCancel(t *testing.T) {
	host, dev := net.Pipe()
	defer dev.Close()
	go io.Copy(io.Discard, dev)
	s := NewSync(host, nil)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := s.Stat(ctx, "/x"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stat without a reply: %v", err)
	}
}

// BenchmarkSyncRecv pulls an 8 MiB file sent in 64 KiB DATA blocks over an
// in-memory stream: the client's own cost per byte.
func BenchmarkSyncRecv(b *testing.B) {
	const size = 8 << 20
	var reply []byte
	block := bytes.Repeat([]byte("a\r\n\x00"), SyncDataMax/4)
	for n := 0; n < size; n += SyncDataMax {
		reply = append(reply, "DATA\x00\x00\x01\x00"...)
		reply = append(reply, block...)
	}
	reply = append(reply, "DONE\x00\x00\x00\x00"...)
	host, dev := net.Pipe()
	defer dev.Close()
	go func() {
		req := make([]byte, 8+len(syncPath))
		for {
			if _, err := io.ReadFull(dev, req); err != nil || string(req[:4]) != "RECV" {
				return
			}
			if _, err := dev.Write(reply); err != nil {
				return
			}
		}
	}()
	s := NewSync(host, nil)
	defer s.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if n, err := s.Recv(context.Background(), syncPath, io.Discard, 0); err != nil || n != size {
			b.Fatal(n, err)
		}
	}
}

func TestSyncErrorErrno(t *testing.T) {
	for msg, want := range map[string]error{
		"open failed: No such file or directory": fs.ErrNotExist,
		"open failed: Permission denied":         fs.ErrPermission,
	} {
		err := error(&SyncError{Op: "recv", Path: "/p", Message: msg, Errno: errnoFromMessage(msg)})
		if !errors.Is(err, want) {
			t.Errorf("%q does not match %v", msg, want)
		}
		if err.Error() != "adb: sync recv /p: "+msg {
			t.Errorf("message %q", err.Error())
		}
	}
	if e := errnoFromMessage("unknown flags: 1"); e != 0 {
		t.Errorf("errno %v from a message without one", e)
	}
}
