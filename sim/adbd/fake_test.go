package adbd

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
)

// fakeDevice is a Device whose VMs are echo servers behind the JDWP
// handshake, and whose shell is a BasicShell over a small file table;
// kill -3 writes a thread dump to /data/anr/traces.txt as a device does.
type fakeDevice struct {
	pids PIDSet
	// stuck pids have a VM that never reads what it is sent.
	stuck map[int]bool

	mu      sync.Mutex
	files   map[string][]byte
	signals []string
	opened  int
	vmsWG   sync.WaitGroup
}

func newFakeDevice(pids ...int) *fakeDevice {
	d := &fakeDevice{files: map[string][]byte{"/proc/version": []byte("Linux version 4.19 (simulated)\n")}}
	for _, p := range pids {
		d.pids.Add(p)
	}
	return d
}

// wait blocks until every VM goroutine ended: call before leakcheck runs.
func (d *fakeDevice) wait() { d.vmsWG.Wait() }

func (d *fakeDevice) Properties() map[string]string {
	return map[string]string{
		"ro.product.name":      "ddmsim",
		"ro.product.model":     "DDM Sim",
		"ro.product.device":    "ddmsim",
		"ro.build.version.sdk": "29",
	}
}

func (d *fakeDevice) JDWPPids() ([]int, <-chan struct{}) { return d.pids.Snapshot() }

func (d *fakeDevice) OpenJDWP(pid int) (net.Conn, error) {
	if !d.pids.Contains(pid) {
		return nil, fmt.Errorf("no VM with pid %d", pid)
	}
	d.mu.Lock()
	d.opened++
	d.mu.Unlock()
	ours, vm := net.Pipe()
	if d.stuck[pid] {
		return ours, nil
	}
	d.vmsWG.Add(1)
	go func() {
		defer d.vmsWG.Done()
		defer vm.Close()
		if jdwp.ServerHandshake(vm, 5*time.Second) != nil {
			return
		}
		io.Copy(vm, vm)
	}()
	return ours, nil
}

// Files serves the file table to sync:; paths under /data/anr other
// than traces.txt are root-only, as on Android 8 and later.
func (d *fakeDevice) Files() fs.FS {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := fstest.MapFS{}
	for p, b := range d.files {
		m[strings.TrimPrefix(p, "/")] = &fstest.MapFile{Data: b, Mode: 0o644, ModTime: time.Unix(1700000000, 0)}
	}
	return m
}

func (d *fakeDevice) Shell(ctx context.Context, cmd string, out io.Writer) (int, error) {
	return BasicShell{
		Properties: d.Properties,
		ReadFile: func(path string) ([]byte, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			b, ok := d.files[path]
			if !ok {
				return nil, fs.ErrNotExist
			}
			return b, nil
		},
		Signal: func(pid int, sig syscall.Signal) error {
			if !d.pids.Contains(pid) {
				return ErrNoProcess
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			d.signals = append(d.signals, fmt.Sprintf("%d %d", sig, pid))
			if sig == syscall.SIGQUIT {
				d.files["/data/anr/traces.txt"] = fmt.Appendf(nil, "----- pid %d at 2024-01-01 00:00:00 -----\n\"main\" prio=5 tid=1 Native\n----- end %d -----\n", pid, pid)
			}
			return nil
		},
	}.Run(ctx, cmd, out)
}

func (d *fakeDevice) signalsSeen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.signals...)
}

// testLogger sends the daemon's debug log to the test log (shown with -v or
// on failure).
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

// startServer runs a daemon for dev on a loopback port until the test ends.
func startServer(t *testing.T, dev *fakeDevice, opts Options) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	s := New(dev, opts)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != ErrServerClosed {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		dev.wait()
	})
	return s, ln.Addr().String()
}
