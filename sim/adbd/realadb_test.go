package adbd

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// adbServer is a real adb server on a private loopback port, with its own
// HOME (keys) and TMPDIR (log), and emulator probing off (ADB_EMU=0) so it
// never picks up other programs' ports.
type adbServer struct {
	t    *testing.T
	path string
	port int
	dir  string
	env  []string
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// newADBServer prepares (but does not start) a private server.
func newADBServer(t *testing.T) *adbServer {
	path := testpeer.Require(t, "adb")
	a := &adbServer{t: t, path: path, port: freePort(t), dir: t.TempDir()}
	a.env = []string{"HOME=" + a.dir, "TMPDIR=" + a.dir, "ADB_EMU=0"}
	t.Cleanup(a.kill)
	return a
}

func (a *adbServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", a.port) }

// command builds `adb -P PORT args…` with the server's environment.
func (a *adbServer) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, a.path, append([]string{"-P", fmt.Sprint(a.port)}, args...)...)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ADB_") || strings.HasPrefix(k, "ANDROID_") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, a.env...)
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// run runs an adb command to completion and returns its output.
func (a *adbServer) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := a.command(ctx, args...).CombinedOutput()
	return string(out), err
}

func (a *adbServer) start() {
	a.t.Helper()
	if out, err := a.run("start-server"); err != nil {
		a.t.Fatalf("adb start-server: %v\n%s", err, out)
	}
}

// kill stops the server and waits until its port is free.
func (a *adbServer) kill() {
	a.run("kill-server")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		nc, err := net.DialTimeout("tcp", a.addr(), 200*time.Millisecond)
		if err != nil {
			return
		}
		nc.Close()
		time.Sleep(50 * time.Millisecond)
	}
	a.t.Errorf("adb server on %s still answering after kill-server", a.addr())
}

// logTail returns the end of the server's log, for failure messages.
func (a *adbServer) logTail() string {
	matches, _ := filepath.Glob(filepath.Join(a.dir, "adb.*.log"))
	var b strings.Builder
	for _, m := range matches {
		data, _ := os.ReadFile(m)
		if len(data) > 4000 {
			data = data[len(data)-4000:]
		}
		b.Write(data)
	}
	return b.String()
}

// waitDevices takes tracker updates until ok accepts one.
func waitDevices(t *testing.T, tr *adb.Tracker[[]adb.Device], what string, ok func([]adb.Device) bool) []adb.Device {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case devs, open := <-tr.Updates():
			if !open {
				t.Fatalf("waiting for %s: tracker ended: %v", what, tr.Err())
			}
			if ok(devs) {
				return devs
			}
		case <-timeout:
			t.Fatalf("waiting for %s: timed out", what)
		}
	}
}

func waitPIDs(t *testing.T, tr *adb.Tracker[[]int], want []int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	var last []int
	for {
		select {
		case pids, open := <-tr.Updates():
			if !open {
				t.Fatalf("waiting for pids %v: tracker ended: %v", want, tr.Err())
			}
			last = pids
			if reflect.DeepEqual(pids, want) {
				return
			}
		case <-timeout:
			t.Fatalf("waiting for pids %v: last %v", want, last)
		}
	}
}

func find(devs []adb.Device, serial string) (adb.Device, bool) {
	for _, d := range devs {
		if d.Serial == serial {
			return d, true
		}
	}
	return adb.Device{}, false
}

func online(serial string) func([]adb.Device) bool {
	return func(devs []adb.Device) bool { d, ok := find(devs, serial); return ok && d.Online() }
}

