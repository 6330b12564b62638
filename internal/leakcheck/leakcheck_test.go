package leakcheck

import (
	"fmt"
	"os"
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
