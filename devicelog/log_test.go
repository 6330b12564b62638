package devicelog_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/sim/adbd"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testadb"
)

// logRig is a simulated device with a crashing app behind the simulated
// adbd and a private real adb server.
type logRig struct {
	dev  *sim.Device
	srv  *testadb.Server
	addr string
}

func startLogRig(t *testing.T) *logRig {
	t.Helper()
	srv := testadb.New(t)
	dev := sim.NewDevice("sim")
	specs := sim.Scenario(1, 7)
	for i := range specs {
		specs[i].HeapBytes, specs[i].HeapMax, specs[i].Fragmented = 1<<20, 8<<20, false
	}
	specs[6].CrashAfter = 6
	for _, s := range specs {
		dev.Add(sim.NewVM(s))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := adbd.New(dev, adbd.Options{})
	go d.Serve(ln)
	srv.Start()
	srv.Connect(ln.Addr().String())
	t.Cleanup(func() { srv.Kill(); d.Close(); dev.Close() })
	return &logRig{dev: dev, srv: srv, addr: ln.Addr().String()}
}

// steps runs the device for n steps.
func (r *logRig) steps(n int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n)*5*time.Millisecond)
	defer cancel()
	r.dev.Run(ctx, 5*time.Millisecond)
}

// sameLog checks that the engine's ring holds exactly the device's entries.
func sameLog(t *testing.T, dl *devicelog.Log, dev *sim.Device) []logcat.Entry {
	t.Helper()
	want, _, _ := dev.Logcat().Read(nil, 1, 0)
	waitFor(t, "the engine's log to catch up", 30*time.Second, func() bool { return dl.Ring().Len() >= len(want) })
	time.Sleep(100 * time.Millisecond) // anything extra would be a duplicate
	got, _, _ := dl.Ring().Read(nil, 1, 0)
	if len(got) != len(want) {
		t.Fatalf("engine holds %d entries, device logged %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.PID != w.PID || g.TID != w.TID || g.Tag != w.Tag || g.Message != w.Message || !g.Time.Equal(w.Time) || g.Buffer != w.Buffer {
			t.Fatalf("entry %d: %+v, want %+v", i, g, w)
		}
	}
	return got
}

// TestDeviceLogFollowsAndReconnects: one stream per device brings the
// device's log into the ring (binary, over exec:); after the device drops
// off the adb server and comes back, the stream is re-opened and nothing is
// doubled or lost; a cursor follows an app across restarts.
func TestDeviceLogFollowsAndReconnects(t *testing.T) {
	leakcheck.Check(t)
	r := startLogRig(t)
	r.steps(10)
	dl := devicelog.New(r.srv.Client(), r.addr, 0)
	dl.Retry = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dl.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-dl.Ready()
	r.steps(20)
	sameLog(t, dl, r.dev)
	if binary, n, _ := dl.Status(); !binary || n != 1 {
		t.Errorf("status: binary %v, %d streams", binary, n)
	}

	if out, err := r.srv.Run("disconnect", r.addr); err != nil {
		t.Fatalf("disconnect: %v %s", err, out)
	}
	waitFor(t, "the stream to drop", 10*time.Second, func() bool { _, _, err := dl.Status(); return err != nil })
	r.steps(10) // logged while the device is away
	r.srv.Connect(r.addr)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, n, err := dl.Status()
		if n >= 2 && err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no second stream: %d opened, last error %v", n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Run until the maps app has crashed and come back twice.
	deadline = time.Now().Add(30 * time.Second)
	for len(startedAs(r.dev, "com.example.maps")) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("the maps app did not restart twice")
		}
		r.steps(10)
	}
	all := sameLog(t, dl, r.dev)

	// The maps app crashed and restarted: its view spans its processes.
	pids := map[int32]bool{}
	for _, e := range all {
		if e.App == "com.example.maps" {
			pids[e.PID] = true
		}
	}
	if len(pids) < 3 {
		t.Fatalf("maps ran as %d processes", len(pids))
	}
	cur := dl.Cursor(devicelog.Filter{App: "com.example.maps"})
	got, missed := cur.Read(nil, 0, time.Time{})
	restarts, crashes := 0, 0
	for _, e := range got {
		if !pids[e.PID] {
			t.Fatalf("entry of pid %d in the maps view", e.PID)
		}
		if e.Has(logcat.FlagRestarted) {
			restarts++
		}
		if e.Has(logcat.FlagCrashStart) {
			crashes++
		}
	}
	if missed != 0 || restarts != len(pids)-1 || crashes < 2 {
		t.Errorf("maps view: %d entries, %d restarts marked for %d pids, %d crashes, %d missed", len(got), restarts, len(pids), crashes, missed)
	}
	// A query narrows a view; a pid view sees one process.
	q, err := logcat.Compile("is:crash", logcat.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crashView, _ := dl.Cursor(devicelog.Filter{Query: q}).Read(nil, 0, time.Time{})
	for _, e := range crashView {
		if !e.Has(logcat.FlagCrash) {
			t.Fatalf("is:crash view holds %+v", e)
		}
	}
	one := all[len(all)-1].PID
	pidView, _ := dl.Cursor(devicelog.Filter{PID: int(one)}).Read(nil, 0, time.Time{})
	for _, e := range pidView {
		if e.PID != one {
			t.Fatalf("pid view holds pid %d", e.PID)
		}
	}
	if len(crashView) == 0 || len(pidView) == 0 {
		t.Fatalf("views: %d crash entries, %d of pid %d", len(crashView), len(pidView), one)
	}
}

// TestDeviceLogText: the threadtime fallback fills the ring too.
func TestDeviceLogText(t *testing.T) {
	leakcheck.Check(t)
	r := startLogRig(t)
	r.steps(10)
	ls := devicelog.NewLogs(1000)
	ls.TextOnly = true
	dl := ls.Device(r.srv.Client(), r.addr)
	if ls.Device(r.srv.Client(), r.addr) != dl {
		t.Fatal("a second Log for the same device")
	}
	defer ls.Close()
	<-dl.Ready()
	want, _, _ := r.dev.Logcat().Read(nil, 1, 0)
	waitFor(t, "entries", 10*time.Second, func() bool { return dl.Ring().Len() > 0 })
	got, _, _ := dl.Ring().Read(nil, 1, 0)
	if binary, _, _ := dl.Status(); binary || len(got) > len(want) || got[0].Message != want[0].Message {
		t.Fatalf("text stream: %d entries (device %d), first %q", len(got), len(want), got[0].Message)
	}
}

// startedAs returns the pids the ActivityManager started pkg under.
func startedAs(dev *sim.Device, pkg string) map[int32]bool {
	all, _, _ := dev.Logcat().Read(nil, 1, 0)
	var procs logcat.Processes
	pids := map[int32]bool{}
	for i := range all {
		if pid, name := procs.Observe(&all[i]); name == pkg {
			pids[pid] = true
		}
	}
	return pids
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