// TestRealADBServer: the Debian adb server connects to the simulated
// device, lists it, tracks its VMs, and relays jdwp and shell streams.
func TestRealADBServer(t *testing.T) {
	leakcheck.Check(t)
	a := newADBServer(t)
	a.start()
	dev := newFakeDevice(4242, 4251)
	_, devAddr := startServer(t, dev, Options{})
	serial := devAddr
	c := &adb.Client{Addr: a.addr()}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	defer func() {
		if t.Failed() {
			t.Logf("adb server log:\n%s", a.logTail())
		}
	}()

	if v, err := c.Version(ctx); err != nil || v != 41 {
		t.Fatalf("version %d, %v; want 41 (adb 1.0.41)", v, err)
	}
	tr, err := c.TrackDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	waitDevices(t, tr, "the empty list", func(d []adb.Device) bool { return len(d) == 0 })

	msg, err := c.Connect(ctx, serial)
	if err != nil || msg != "connected to "+serial {
		t.Fatalf("connect: %q, %v", msg, err)
	}
	devs := waitDevices(t, tr, "the device online", online(serial))
	d, _ := find(devs, serial)
	if d.Properties["model"] != "DDM_Sim" || d.Properties["product"] != "ddmsim" || d.Properties["device"] != "ddmsim" {
		t.Errorf("tracked properties %v", d.Properties)
	}
	if msg, err := c.Connect(ctx, serial); err != nil || msg != "already connected to "+serial {
		t.Errorf("second connect: %q, %v", msg, err)
	}
	list, err := c.Devices(ctx)
	if d, ok := find(list, serial); err != nil || !ok || !d.Online() || d.Properties["model"] != "DDM_Sim" {
		t.Fatalf("devices-l: %+v, %v", list, err)
	}
	out, err := a.run("devices", "-l")
	if err != nil || !strings.Contains(out, serial) || !strings.Contains(out, "device product:ddmsim model:DDM_Sim device:ddmsim") {
		t.Errorf("adb devices -l: %v\n%s", err, out)
	}

	t.Run("adb jdwp", func(t *testing.T) {
		// adb jdwp opens the "jdwp" service. Run it with a deadline in
		// case it streams, and take its first output.
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		cmd := a.command(ctx, "-s", serial, "jdwp")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len("4242\n4251\n"))
		_, rerr := io.ReadFull(stdout, got)
		werr := cmd.Wait()
		if rerr != nil || string(got) != "4242\n4251\n" {
			t.Fatalf("adb jdwp printed %q (%v; exit %v)", got, rerr, werr)
		}
		if ctx.Err() != nil {
			t.Logf("adb jdwp did not exit by itself")
		} else if werr != nil {
			t.Errorf("adb jdwp: %v", werr)
		}
	})

	t.Run("track-jdwp", func(t *testing.T) {
		pt, err := c.TrackJDWP(ctx, serial)
		if err != nil {
			t.Fatal(err)
		}
		defer pt.Close()
		waitPIDs(t, pt, []int{4242, 4251})
		dev.pids.Add(5000)
		waitPIDs(t, pt, []int{4242, 4251, 5000})
		dev.pids.Remove(4242)
		waitPIDs(t, pt, []int{4251, 5000})
		dev.pids.Add(4242)
		waitPIDs(t, pt, []int{4242, 4251, 5000})
	})

	t.Run("jdwp stream", func(t *testing.T) {
		nc, err := c.OpenJDWP(ctx, serial, 4251)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		if err := jdwp.ClientHandshake(nc, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		// 3 MiB: more than the device's 256 KiB and the host's 1 MiB
		// max payload, both ways at once.
		payload := make([]byte, 3<<20)
		rand.Read(payload)
		werr := make(chan error, 1)
		go func() { _, err := nc.Write(payload); werr <- err }()
		got := make([]byte, len(payload))
		nc.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadFull(nc, got); err != nil {
			t.Fatalf("reading the echo: %v", err)
		}
		if err := <-werr; err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, payload) {
			t.Fatal("echo differs from what was sent")
		}
	})

	t.Run("refused jdwp", func(t *testing.T) {
		_, err := c.OpenJDWP(ctx, serial, 999)
		var fe *adb.Error
		if !errors.As(err, &fe) || fe.Message != "closed" {
			t.Fatalf("jdwp:999: %v, want FAIL closed", err)
		}
		_, err = c.OpenJDWP(ctx, "127.0.0.1:1", 4251)
		if !errors.As(err, &fe) || !strings.Contains(fe.Message, "not found") {
			t.Fatalf("unknown device: %v", err)
		}
	})

	t.Run("shell", func(t *testing.T) {
		out, err := a.run("-s", serial, "shell", "echo", "hi")
		if err != nil || out != "hi\n" {
			t.Errorf("adb shell echo hi: %q, %v", out, err)
		}
		if out, err := c.Shell(ctx, serial, "getprop ro.product.model"); err != nil || string(out) != "DDM Sim\n" {
			t.Errorf("getprop: %q, %v", out, err)
		}
		if out, err := c.Shell(ctx, serial, "kill -3 4251"); err != nil || len(out) != 0 {
			t.Errorf("kill -3: %q, %v", out, err)
		}
		out2, err := c.Shell(ctx, serial, "cat /data/anr/traces.txt")
		if err != nil || !strings.HasPrefix(string(out2), "----- pid 4251 ") {
			t.Errorf("traces.txt: %q, %v", out2, err)
		}
		if out, err := c.Shell(ctx, serial, "frobnicate"); err != nil || string(out) != "/system/bin/sh: frobnicate: not found\n" {
			t.Errorf("unknown command: %q, %v", out, err)
		}
	})

	t.Run("forward", func(t *testing.T) {
		local, err := c.Forward(ctx, serial, "tcp:0", "jdwp:4242")
		if err != nil || !strings.HasPrefix(local, "tcp:") || local == "tcp:0" {
			t.Fatalf("forward: %q, %v", local, err)
		}
		nc, err := net.Dial("tcp", "127.0.0.1:"+strings.TrimPrefix(local, "tcp:"))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		if err := jdwp.ClientHandshake(nc, 5*time.Second); err != nil {
			t.Fatalf("handshake through the forward: %v", err)
		}
		if err := c.KillForward(ctx, serial, local); err != nil {
			t.Fatalf("killforward: %v", err)
		}
		var fe *adb.Error
		if err := c.KillForward(ctx, serial, local); !errors.As(err, &fe) {
			t.Fatalf("second killforward: %v", err)
		}
	})

	if msg, err := c.Disconnect(ctx, serial); err != nil || !strings.Contains(msg, serial) {
		t.Fatalf("disconnect: %q, %v", msg, err)
	}
	waitDevices(t, tr, "the device gone", func(d []adb.Device) bool { _, ok := find(d, serial); return !ok })
}

