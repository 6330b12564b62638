package monitor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/sim/adbd"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testadb"
	"github.com/ddmtui/ddmtui/threaddump"
)

// fakeDevice answers a session's device commands from tables.
type fakeDevice struct {
	mu    sync.Mutex
	cmds  []string
	shell map[string]string // command → output
	exec  map[string]string // nil: exec: refused (old device)
	files map[string][]byte
	// pullErr, when set, is what PullTo returns.
	pullErr error
	pulls   []string // paths PullTo was asked for
	// onCommand, when set, answers commands the tables do not hold.
	onCommand func(cmd string) (string, bool)
	// onPull, when set, runs after each Pull (with d.mu held).
	onPull func(path string)
}

func (d *fakeDevice) run(table map[string]string, cmd string) []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cmds = append(d.cmds, cmd)
	if out, ok := table[cmd]; ok {
		return []byte(out)
	}
	if d.onCommand != nil {
		if out, ok := d.onCommand(cmd); ok {
			return []byte(out)
		}
	}
	if strings.HasPrefix(cmd, "cat ") {
		if b, ok := d.files[strings.TrimPrefix(cmd, "cat ")]; ok {
			return b
		}
		return []byte("cat: " + strings.TrimPrefix(cmd, "cat ") + ": No such file or directory\n")
	}
	return []byte("/system/bin/sh: " + strings.Fields(cmd)[0] + ": not found\n")
}

func (d *fakeDevice) Stat(ctx context.Context, path string) (adb.FileInfo, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b, ok := d.files[path]
	if !ok {
		return adb.FileInfo{}, &adb.SyncError{Op: "stat", Path: path, Errno: syscall.ENOENT}
	}
	return adb.FileInfo{Mode: adb.ModeRegular | 0o644, Size: uint64(len(b))}, nil
}

func (d *fakeDevice) PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pulls = append(d.pulls, path)
	if d.pullErr != nil {
		return 0, d.pullErr
	}
	b, ok := d.files[path]
	if d.onPull != nil {
		defer d.onPull(path)
	}
	if !ok {
		return 0, &adb.SyncError{Op: "recv", Path: path, Message: "open failed: No such file or directory", Errno: syscall.ENOENT}
	}
	if limit > 0 && int64(len(b)) > limit {
		return 0, fmt.Errorf("adb: sync recv %s: file exceeds %d bytes", path, limit)
	}
	n, err := w.Write(b)
	return int64(n), err
}

func (d *fakeDevice) session(t *testing.T) *Session {
	ep := scan.Endpoint{Key: "adb:fake:42", Source: "adb:fake", PID: 42, Files: d,
		Shell: func(ctx context.Context, cmd string) ([]byte, error) { return d.run(d.shell, cmd), nil },
	}
	if d.exec != nil {
		ep.Exec = func(ctx context.Context, cmd string) ([]byte, error) { return d.run(d.exec, cmd), nil }
	}
	store := NewStore(NewBus())
	store.UpdateVM(ep.Key, func(vm *VM) { vm.PID = 42; vm.App = "com.example.app"; vm.Package = "com.example.app" })
	return NewSession(ep, store, SessionOptions{})
}

func slicesEqual(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

// When no way gives a thread dump, the error says what each way answered
// and why (root-only /data/anr on Android 8+).
func TestThreadDumpSaysWhy(t *testing.T) {
	d := &fakeDevice{
		exec: map[string]string{
			"debuggerd -j 42":                        "debuggerd: failed to send signal to pid 42: Operation not permitted\n",
			"run-as com.example.app debuggerd -j 42": "run-as: package not debuggable: com.example.app\n",
		},
		shell: map[string]string{"kill -3 42": ""},
		files: map[string][]byte{},
	}
	d.pullErr = &adb.SyncError{Op: "recv", Path: "/data/anr/traces.txt", Message: "open failed: Permission denied", Errno: syscall.EACCES}
	_, err := d.session(t).ThreadDump(context.Background())
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"debuggerd -j 42: debuggerd: failed to send signal to pid 42: Operation not permitted",
		"run-as com.example.app debuggerd -j 42: run-as: package not debuggable",
		"kill -3 42 sent, but reading /data/anr/traces.txt from the device",
		"Permission denied",
		"only root can read",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}

	// debuggerd -j's output is the dump.
	dump := "\n----- pid 42 at 2026-01-01 00:00:00.000000000+0000 -----\nCmd line: com.example.app\n----- end 42 -----\n"
	d.exec["debuggerd -j 42"] = dump
	got, err := d.session(t).ThreadDump(context.Background())
	if err != nil || string(got) != dump {
		t.Fatalf("debuggerd dump %q, %v", got, err)
	}
}

