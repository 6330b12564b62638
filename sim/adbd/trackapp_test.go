package adbd

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// appDevice is a fakeDevice whose adbd offers track-app (or not).
type appDevice struct {
	*fakeDevice
	offer bool

	mu      sync.Mutex
	procs   []adb.AppProcess
	changed chan struct{}
}

func (d *appDevice) AppProcesses() ([]adb.AppProcess, <-chan struct{}, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]adb.AppProcess(nil), d.procs...), d.changed, d.offer
}

func (d *appDevice) set(procs ...adb.AppProcess) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.procs = procs
	close(d.changed)
	d.changed = make(chan struct{})
}

func TestTrackApp(t *testing.T) {
	leakcheck.Check(t)
	dev := &appDevice{fakeDevice: newFakeDevice(), offer: true, changed: make(chan struct{})}
	dev.procs = []adb.AppProcess{{PID: 4242, Debuggable: true, Profileable: true, Architecture: "arm64"}}
	addr := startAppServer(t, dev)
	h := dialHost(t, addr)
	h.connect(1 << 20)
	d := h.open(9, "track-app")
	decode := func(b []byte) []adb.AppProcess {
		t.Helper()
		n, err := strconv.ParseUint(string(b[:4]), 16, 16)
		if err != nil || int(n) != len(b)-4 {
			t.Fatalf("frame %q: %v", b, err)
		}
		l, err := adb.ParseAppProcesses(b[4:])
		if err != nil {
			t.Fatal(err)
		}
		return l.Processes
	}
	p := h.expect(cmdWRTE, d, 9)
	if want := append([]byte("0010"), unhex(t, "0a0e 089221 1001 1801 2205 61726d3634")...); !bytes.Equal(p.Data, want) {
		t.Fatalf("first message %x, want %x", p.Data, want)
	}
	h.send(cmdOKAY, 9, d, "")
	dev.set(adb.AppProcess{PID: 16024, Profileable: true, Architecture: "arm64", HasUID: true, UID: 10123})
	p = h.expect(cmdWRTE, d, 9)
	if got := decode(p.Data); len(got) != 1 || got[0].PID != 16024 || got[0].Debuggable || got[0].UID != 10123 {
		t.Fatalf("second list %+v", got)
	}
	h.send(cmdOKAY, 9, d, "")
	// An unchanged list is not sent again.
	dev.set(adb.AppProcess{PID: 16024, Profileable: true, Architecture: "arm64", HasUID: true, UID: 10123})
	h.quiet(100 * time.Millisecond)
	h.nc.Close()
}

func TestTrackAppRefused(t *testing.T) {
	leakcheck.Check(t)
	// A device before Android 12, and a Device that is no AppLister.
	older := &appDevice{fakeDevice: newFakeDevice(), changed: make(chan struct{})}
	_, plain := startServer(t, newFakeDevice(), Options{})
	for _, addr := range []string{startAppServer(t, older), plain} {
		h := dialHost(t, addr)
		h.connect(1 << 20)
		h.send(cmdOPEN, 5, 0, "track-app\x00")
		h.expect(cmdCLSE, 0, 5)
		h.nc.Close()
	}
}

// A real adbd cuts a message at 0xffff bytes, leaving out the processes
// that do not fit.
func TestAppMessageLimit(t *testing.T) {
	var procs []adb.AppProcess
	for pid := 100000; pid < 110000; pid++ {
		procs = append(procs, adb.AppProcess{PID: pid, Debuggable: true, Profileable: true, Architecture: "x86_64",
			HasUserID: true, ProcessName: "com.example.app" + strconv.Itoa(pid)})
	}
	msg := appMessage(procs, maxAppMessage)
	if len(msg) > maxAppMessage || len(msg) < maxAppMessage-64 {
		t.Fatalf("message of %d bytes", len(msg))
	}
	l, err := adb.ParseAppProcesses(msg[4:])
	if err != nil || len(l.Processes) == 0 || len(l.Processes) == len(procs) || l.Processes[0].PID != 100000 {
		t.Fatalf("%d processes, %v", len(l.Processes), err)
	}
	if !bytes.Equal(msg[:4], []byte(fmt.Sprintf("%04x", len(msg)-4))) {
		t.Fatalf("prefix %q", msg[:4])
	}
}

// startAppServer serves dev until the test ends.
func startAppServer(t *testing.T, dev *appDevice) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(dev, Options{Logger: testLogger(t)})
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		<-done
	})
	return ln.Addr().String()
}
