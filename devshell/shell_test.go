package devshell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
)

// fakeServices answer a Device's commands and pulls from tables.
type fakeServices struct {
	mu      sync.Mutex
	cmds    []string // shell: commands run
	files   map[string][]byte
	pullErr error // what PullTo returns when set
}

func (f *fakeServices) shell(ctx context.Context, cmd string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cmds = append(f.cmds, cmd)
	if path, ok := strings.CutPrefix(cmd, "cat "); ok {
		if b, ok := f.files[path]; ok {
			return b, nil
		}
		return []byte("cat: " + path + ": No such file or directory\n"), nil
	}
	return []byte("/system/bin/sh: " + strings.Fields(cmd)[0] + ": not found\n"), nil
}

func (f *fakeServices) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.cmds...)
}

func (f *fakeServices) Stat(ctx context.Context, path string) (adb.FileInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.files[path]
	if !ok {
		return adb.FileInfo{}, &adb.SyncError{Op: "stat", Path: path, Errno: syscall.ENOENT}
	}
	return adb.FileInfo{Mode: adb.ModeRegular | 0o644, Size: uint64(len(b))}, nil
}

func (f *fakeServices) PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pullErr != nil {
		return 0, f.pullErr
	}
	b, ok := f.files[path]
	if !ok {
		return 0, &adb.SyncError{Op: "recv", Path: path, Message: "open failed: No such file or directory", Errno: syscall.ENOENT}
	}
	if limit > 0 && int64(len(b)) > limit {
		return 0, fmt.Errorf("adb: sync recv %s: file exceeds %d bytes", path, limit)
	}
	n, err := w.Write(b)
	return int64(n), err
}