// Through Debian's adb server and the simulated adbd: a VM that answers no
// heap-dump chunk is dumped with `am dumpheap` (the command waiting for the
// dump, and returning early while the file grows), pulled with sync and
// deleted; thread dumps come from debuggerd -j on a modern VM and from
// kill -3 and the ANR file on an older one.
func TestDeviceDumpsThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	srv := testadb.New(t)
	dev := sim.NewDevice("sim")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 5001, App: "com.example.modern", Package: "com.example.modern", Family: sim.ART, Modern: true, HeapDumpSilent: true, Threads: 3, HeapBytes: 1 << 20, Seed: 5}))
	dev.Add(sim.NewVM(sim.VMSpec{PID: 5002, App: "com.example.old", Family: sim.ART, Threads: 2, Seed: 6}))
	// Dalvik VMs dump only to a device file (HPDU): one answers, one does not.
	dev.Add(sim.NewVM(sim.VMSpec{PID: 5003, App: "com.example.hpdu", Family: sim.Dalvik, Threads: 2, HeapBytes: 1 << 20, Seed: 7}))
	dev.Add(sim.NewVM(sim.VMSpec{PID: 5004, App: "com.example.silent", Family: sim.Dalvik, HeapDumpSilent: true, Threads: 2, HeapBytes: 1 << 20, Seed: 8}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := adbd.New(dev, adbd.Options{})
	go d.Serve(ln)
	defer func() { d.Close(); dev.Close() }()
	srv.Start()
	srv.Connect(ln.Addr().String())

	store := NewStore(NewBus())
	engine := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond, HeapDumpWait: 300 * time.Millisecond})
	a := &scan.ADB{Client: srv.Client(), Retry: 200 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, Discovery{ADB: []Runner{a}}) }()
	defer func() {
		cancel()
		<-done
		srv.Kill()
	}()
	keys := map[int]string{}
	waitFor(t, "both VMs", 15*time.Second, func() bool {
		for _, vm := range store.VMs() {
			if vm.DDM {
				keys[vm.PID] = vm.Key
			}
		}
		return len(keys) == 4
	})
	leftovers := func() []string {
		var out []string
		entries, _ := fs.ReadDir(dev.Files(), "data/local/tmp")
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}

	for _, early := range []bool{false, true} {
		t.Run(fmt.Sprintf("am dumpheap returns early=%v", early), func(t *testing.T) {
			dev.SetDumpheapReturnsEarly(early)
			dctx, dcancel := context.WithTimeout(ctx, 30*time.Second)
			defer dcancel()
			var progressed uint64
			data, err := engine.Session(keys[5001]).HeapDump(dctx, func(n uint64) { progressed = max(progressed, n) })
			if err != nil {
				t.Fatal(err)
			}
			r, err := hprof.NewReader(bytes.NewReader(data))
			if err != nil || !r.Header().Android() {
				t.Fatalf("pulled dump: %v", err)
			}
			sum, err := hprof.Summarize(bytes.NewReader(data))
			if err != nil || len(sum.Classes) == 0 {
				t.Fatalf("summary of the pulled dump: %v", err)
			}
			if progressed != uint64(len(data)) {
				t.Errorf("progress reached %d of %d bytes", progressed, len(data))
			}
			if l := leftovers(); len(l) != 0 {
				t.Errorf("dump files left on the device: %q", l)
			}
		})
	}

	t.Run("HPDU", func(t *testing.T) {
		var fromFile []byte
		for _, pid := range []int{5003, 5004} {
			dctx, dcancel := context.WithTimeout(ctx, 30*time.Second)
			data, err := engine.Session(keys[pid]).HeapDump(dctx, nil)
			if pid == 5003 {
				fromFile = data
			}
			dcancel()
			if err != nil {
				t.Fatalf("pid %d: %v", pid, err)
			}
			if _, err := hprof.Summarize(bytes.NewReader(data)); err != nil {
				t.Fatalf("pid %d: %v", pid, err)
			}
		}
		// The answering VM's file is the one pulled, byte for byte.
		if f := dev.VM(5003).File("/sdcard/com.example.hpdu.hprof"); f == nil || !bytes.Equal(f, fromFile) {
			t.Errorf("the dump is not the HPDU file the VM wrote (%d bytes there)", len(f))
		}
		if l := leftovers(); len(l) != 0 {
			t.Errorf("dump files left on the device: %q", l)
		}
	})

	t.Run("thread dumps", func(t *testing.T) {
		for _, pid := range []int{5001, 5002} {
			raw, err := engine.Session(keys[pid]).ThreadDump(ctx)
			if err != nil {
				t.Fatalf("pid %d: %v", pid, err)
			}
			dump, err := threaddump.Parse(bytes.NewReader(raw))
			if err != nil || len(dump.Processes) == 0 || dump.Processes[0].PID != pid {
				t.Fatalf("pid %d: dump does not parse as its own: %v", pid, err)
			}
			if n, want := len(dump.Processes[0].Threads), len(dev.VM(pid).Threads()); n != want {
				t.Errorf("pid %d: %d threads in the dump, %d in the VM", pid, n, want)
			}
		}
	})
}

