package devshell_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
	"github.com/ddmtui/ddmtui/sim"
)

// simFiles is sync: over a simulated device's files, counting the
// commands its shell ran.
type simFiles struct {
	d    *sim.Device
	mu   sync.Mutex
	cmds []string
}

func (s *simFiles) run(ctx context.Context, cmd string) ([]byte, error) {
	s.mu.Lock()
	s.cmds = append(s.cmds, cmd)
	s.mu.Unlock()
	var out bytes.Buffer
	_, err := s.d.Shell(ctx, cmd, &out)
	return out.Bytes(), err
}

func (s *simFiles) Stat(ctx context.Context, path string) (adb.FileInfo, error) {
	fi, err := fs.Stat(s.d.Files(), strings.TrimPrefix(path, "/"))
	if err != nil {
		return adb.FileInfo{}, &adb.SyncError{Op: "stat", Path: path, Errno: syscall.ENOENT}
	}
	return adb.FileInfo{Mode: adb.ModeRegular | 0o644, Size: uint64(fi.Size())}, nil
}

func (s *simFiles) PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	b, err := fs.ReadFile(s.d.Files(), strings.TrimPrefix(path, "/"))
	if err != nil {
		return 0, &adb.SyncError{Op: "recv", Path: path, Message: "open failed: No such file or directory", Errno: syscall.ENOENT}
	}
	n, err := w.Write(b)
	return int64(n), err
}

func simShell(d *sim.Device) (devshell.Shell, *simFiles) {
	f := &simFiles{d: d}
	return devshell.New(devshell.Services{Shell: f.run, Exec: f.run, Files: f}, nil), f
}

// DumpHeapGraph runs perfetto with the config on stdin, waits for the
// background session, pulls the trace and removes it; an old device, a
// refusing perfetto and a cancelled capture each give their reason.
func TestDumpHeapGraph(t *testing.T) {
	d := sim.NewDevice("t")
	defer d.Close()
	d.SetAPI(31)
	d.Add(sim.NewVM(sim.VMSpec{PID: 20, App: "com.example.release", Package: "com.example.release", Family: sim.ART, Modern: true, Release: true, Threads: 2, Seed: 3}))
	sh, f := simShell(d)
	var out bytes.Buffer
	var progress []uint64
	n, err := devshell.DumpHeapGraph(context.Background(), sh, devshell.HeapDump{PID: 20, API: 31, Progress: func(n uint64) { progress = append(progress, n) }}, &out)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := heapgraph.Read(bytes.NewReader(out.Bytes()), heapgraph.Options{PID: 20})
	if err != nil || n != int64(out.Len()) || len(progress) == 0 || progress[len(progress)-1] != uint64(n) {
		t.Fatalf("trace of %d bytes: %v, progress %v", n, err, progress)
	}
	if tr.Dumps[0].NumObjects() < 100 {
		t.Errorf("dump %v", tr.Dumps[0])
	}
	cmd := f.cmds[0]
	for _, want := range []string{"echo 'buffers {", `name: "android.java_hprof" java_hprof_config { pid: 20 }`, "data_source_stop_timeout_ms",
		"| perfetto --txt -c - -o /data/misc/perfetto-traces/ddmtui-20-", " -d 2>&1"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command lacks %q: %s", want, cmd)
		}
	}
	if ents, _ := fs.ReadDir(d.Files(), "data/misc/perfetto-traces"); len(ents) != 0 {
		t.Errorf("the trace was left on the device: %v", ents)
	}

	// Android 10: refused before anything runs.
	_, err = devshell.DumpHeapGraph(context.Background(), sh, devshell.HeapDump{PID: 20, API: 29}, io.Discard)
	if !errors.Is(err, devshell.ErrHeapGraphAPI) || !strings.Contains(err.Error(), "API 29") {
		t.Errorf("API 29: %v", err)
	}
	// An API level not known yet is read from the device.
	d.SetAPI(27)
	_, err = devshell.DumpHeapGraph(context.Background(), sh, devshell.HeapDump{PID: 20}, io.Discard)
	if !errors.Is(err, devshell.ErrHeapGraphAPI) || !strings.Contains(err.Error(), "API 27") {
		t.Errorf("API read from the device: %v", err)
	}
	// A device without perfetto (told to be recent): its shell's answer.
	_, err = devshell.DumpHeapGraph(context.Background(), sh, devshell.HeapDump{PID: 20, API: 30}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "perfetto refused: /system/bin/sh: perfetto: not found") {
		t.Errorf("no perfetto: %v", err)
	}
	// Cancelled while perfetto runs: the session is ended, nothing is left.
	d.SetAPI(34)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := devshell.DumpHeapGraph(ctx, sh, devshell.HeapDump{PID: 20, API: 34}, io.Discard); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled: %v", err)
	}
	time.Sleep(500 * time.Millisecond)
	if ents, _ := fs.ReadDir(d.Files(), "data/misc/perfetto-traces"); len(ents) != 0 {
		t.Errorf("a cancelled capture left %v", ents)
	}
	if last := f.cmds[len(f.cmds)-1]; !strings.HasPrefix(last, "rm ") && !strings.HasPrefix(last, "kill ") {
		t.Errorf("last command %q", last)
	}
}

func TestPerfettoConfig(t *testing.T) {
	c30, c31 := devshell.PerfettoConfig(7, 30), devshell.PerfettoConfig(7, 31)
	if !strings.Contains(c30, "duration_ms: 20000") || strings.Contains(c30, "stop_timeout") {
		t.Errorf("Android 11 config:\n%s", c30)
	}
	if !strings.Contains(c31, "data_source_stop_timeout_ms: 100000") || !strings.Contains(c31, "duration_ms: 1000\n") {
		t.Errorf("Android 12 config:\n%s", c31)
	}
	if strings.Contains(c31, "'") {
		t.Error("the config holds a single quote: it would end the shell's quoting")
	}
}
