package leakcheck

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// fakeT records failures instead of failing the real test, so the checker's
// own verdicts can be asserted.
type fakeT struct {
	testing.TB
	cleanups []func()
	errs     []string
}

func (f *fakeT) Helper()                        {}
func (f *fakeT) Cleanup(fn func())              { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Errorf(format string, a ...any) { f.errs = append(f.errs, fmt.Sprintf(format, a...)) }
func (f *fakeT) runCleanups() {
	for _, c := range f.cleanups {
		c()
	}
}

func TestDetectsLeakedGoroutine(t *testing.T) {
	old := Wait
	Wait = 200 * time.Millisecond
	defer func() { Wait = old }()
	ft := &fakeT{TB: t}
	Check(ft)
	stop := make(chan struct{})
	go func() { <-stop }()
	ft.runCleanups()
	close(stop)
	if len(ft.errs) == 0 || !strings.Contains(ft.errs[0], "outlived the test") {
		t.Fatalf("leaked goroutine not reported: %v", ft.errs)
	}
}

func TestDetectsLeakedFD(t *testing.T) {
	old := Wait
	Wait = 200 * time.Millisecond
	defer func() { Wait = old }()
	ft := &fakeT{TB: t}
	Check(ft)
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	ft.runCleanups()
	f.Close()
	if len(ft.errs) == 0 || !strings.Contains(ft.errs[len(ft.errs)-1], "descriptors grew") {
		t.Fatalf("leaked descriptor not reported: %v", ft.errs)
	}
}

func TestCleanRunPasses(t *testing.T) {
	ft := &fakeT{TB: t}
	Check(ft)
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
	ft.runCleanups()
	if len(ft.errs) != 0 {
		t.Fatalf("clean run reported: %v", ft.errs)
	}
}

// TestFirstNetworkUseIsNoLeak runs a child test binary whose stdout is a
// regular file (so the runtime has not started its network poller at
// start-up, as when a test binary is run directly): its first test takes a
// baseline and then opens and closes a socket. The poller's descriptors, made
// on that first use, must not be reported as a leak.
func TestFirstNetworkUseIsNoLeak(t *testing.T) {
	if os.Getenv("LEAKCHECK_CHILD") == "1" {
		Check(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		return
	}
	out, err := os.CreateTemp(t.TempDir(), "child-out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFirstNetworkUseIsNoLeak$", "-test.v")
	cmd.Env = append(os.Environ(), "LEAKCHECK_CHILD=1")
	cmd.Stdout, cmd.Stderr = out, out
	runErr := cmd.Run()
	b, _ := os.ReadFile(out.Name())
	if runErr != nil || !strings.Contains(string(b), "--- PASS: TestFirstNetworkUseIsNoLeak") {
		t.Fatalf("child run: %v\n%s", runErr, b)
	}
}
