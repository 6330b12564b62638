package scan

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Issue 37 #9: one track-app message of 30,000 profileable entries made
// a session each (1.4 GiB, 16,000 shell commands for `list`). At most
// MaxProcesses of a device's processes are followed, debuggable VMs first,
// then by pid; a followed process keeps its place; the status line says how
// many are left out.
func TestTrackAppCapsProcessesFollowed(t *testing.T) {
	leakcheck.Check(t)
	a := &ADB{Client: &adb.Client{Addr: "127.0.0.1:1"}, MaxProcesses: 8}
	a.setState("connected", 1)
	var mu sync.Mutex
	following := map[int]bool{}
	var started atomic.Int64
	h := func(ctx context.Context, ep Endpoint) error {
		started.Add(1)
		mu.Lock()
		following[ep.PID] = true
		mu.Unlock()
		<-ctx.Done()
		mu.Lock()
		delete(following, ep.PID)
		mu.Unlock()
		return nil
	}
	list := func(pids ...int) adb.AppList {
		var l adb.AppList
		for _, p := range pids {
			l.Processes = append(l.Processes, adb.AppProcess{PID: p, Profileable: true})
		}
		return l
	}
	many := make([]int, 30_000)
	for i := range many {
		many[i] = 30_000 + i // listed high pids first
	}
	many[29_999] = 100
	updates := make(chan adb.AppList)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		follow(a, ctx, "emu", updates, appEntries(a.logger(), nil).convert, h)
	}()
	defer func() { close(updates); cancel(); <-done }()
	pidsNow := func() []int {
		mu.Lock()
		defer mu.Unlock()
		var out []int
		for p := range following {
			out = append(out, p)
		}
		return out
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s: following %v, status %q", what, pidsNow(), a.Status())
			}
		}
	}
	updates <- list(many...)
	wait("8 processes", func() bool { return len(pidsNow()) == 8 })
	time.Sleep(50 * time.Millisecond)
	if n := started.Load(); n != 8 {
		t.Fatalf("%d sessions started for a cap of 8", n)
	}
	mu.Lock()
	for _, p := range []int{100, 30_000, 30_006} {
		if !following[p] {
			t.Errorf("pid %d not followed (the lowest pids are)", p)
		}
	}
	mu.Unlock()
	if st := a.Status(); !strings.HasSuffix(st, "; 29992 processes not followed (--adb-max-processes 8)") {
		t.Errorf("status %q", st)
	}

	// 30_006 leaves: pid 5, the lowest new one, takes its place; the
	// followed ones keep theirs.
	updates <- list(100, 30_000, 30_001, 30_002, 30_003, 30_004, 30_005, 6, 5, 7)
	wait("pid 5's session", func() bool {
		for _, p := range pidsNow() {
			if p == 5 {
				return true
			}
		}
		return false
	})
	if n := started.Load(); n != 9 {
		t.Errorf("%d sessions started; the followed ones were restarted", n)
	}
	if st := a.Status(); !strings.HasSuffix(st, "; 2 processes not followed (--adb-max-processes 8)") {
		t.Errorf("status %q", st)
	}
}

// Debuggable VMs are admitted before profileable processes, then by pid.
func TestAdmitProcsDebuggableFirst(t *testing.T) {
	a := &ADB{Client: &adb.Client{Addr: "127.0.0.1:1"}, MaxProcesses: 3}
	got := a.admitProcs("emu", []procEntry{{pid: 1}, {pid: 9, jdwp: true}, {pid: 2}, {pid: 4, jdwp: true}, {pid: 3}},
		func(pid int) bool { return pid == 2 }, 1)
	if len(got) != 2 || got[0].pid != 4 || got[1].pid != 9 {
		t.Errorf("admitted %+v", got)
	}
}

func TestADBMaxProcessesDefault(t *testing.T) {
	if got := (&ADB{}).maxProcesses(); got != DefaultMaxProcesses || DefaultMaxProcesses != 256 {
		t.Errorf("default cap %d", got)
	}
}