// TestRealADBServerRestart: killing the server ends both trackers with
// ErrStreamEnded; EnsureServer starts a new one, and after re-connecting
// the device and its VMs are seen again.
func TestRealADBServerRestart(t *testing.T) {
	leakcheck.Check(t)
	// The device listens first: the server's port is picked free and left
	// unbound until EnsureServer, and the device's listener once took it.
	dev := newFakeDevice(11, 12)
	_, serial := startServer(t, dev, Options{})
	a := newADBServer(t)
	c := &adb.Client{Addr: a.addr(), ADBPath: a.path, ServerEnv: a.env}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	defer func() {
		if t.Failed() {
			t.Logf("adb server log:\n%s", a.logTail())
		}
	}()

	for round := 1; round <= 2; round++ {
		// Nothing listens: EnsureServer starts the server.
		if _, err := c.Version(ctx); !errors.Is(err, adb.ErrServerUnreachable) {
			t.Fatalf("round %d: before start: %v", round, err)
		}
		if v, err := c.EnsureServer(ctx); err != nil || v != 41 {
			t.Fatalf("round %d: EnsureServer: %d, %v", round, v, err)
		}
		if _, err := c.Connect(ctx, serial); err != nil {
			t.Fatalf("round %d: connect: %v", round, err)
		}
		tr, err := c.TrackDevices(ctx)
		if err != nil {
			t.Fatal(err)
		}
		waitDevices(t, tr, "the device online", online(serial))
		pt, err := c.TrackJDWP(ctx, serial)
		if err != nil {
			t.Fatal(err)
		}
		waitPIDs(t, pt, []int{11, 12})

		if err := c.KillServer(ctx); err != nil {
			t.Fatalf("round %d: kill: %v", round, err)
		}
		for _, done := range []struct {
			name string
			ch   <-chan struct{}
			err  func() error
		}{{"track-devices", tr.Done(), tr.Err}, {"track-jdwp", pt.Done(), pt.Err}} {
			select {
			case <-done.ch:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: %s still running after the server was killed", round, done.name)
			}
			if err := done.err(); !errors.Is(err, adb.ErrStreamEnded) {
				t.Errorf("round %d: %s ended with %v, want ErrStreamEnded", round, done.name, err)
			}
		}
		tr.Close()
		pt.Close()
		// Wait until the old server has let go of its port.
		deadline := time.Now().Add(5 * time.Second)
		for {
			if _, err := c.Version(ctx); errors.Is(err, adb.ErrServerUnreachable) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("server still answering after host:kill")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