// An am dumpheap that returned early and whose file stopped growing for a
// while before it was complete: the pulled file lacks HEAP DUMP END, so
// ddmtui waits for more and pulls again; the file is removed at the end.
func TestHeapDumpAmWaitsForTheEnd(t *testing.T) {
	full := append([]byte("JAVA PROFILE 1.0.3\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00"), 0x2C, 0, 0, 0, 0, 0, 0, 0, 0)
	partial := full[:len(full)-9]
	d := &fakeDevice{exec: map[string]string{}, files: map[string][]byte{}}
	var dumpPath string
	pulls := 0
	d.onCommand = func(cmd string) (string, bool) {
		if rest, ok := strings.CutPrefix(cmd, "am dumpheap 42 "); ok {
			dumpPath = rest
			d.files[rest] = partial
			return "", true
		}
		if rest, ok := strings.CutPrefix(cmd, "rm -f "); ok {
			delete(d.files, rest)
			return "", true
		}
		return "", false
	}
	d.onPull = func(path string) {
		pulls++
		d.files[path] = full // the app resumes writing after the first pull
	}
	s := d.session(t)
	var h heldBytes
	n, err := s.dumps.am(context.Background(), &h, nil)
	if data := h.b; err != nil || !bytes.Equal(data, full) || n != int64(len(full)) {
		t.Fatalf("am dumpheap: %q (%d), %v", data, n, err)
	}
	if pulls != 2 {
		t.Errorf("%d pulls, want 2 (the partial file, then the complete one)", pulls)
	}
	if _, ok := d.files[dumpPath]; ok || dumpPath == "" {
		t.Errorf("dump file %q not removed", dumpPath)
	}
	// A destination that cannot start over gets an error, not two dumps
	// one after the other.
	pulls = 0
	var plain bytes.Buffer
	_, err = s.dumps.am(context.Background(), struct{ io.Writer }{&plain}, nil)
	if err == nil || !strings.Contains(err.Error(), "not complete when pulled") || pulls != 1 {
		t.Fatalf("no Rewind: %v after %d pulls", err, pulls)
	}
}

