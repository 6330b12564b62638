// Package leakcheck verifies that a test leaves no goroutine and no file
// descriptor behind. Call Check at the start of a test; at cleanup it waits
// (briefly) for goroutines started during the test to end and for the number
// of open descriptors to return to its starting value, and fails the test
// with the stacks of whatever is still running.
package leakcheck

import (
	"bytes"
	"net"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Wait is how long cleanup waits for stragglers before failing.
var Wait = 5 * time.Second

// Check records the goroutines and descriptors alive now and registers a
// cleanup that fails t if more remain when the test ends.
func Check(t testing.TB) {
	t.Helper()
	startPoller()
	before := goroutines()
	fds := openFDs()
	t.Cleanup(func() {
		deadline := time.Now().Add(Wait)
		for {
			extra := newSince(before)
			fdNow := openFDs()
			fdLeak := fds >= 0 && fdNow > fds
			if len(extra) == 0 && !fdLeak {
				return
			}
			if time.Now().After(deadline) {
				if len(extra) > 0 {
					t.Errorf("leakcheck: %d goroutine(s) outlived the test:\n%s", len(extra), strings.Join(extra, "\n\n"))
				}
				if fdLeak {
					t.Errorf("leakcheck: open file descriptors grew from %d to %d", fds, fdNow)
				}
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

var pollerOnce sync.Once

// startPoller makes the runtime create its network poller (an epoll
// descriptor and an event descriptor, once per process, on first use) before
// a baseline is taken, so that a test which is the first to touch the network
// is not charged with them. Under go test the poller usually exists already
// because stdout is a non-blocking pipe; a test binary run directly with
// stdout on a file or terminal would otherwise report a false leak.
func startPoller() {
	pollerOnce.Do(func() {
		if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
			ln.Close()
		}
	})
}

// Goroutines returns the number of goroutines that are not part of the
// runtime or the test framework.
func Goroutines() int { return len(goroutines()) }

// OpenFDs returns the number of open file descriptors of this process, or -1
// where that cannot be read.
func OpenFDs() int { return openFDs() }

func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// goroutines maps goroutine id to its stack, minus the ones that belong to
// the runtime and the testing package.
func goroutines() map[int]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[int]string{}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		s := string(g)
		if !strings.HasPrefix(s, "goroutine ") {
			continue
		}
		if ignorable(s) {
			continue
		}
		idStr := strings.Fields(s)[1]
		id, err := strconv.Atoi(idStr)
		if err != nil {
			continue
		}
		out[id] = s
	}
	return out
}

func ignorable(stack string) bool {
	for _, s := range []string{
		"testing.RunTests", "testing.(*T).Run", "testing.(*T).Parallel", "testing.tRunner",
		"testing.runFuzzing", "testing.(*F).Fuzz", "runtime.goexit0",
		"leakcheck.goroutines", "os/signal.signal_recv", "runtime.ensureSigM",
		"created by runtime.gc", "runtime.MHeap_Scavenger", "runtime/trace.Start",
		"testing.(*M).startAlarm", "testing.(*M).Run",
	} {
		if strings.Contains(stack, s) {
			return true
		}
	}
	return false
}

func newSince(before map[int]string) []string {
	var extra []string
	for id, s := range goroutines() {
		if _, ok := before[id]; !ok {
			extra = append(extra, s)
		}
	}
	sort.Strings(extra)
	return extra
}
