package adbd

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testadb"
)

// binaryFile is content a pty would mangle: CR LF, NUL, every byte value,
// and long enough to span several DATA blocks and WRTE payloads.
func binaryFile() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 200<<10; i++ {
		b.WriteString("line\r\n\x00")
		b.WriteByte(byte(i))
	}
	return b.Bytes()
}

// Through Debian's adb server: the simulated adbd's sync: answers our sync
// client (v2 and v1 devices) and the adb command's own `adb pull`, and
// exec: returns raw bytes.
func TestSyncAndExecThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		name     string
		features []string
		wantV2   bool
	}{
		{"v2 device", nil, true},
		{"v1 device", []string{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := testadb.New(t)
			dev := newFakeDevice(4242)
			content := binaryFile()
			dev.files["/data/local/tmp/bin.hprof"] = content
			dev.files["/data/local/tmp/dir/x y"] = []byte("x")
			_, addr := startServer(t, dev, Options{MaxPayload: 4096, Features: tc.features})
			srv.Start()
			srv.Connect(addr)
			c := srv.Client()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			waitOnline(t, ctx, c, addr)

			feats, err := c.Features(ctx, addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("features through the server: %v", feats)
			s, err := c.OpenSync(ctx, addr)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			statV2, listV2, _ := s.Versions()
			if statV2 != tc.wantV2 || listV2 != tc.wantV2 {
				t.Errorf("stat v2 %v, list v2 %v; want %v", statV2, listV2, tc.wantV2)
			}
			fi, err := s.Stat(ctx, "/data/local/tmp/bin.hprof")
			if err != nil || fi.Size != uint64(len(content)) || !fi.IsRegular() || fi.MTime.Unix() != 1700000000 || fi.V2 != tc.wantV2 {
				t.Errorf("stat: %+v, %v", fi, err)
			}
			if tc.wantV2 && fi.UID != 2000 {
				t.Errorf("v2 stat uid %d", fi.UID)
			}
			if _, err := s.Stat(ctx, "/data/local/tmp/none"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("stat of a missing file: %v", err)
			}
			ents, err := s.List(ctx, "/data/local/tmp")
			var names []string
			for _, e := range ents {
				names = append(names, e.Name)
			}
			if err != nil || !slices.Equal(names, []string{".", "..", "bin.hprof", "dir"}) {
				t.Errorf("list: %q, %v", names, err)
			}
			var got bytes.Buffer
			n, err := s.Recv(ctx, "/data/local/tmp/bin.hprof", &got, 0)
			if err != nil || n != int64(len(content)) || !bytes.Equal(got.Bytes(), content) {
				t.Fatalf("recv: %d bytes (equal %v), %v", n, bytes.Equal(got.Bytes(), content), err)
			}
			// The same stream serves a second request after a RECV.
			got.Reset()
			if _, err := s.Recv(ctx, "/data/local/tmp/dir/x y", &got, 0); err != nil || got.String() != "x" {
				t.Errorf("second recv: %q, %v", got.String(), err)
			}
			if _, err := s.Recv(ctx, "/data/local/tmp/none", &got, 0); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("recv of a missing file: %v", err)
			}

			pulled, err := c.Pull(ctx, addr, "/data/local/tmp/bin.hprof", int64(len(content)))
			if err != nil || !bytes.Equal(pulled, content) {
				t.Errorf("Pull: equal %v, %v", bytes.Equal(pulled, content), err)
			}
			if _, err := c.Pull(ctx, addr, "/data/local/tmp/bin.hprof", 1000); err == nil {
				t.Error("Pull beyond its limit succeeded")
			}

			// The adb command's own pull speaks the same protocol.
			local := filepath.Join(t.TempDir(), "pulled")
			if out, err := srv.Run("-s", addr, "pull", "/data/local/tmp/bin.hprof", local); err != nil {
				t.Errorf("adb pull: %v\n%s", err, out)
			} else if b, _ := os.ReadFile(local); !bytes.Equal(b, content) {
				t.Errorf("adb pull wrote %d bytes, not the file", len(b))
			}
			if out, err := srv.Run("-s", addr, "shell", "ls", "/"); err != nil && !strings.Contains(out, "not found") {
				t.Logf("adb shell ls: %v %s", err, out)
			}

			// exec: carries the cat output unchanged.
			out, err := c.Exec(ctx, addr, "cat /data/local/tmp/bin.hprof")
			if err != nil || !bytes.Equal(out, content) {
				t.Errorf("exec cat: equal %v, %v", bytes.Equal(out, content), err)
			}
		})
	}
}