// am's refusal is the error.
func TestHeapDumpAmRefused(t *testing.T) {
	d := &fakeDevice{exec: map[string]string{}, files: map[string][]byte{}}
	d.onCommand = func(cmd string) (string, bool) {
		if strings.HasPrefix(cmd, "am dumpheap") {
			return "Exception occurred while executing 'dumpheap':\njava.lang.SecurityException: Process not debuggable: 42\n", true
		}
		return "", strings.HasPrefix(cmd, "rm ")
	}
	_, err := d.session(t).dumps.am(context.Background(), io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "java.lang.SecurityException: Process not debuggable") {
		t.Fatalf("refusal: %v", err)
	}
}

// From Android 15 the dump is taken with `-b png` (bitmaps with their
// pixels); an am that does not know the option is asked again without it.
// Older devices are never sent -b.
func TestHeapDumpAmBitmaps(t *testing.T) {
	full := append([]byte("JAVA PROFILE 1.0.3\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00"), 0x2C, 0, 0, 0, 0, 0, 0, 0, 0)
	for _, c := range []struct {
		api    int
		knowsB bool
		want   []string // am command lines, path left out
	}{
		{34, true, []string{"am dumpheap 42"}},
		{35, true, []string{"am dumpheap -b png 42"}},
		{36, false, []string{"am dumpheap -b png 42", "am dumpheap 42"}},
	} {
		d := &fakeDevice{exec: map[string]string{}, files: map[string][]byte{}}
		var ams []string
		d.onCommand = func(cmd string) (string, bool) {
			if strings.HasPrefix(cmd, "am ") {
				f := strings.Fields(cmd)
				ams = append(ams, strings.Join(f[:len(f)-1], " "))
				if !c.knowsB && strings.Contains(cmd, " -b ") {
					return "Error: Unknown option: -b\n", true
				}
				d.files[f[len(f)-1]] = full
				return "File: x\nWaiting for dump to finish...\n", true
			}
			return "", strings.HasPrefix(cmd, "rm ")
		}
		s := d.session(t)
		s.store.UpdateVM(s.key, func(vm *VM) { vm.API = c.api })
		var h heldBytes
		_, err := s.dumps.am(context.Background(), &h, nil)
		if err != nil || !bytes.Equal(h.b, full) {
			t.Errorf("API %d: %v", c.api, err)
		}
		if !slicesEqual(ams, c.want) {
			t.Errorf("API %d: am %q, want %q", c.api, ams, c.want)
		}
	}
}

// reuseFiles serves one file in small blocks through one reused buffer, as
// adb's sync RECV reader does.
type reuseFiles struct {
	fakeDevice
	data []byte
}

func (f *reuseFiles) PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	buf := make([]byte, 1000)
	var n int64
	for off := 0; off < len(f.data); off += len(buf) {
		m := copy(buf, f.data[off:])
		if _, err := w.Write(buf[:m]); err != nil {
			return n, err
		}
		n += int64(m)
		clear(buf) // the next read overwrites it
	}
	return n, nil
}

// A file pulled into memory in blocks through a reused buffer arrives
// whole and unchanged (the in-memory writer copies what it is given).
func TestReadDeviceFileReusedBuffer(t *testing.T) {
	data := make([]byte, 10_500)
	for i := range data {
		data[i] = byte(i*7 + i/1000)
	}
	f := &reuseFiles{data: data}
	s := f.fakeDevice.session(t)
	s.setDevice(devshell.New(devshell.Services{Shell: s.dev.Shell, Files: f}, nil))
	var h heldBytes
	if _, err := s.dev.PullTo(context.Background(), "/sdcard/a.trace", &h, 0); err != nil || !bytes.Equal(h.b, data) {
		t.Fatalf("into heldBytes: %d bytes equal %v, %v", len(h.b), bytes.Equal(h.b, data), err)
	}
}

// setDevice replaces the session's device shell (tests: a fake Shell in
// place of an adb rig) before Run.
func (s *Session) setDevice(dev devshell.Shell) {
	s.dev, s.src.dev, s.dumps.dev, s.prof.dev = dev, dev, dev, dev
	s.entry.caps.device = dev != nil
}
