package monitor

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// hostileFiles stats with the fake device (the dump "exists") and pulls
// through a real adb client from a hostile adb server.
type hostileFiles struct {
	*fakeDevice
	c *adb.Client
}

func (f hostileFiles) PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	return f.c.PullTo(ctx, "hostile", path, w, limit)
}

func endlessPullSession(t *testing.T, rate int, maxFile int64) (*Session, *fakeDevice) {
	t.Helper()
	srv, err := hostile.Serve("127.0.0.1:0", hostile.EndlessRecv(rate))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	d := &fakeDevice{exec: map[string]string{}, files: map[string][]byte{}}
	d.onCommand = func(cmd string) (string, bool) {
		if rest, ok := strings.CutPrefix(cmd, "am dumpheap 42 "); ok {
			d.files[rest] = []byte("JAVA PROFILE 1.0.3\x00")
			return "File: " + rest + "\nWaiting for dump to finish...\n", true
		}
		return "", strings.HasPrefix(cmd, "rm ")
	}
	s := d.session(t)
	s.setDevice(devshell.New(devshell.Services{Shell: s.dev.Shell, Exec: s.dev.Run,
		Files: hostileFiles{d, &adb.Client{Addr: srv.Addr(), Timeout: 5 * time.Second}}}, nil))
	s.dumps.maxFile = maxFile
	return s, d
}

// Issue 30 item 11: a pulled heap dump whose RECV never ends is streamed
// to the destination file, never held: it stops at MaxDeviceFile with an
// error that says so, and the process allocates a small fraction of what
// passed through.
func TestPullEndlessRecvBounded(t *testing.T) {
	leakcheck.Check(t)
	const limit = 32 << 20
	s, _ := endlessPullSession(t, 0, limit)
	f, err := os.Create(filepath.Join(t.TempDir(), "dump.part"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := s.dumps.am(ctx, f, nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("endless RECV: %d bytes, err %v; want a size error", n, err)
	}
	if n > limit {
		t.Errorf("%d bytes written, past the %d bound", n, limit)
	}
	if fi, _ := f.Stat(); fi.Size() < limit/2 || fi.Size() > limit {
		t.Errorf("the destination holds %d bytes; the pull should have streamed up to the bound", fi.Size())
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > limit/4 {
		t.Errorf("%d bytes allocated to pull %d: the file was held, not streamed", alloc, limit)
	}
	t.Logf("endless RECV: stopped at %d bytes (bound %d), %d KiB allocated meanwhile, error %q", n, int64(limit), alloc>>10, err)
}

// A RECV that trickles on forever ends with the caller's timeout.
func TestPullEndlessRecvTimeout(t *testing.T) {
	leakcheck.Check(t)
	s, _ := endlessPullSession(t, 256<<10, DefaultMaxDeviceFile)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.dumps.am(ctx, io.Discard, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("trickling RECV: %v, want the deadline", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("ended after %v", d)
	}
}