func waitOnline(t *testing.T, ctx context.Context, c *adb.Client, serial string) {
	t.Helper()
	for {
		devs, err := c.Devices(ctx)
		if err == nil {
			for _, d := range devs {
				if d.Serial == serial && d.Online() {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("device %s not online: %v", serial, devs)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// syncExchange writes req on the sync stream and reads n bytes of answer,
// acknowledging every WRTE.
func (h *testHost) syncExchange(local, dev uint32, req []byte, n int) []byte {
	h.t.Helper()
	h.send(cmdWRTE, local, dev, string(req))
	h.expect(cmdOKAY, dev, local)
	var out []byte
	for len(out) < n {
		p := h.expect(cmdWRTE, dev, local)
		out = append(out, p.Data...)
		h.send(cmdOKAY, local, dev, "")
	}
	if len(out) != n {
		h.t.Fatalf("answer of %d bytes, want %d: % x", len(out), n, out)
	}
	return out
}

func syncReq(id, path string) []byte {
	return append(binary.LittleEndian.AppendUint32([]byte(id), uint32(len(path))), path...)
}

// The daemon's sync: answers, byte for byte (AOSP file_sync_protocol.h
// layouts), over the raw transport protocol — no adb server needed.
func TestSyncServiceVectors(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice()
	_, addr := startServer(t, dev, Options{})
	h := dialHost(t, addr)
	h.connect(1 << 20)
	d := h.open(9, "sync:")
	le := binary.LittleEndian
	const version = "Linux version 4.19 (simulated)\n" // 31 bytes, mode 0644, mtime 1700000000

	got := h.syncExchange(9, d, syncReq("STAT", "/proc/version"), 16)
	if want := unhex(t, "53544154 a4810000 1f000000 00f15365"); !bytes.Equal(got, want) {
		t.Errorf("STAT:\n got % x\nwant % x", got, want)
	}
	got = h.syncExchange(9, d, syncReq("STAT", "/nope"), 16)
	if want := unhex(t, "53544154 00000000 00000000 00000000"); !bytes.Equal(got, want) {
		t.Errorf("STAT of a missing file: % x", got)
	}
	got = h.syncExchange(9, d, syncReq("STA2", "/proc/version"), 72)
	want := unhex(t, "53544132 00000000 00fd000000000000")
	want = le.AppendUint64(want, inode("/proc/version"))
	want = append(want, unhex(t, "a4810000 01000000 d0070000 d0070000 1f00000000000000"+strings.Repeat("00f1536500000000", 3))...)
	if !bytes.Equal(got, want) {
		t.Errorf("STA2:\n got % x\nwant % x", got, want)
	}
	got = h.syncExchange(9, d, syncReq("LST2", "/nope"), 72)
	if want := append(unhex(t, "4c535432 02000000"), make([]byte, 64)...); !bytes.Equal(got, want) {
		t.Errorf("LST2 of a missing file (ENOENT): % x", got)
	}
	// LIST of a missing directory: just the 20-byte DONE.
	got = h.syncExchange(9, d, syncReq("LIST", "/nope"), 20)
	if want := append([]byte("DONE"), make([]byte, 16)...); !bytes.Equal(got, want) {
		t.Errorf("LIST of a missing directory: % x", got)
	}
	// LIST /proc: ".", "..", then version, then DONE.
	dot := func(name string) int { return 20 + len(name) }
	got = h.syncExchange(9, d, syncReq("LIST", "/proc"), dot(".")+dot("..")+dot("version")+20)
	entry := got[dot(".")+dot(".."):]
	if want := append(unhex(t, "44454e54 a4810000 1f000000 00f15365 07000000"), "version"...); !bytes.Equal(entry[:dot("version")], want) {
		t.Errorf("DENT version:\n got % x\nwant % x", entry[:dot("version")], want)
	}
	got = h.syncExchange(9, d, syncReq("RECV", "/proc/version"), 8+31+8)
	if want := append(append(unhex(t, "44415441 1f000000"), version...), unhex(t, "444f4e45 00000000")...); !bytes.Equal(got, want) {
		t.Errorf("RECV:\n got % x\nwant % x", got, want)
	}
	got = h.syncExchange(9, d, append(syncReq("RCV2", "/proc/version"), unhex(t, "52435632 00000000")...), 8+31+8)
	if !bytes.Equal(got[8:8+31], []byte(version)) {
		t.Errorf("RCV2: % x", got)
	}
	// A failed RECV: FAIL with the reason, then the daemon closes.
	msg := "open failed: No such file or directory"
	got = h.syncExchange(9, d, syncReq("RECV", "/nope"), 8+len(msg))
	if want := append(le.AppendUint32([]byte("FAIL"), uint32(len(msg))), msg...); !bytes.Equal(got, want) {
		t.Errorf("RECV of a missing file: %q", got)
	}
	h.expect(cmdCLSE, d, 9)

	// RCV2 with compression asked for: refused.
	d = h.open(10, "sync:")
	msg = "unknown flags: 1"
	got = h.syncExchange(10, d, append(syncReq("RCV2", "/proc/version"), unhex(t, "52435632 01000000")...), 8+len(msg))
	if !bytes.Equal(got[8:], []byte(msg)) {
		t.Errorf("RCV2 brotli: %q", got)
	}
	h.expect(cmdCLSE, d, 10)

	// A path beyond 1024 bytes, and QUIT.
	d = h.open(11, "sync:")
	got = h.syncExchange(11, d, le.AppendUint32([]byte("STAT"), 1025), 8+len("path too long"))
	if !bytes.Equal(got[8:], []byte("path too long")) {
		t.Errorf("long path: %q", got)
	}
	h.expect(cmdCLSE, d, 11)
	d = h.open(12, "sync:")
	h.send(cmdWRTE, 12, d, string(syncReq("QUIT", "")))
	h.expect(cmdOKAY, d, 12)
	h.expect(cmdCLSE, d, 12)
}