// Device files come through sync: byte for byte; cat is used only where
// sync: is refused, and a missing file is reported, not retried with cat.
func TestPullSyncThenCat(t *testing.T) {
	binary := []byte("JAVA PROFILE\x00\r\n\x00\xff\r")
	f := &fakeServices{files: map[string][]byte{"/sdcard/a.trace": binary}}
	d := New(Services{Shell: f.shell, Files: f}, nil)
	ctx := context.Background()
	got, err := ReadFile(ctx, d, "/sdcard/a.trace", 0)
	if err != nil || !bytes.Equal(got, binary) {
		t.Fatalf("sync read %q, %v", got, err)
	}
	if cmds := f.commands(); len(cmds) != 0 {
		t.Errorf("shell used although sync worked: %q", cmds)
	}
	if _, err := ReadFile(ctx, d, "/sdcard/none", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if cmds := f.commands(); len(cmds) != 0 {
		t.Errorf("a missing file was retried with the shell: %q", cmds)
	}

	// An error that is not the service's refusal (a broken stream, a path
	// sync cannot carry) is not retried through the shell.
	f.pullErr = fmt.Errorf("adb: sync recv: %w", adb.ErrSyncPath)
	if _, err := ReadFile(ctx, d, "/sdcard/a.trace", 0); !errors.Is(err, adb.ErrSyncPath) || len(f.commands()) != 0 {
		t.Fatalf("refused path: %v, commands %q", err, f.commands())
	}
	f.pullErr = errors.New("adb: sync: unusable after an earlier error")
	if _, err := ReadFile(ctx, d, "/sdcard/a.trace", 0); err == nil || len(f.commands()) != 0 {
		t.Fatalf("broken stream: %v, commands %q", err, f.commands())
	}

	f.pullErr = fmt.Errorf("%w: %w", adb.ErrSyncUnavailable, &adb.Error{Op: "sync:", Message: "closed"})
	got, err = ReadFile(ctx, d, "/sdcard/a.trace", 0)
	if err != nil || !bytes.Equal(got, binary) || strings.Join(f.commands(), "\n") != "cat /sdcard/a.trace" {
		t.Fatalf("fallback: %q, %v, commands %q", got, err, f.commands())
	}
	if _, err := ReadFile(ctx, d, "/sdcard/none", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file through cat: %v", err)
	}
	if _, err := ReadFile(ctx, d, "/sdcard/a.trace", 4); err == nil || !strings.Contains(err.Error(), "exceeds 4 bytes") {
		t.Errorf("a file over the bound through cat: %v", err)
	}

	// Without sync: at all, files come through cat; Stat says why not.
	d = New(Services{Shell: f.shell}, nil)
	if got, err := ReadFile(ctx, d, "/sdcard/a.trace", 0); err != nil || !bytes.Equal(got, binary) {
		t.Fatalf("no sync: %q, %v", got, err)
	}
	if _, err := d.Stat(ctx, "/sdcard/a.trace"); !errors.Is(err, ErrNoSync) || d.HasSync() || HasSync(d) {
		t.Fatalf("Stat without sync: %v", err)
	}
}

// A path that fails CheckPath reaches neither sync: nor the shell.
func TestDeviceRefusesBadPaths(t *testing.T) {
	f := &fakeServices{files: map[string][]byte{}}
	d := New(Services{Shell: f.shell, Files: f}, nil)
	ctx := context.Background()
	for _, p := range []string{"/sdcard/a;reboot", "relative", "/sdcard/../x"} {
		if _, err := d.PullTo(ctx, p, io.Discard, 0); err == nil {
			t.Errorf("PullTo %q accepted", p)
		}
		if _, err := d.Stat(ctx, p); err == nil {
			t.Errorf("Stat %q accepted", p)
		}
		if err := d.Remove(ctx, p); err == nil {
			t.Errorf("Remove %q accepted", p)
		}
	}
	if cmds := f.commands(); len(cmds) != 0 {
		t.Fatalf("bad paths reached the shell: %q", cmds)
	}
	if err := d.Remove(ctx, "/data/local/tmp/x.hprof"); err == nil || !strings.Contains(err.Error(), "rm: not found") {
		t.Fatalf("rm that printed an error: %v", err)
	}
	if cmds := f.commands(); strings.Join(cmds, "\n") != "rm -f /data/local/tmp/x.hprof" {
		t.Fatalf("rm command: %q", cmds)
	}
}

// exec: is preferred; a device that refuses it is asked through shell:
// from then on, without trying exec: again.
func TestRunFallsBackToShell(t *testing.T) {
	var execs, shells atomic.Int32
	d := New(Services{
		Shell: func(ctx context.Context, cmd string) ([]byte, error) {
			shells.Add(1)
			return []byte("shell:" + cmd), nil
		},
		Exec: func(ctx context.Context, cmd string) ([]byte, error) {
			execs.Add(1)
			return nil, &adb.Error{Op: "exec:getprop x", Message: "closed"}
		}}, nil)
	for i := 0; i < 3; i++ {
		out, err := d.Run(context.Background(), "getprop x")
		if err != nil || string(out) != "shell:getprop x" {
			t.Fatalf("%q %v", out, err)
		}
	}
	if execs.Load() != 1 || shells.Load() != 3 {
		t.Fatalf("exec tried %d times, shell %d", execs.Load(), shells.Load())
	}
	// A device that has exec: gets every command through it; another
	// error of exec: is the command's, not a reason to use shell:.
	boom := errors.New("connection reset")
	var fail atomic.Bool
	d = New(Services{
		Shell: func(ctx context.Context, cmd string) ([]byte, error) { t.Error("shell used"); return nil, nil },
		Exec: func(ctx context.Context, cmd string) ([]byte, error) {
			if fail.Load() {
				return nil, boom
			}
			return []byte("exec"), nil
		}}, nil)
	if out, err := d.Run(context.Background(), "x"); err != nil || string(out) != "exec" {
		t.Fatalf("%q %v", out, err)
	}
	fail.Store(true)
	if _, err := d.Run(context.Background(), "x"); !errors.Is(err, boom) {
		t.Fatalf("exec error: %v", err)
	}
	// Shell always uses shell: (kill -3 needs its stderr).
	d = New(Services{
		Shell: func(ctx context.Context, cmd string) ([]byte, error) { return []byte("pty"), nil },
		Exec:  func(ctx context.Context, cmd string) ([]byte, error) { t.Error("exec used"); return nil, nil }}, nil)
	if out, err := d.Shell(context.Background(), "kill -3 1"); err != nil || string(out) != "pty" {
		t.Fatalf("%q %v", out, err)
	}
}

func TestCacheReadsOnce(t *testing.T) {
	c := NewCache()
	var calls atomic.Int32
	run := func(ctx context.Context, cmd string) ([]byte, error) {
		calls.Add(1)
		time.Sleep(20 * time.Millisecond)
		switch cmd {
		case "getprop ro.build.version.sdk":
			return []byte("34\r\n"), nil
		case "getprop ro.product.model":
			return []byte("Pixel 8 Pro\r\n"), nil
		}
		t.Errorf("command %q", cmd)
		return nil, nil
	}
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			api, err := c.API(context.Background(), "adb:x/serial", run)
			if err == nil && api != 34 {
				err = context.Canceled
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if calls.Load() != 2 {
		t.Fatalf("getprop ran %d times for one device, want 2 (API level and model)", calls.Load())
	}
	if api, model, err := c.Info(context.Background(), "adb:x/serial", run); err != nil || api != 34 || model != "Pixel 8 Pro" || calls.Load() != 2 {
		t.Fatalf("Info: %d %q %v after %d calls", api, model, err, calls.Load())
	}
	if _, err := c.API(context.Background(), "adb:x/other", func(context.Context, string) ([]byte, error) { return []byte("\n"), nil }); err == nil {
		t.Fatal("an empty getprop gave an API level")
	}
	if _, err := c.API(context.Background(), "adb:x/third", func(context.Context, string) ([]byte, error) { return []byte("5000\n"), nil }); err == nil {
		t.Fatal("an implausible API level was taken")
	}
}

func TestParseCmdline(t *testing.T) {
	// The program name up to its NUL; cat's errors are no name.
	for in, want := range map[string]string{"com.example.b\x00--flag\x00": "com.example.b", "cat: /proc/9/cmdline: No such file or directory\n": "",
		"": "", "app_process64": "app_process64", strings.Repeat("a", 300) + "\x00": strings.Repeat("a", MaxProcName)} {
		if got, ok := ParseCmdline([]byte(in)); got != want || ok != (want != "") {
			t.Errorf("ParseCmdline(%q) = %q %v", in, got, ok)
		}
	}
}

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{"\n \n  one \ntwo": "one", "": "", strings.Repeat("x", 200): strings.Repeat("x", 120)} {
		if got := FirstLine([]byte(in)); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
