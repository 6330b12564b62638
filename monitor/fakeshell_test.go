package monitor

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/scan"
)

// fakeShell is a devshell.Shell answering from a table: what a session's
// device-shell parts can be tested against without an adb rig.
type fakeShell struct {
	mu   sync.Mutex
	out  map[string]string
	cmds []string
}

func (f *fakeShell) Run(ctx context.Context, cmd string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cmds = append(f.cmds, cmd)
	if out, ok := f.out[cmd]; ok {
		return []byte(out), nil
	}
	return nil, errors.New(cmd + ": not found")
}

func (f *fakeShell) Shell(ctx context.Context, cmd string) ([]byte, error) { return f.Run(ctx, cmd) }

func (f *fakeShell) Stat(ctx context.Context, path string) (adb.FileInfo, error) {
	return adb.FileInfo{}, devshell.ErrNoSync
}

func (f *fakeShell) PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	return 0, devshell.ErrNoSync
}

func (f *fakeShell) Remove(ctx context.Context, path string) error { return nil }

// HasSync says the fake reads no files (devshell.HasSync).
func (f *fakeShell) HasSync() bool { return false }

// A session given a Shell asks its device through it alone: a thread dump
// through debuggerd, and a VM without a device has none.
func TestSessionAsksItsShell(t *testing.T) {
	dump := "----- pid 42 at 2026-11-27 -----\n\"main\" prio=5 tid=1 Runnable\n----- end 42 -----\n"
	f := &fakeShell{out: map[string]string{"debuggerd -j 42": dump}}
	store := NewStore(NewBus())
	ep := scan.Endpoint{Key: "adb:fake/s:42", Source: "adb:s", PID: 42}
	opts := SessionOptions{}
	opts.fill()
	s := newSession(ep, f, store, opts, opts.Logger)
	store.UpdateVM(ep.Key, func(vm *VM) { vm.PID = 42; vm.App = "com.example.app" })
	got, err := s.ThreadDump(context.Background())
	if err != nil || string(got) != dump {
		t.Fatalf("thread dump: %q, %v", got, err)
	}
	if strings.Join(f.cmds, "\n") != "debuggerd -j 42" {
		t.Fatalf("commands %q", f.cmds)
	}
	// Without sync: (it says so), a heap dump has no device to fall back to.
	if s.dumps.onDevice() {
		t.Fatal("a Shell without sync: counted as one for heap dumps")
	}
	local := NewSession(scan.Endpoint{Key: "local:1"}, store, SessionOptions{})
	if _, err := local.ThreadDump(context.Background()); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("local VM: %v", err)
	}
}
