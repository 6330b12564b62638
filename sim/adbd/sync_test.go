package adbd

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/internal/leakcheck"
	"github.com/ddmtui/ddmtui/internal/testadb"
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
