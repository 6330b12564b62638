package scan

import (
	"context"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// farmServer is an adb server that lists many online devices: every
// device's transport request is counted, its services answer an empty pid
// list and stay open, as a real device's track-jdwp does.
type farmServer struct {
	ln      net.Listener
	lists   chan string // device lists to send on track-devices
	mu      sync.Mutex
	reached map[string]int // serial → transport requests
	open    map[string]int // serial → streams open now
	wg      sync.WaitGroup
}

func newFarmServer(t *testing.T) *farmServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &farmServer{ln: ln, lists: make(chan string, 4), reached: map[string]int{}, open: map[string]int{}}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.wg.Add(1)
			go func() { defer f.wg.Done(); defer c.Close(); f.serve(c) }()
		}
	}()
	t.Cleanup(func() { ln.Close(); f.wg.Wait() })
	return f
}

func readReq(c net.Conn) (string, error) {
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return "", err
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 16)
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	_, err = io.ReadFull(c, b)
	return string(b), err
}

func (f *farmServer) serve(c net.Conn) {
	req, err := readReq(c)
	if err != nil {
		return
	}
	switch {
	case req == "host:version":
		fmt.Fprintf(c, "OKAY%04x%s", 4, "0029")
	case req == "host:track-devices-l" || req == "host:track-devices":
		c.Write([]byte("OKAY"))
		done := make(chan struct{})
		go func() { io.Copy(io.Discard, c); close(done) }() // the client closing ends the stream
		for {
			select {
			case l := <-f.lists:
				fmt.Fprintf(c, "%04x%s", len(l), l)
			case <-done:
				return
			}
		}
	case strings.HasPrefix(req, "host:transport:"):
		serial := strings.TrimPrefix(req, "host:transport:")
		c.Write([]byte("OKAY"))
		// These devices are older than track-app: they refuse it, and the
		// follower falls back to track-jdwp, whose streams are counted.
		if svc, err := readReq(c); err != nil || svc != "track-jdwp" {
			c.Write([]byte("FAIL0006closed"))
			return
		}
		f.mu.Lock()
		f.reached[serial]++
		f.open[serial]++
		f.mu.Unlock()
		defer func() { f.mu.Lock(); f.open[serial]--; f.mu.Unlock() }()
		c.Write([]byte("OKAY0000"))
		io.Copy(io.Discard, c) // until the follower lets go
	default:
		fmt.Fprintf(c, "FAIL%04x%s", len("unknown"), "unknown")
	}
}

// following lists the serials with a stream open now, sorted.
func (f *farmServer) following() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for s, n := range f.open {
		if n > 0 {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func deviceList(serials ...string) string {
	var b strings.Builder
	for _, s := range serials {
		b.WriteString(s + "\tdevice\n")
	}
	return b.String()
}

// TestADBCapsFollowedDevices: issue 30 #15. A server listing 2,000 online
// devices got a follower per device; the followers are capped (here at 8),
// Status says so, and when a followed device leaves, the next one is
// followed in its place.
func TestADBCapsFollowedDevices(t *testing.T) {
	leakcheck.Check(t)
	f := newFarmServer(t)
	serials := make([]string, 2000)
	for i := range serials {
		serials[i] = fmt.Sprintf("farm-%04d", i)
	}
	f.lists <- deviceList(serials...)
	a := &ADB{Client: &adb.Client{Addr: f.ln.Addr().String()}, MaxDevices: 8, Retry: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, func(context.Context, Endpoint) error { return nil }) }()
	defer func() { cancel(); <-done }()

	wait := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				got := f.following()
				t.Fatalf("timed out waiting for %s: following %d devices (%v…), status %q", what, len(got), got[:min(len(got), 10)], a.Status())
			}
		}
	}
	want := strings.Join(serials[:8], " ")
	wait("the first 8 devices followed", func() bool { return strings.Join(f.following(), " ") == want })
	time.Sleep(100 * time.Millisecond) // time for any extra follower to show up
	if got := strings.Join(f.following(), " "); got != want {
		t.Fatalf("following %s, want %s", got, want)
	}
	if st := a.Status(); !strings.HasSuffix(st, ": 2000 devices, following 8 (--adb-max-devices)") {
		t.Errorf("status %q", st)
	}

	// farm-0003 leaves: farm-0008 takes its place, the others stay.
	f.lists <- deviceList(append(append([]string(nil), serials[:3]...), serials[4:]...)...)
	want = "farm-0000 farm-0001 farm-0002 farm-0004 farm-0005 farm-0006 farm-0007 farm-0008"
	wait("farm-0008 in farm-0003's place", func() bool { return strings.Join(f.following(), " ") == want })
	f.mu.Lock()
	for _, s := range serials[:8] {
		if f.reached[s] != 1 && s != "farm-0003" {
			t.Errorf("%s reached %d times: followers were restarted", s, f.reached[s])
		}
	}
	f.mu.Unlock()

	// Fewer devices than the cap: every one followed, no note in the status.
	f.lists <- deviceList("farm-0001", "farm-0002")
	wait("two devices", func() bool { return strings.Join(f.following(), " ") == "farm-0001 farm-0002" })
	if st := a.Status(); !strings.HasSuffix(st, ": 2 devices") {
		t.Errorf("status %q", st)
	}
}

func TestADBMaxDevicesDefault(t *testing.T) {
	if got := (&ADB{}).maxDevices(); got != DefaultMaxDevices || DefaultMaxDevices != 64 {
		t.Errorf("default cap %d", got)
	}
	if got := (&ADB{MaxDevices: 3}).maxDevices(); got != 3 {
		t.Errorf("cap %d, want 3", got)
	}
}
