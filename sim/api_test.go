package sim

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/android/meminfo"
	"github.com/ddmtui/ddmtui/android/procfs"
	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// A VM on API 30+ answers what recent frameworks register (HELO, FEAT,
// profiling) and leaves the thread and heap handlers' chunks unanswered,
// and sends no THCR/HPIF for them either.
func TestModernAPIAnswersOnlyRegisteredHandlers(t *testing.T) {
	leakcheck.Check(t)
	_, _, addr := serveOne(t, VMSpec{PID: 7, App: "m", Family: ART, API: 34, Seed: 3})
	c := dialVM(t, addr)
	if m, err := ddmRequest(t, c, &ddm.HelloRequest{ServerVersion: 1}, time.Second); err != nil || m.(*ddm.Hello).PID != 7 {
		t.Fatalf("HELO: %v %v", m, err)
	}
	if m, err := ddmRequest(t, c, &ddm.FeaturesRequest{}, time.Second); err != nil || len(m.(*ddm.Features).Names) == 0 {
		t.Fatalf("FEAT: %v %v", m, err)
	}
	for _, req := range []ddm.Message{&ddm.ThreadStatusRequest{}, &ddm.ThreadNotifyRequest{Enable: true}, &ddm.StackTraceRequest{ThreadID: 1},
		&ddm.HeapInfoRequest{When: ddm.HeapInfoNow}, &ddm.GCRequest{}, &ddm.AllocTrackerStatusRequest{},
		&ddm.SegmentRequest{Type: ddm.TypeHPSG, When: 1}, &ddm.HeapDumpStreamRequest{}} {
		if _, err := ddmRequest(t, c, req, 150*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%v on API 34: %v, want no reply", req.ChunkType(), err)
		}
	}
	// Profiling is still registered (MPRQ answers).
	if m, err := ddmRequest(t, c, &ddm.ProfilingStatusRequest{}, time.Second); err != nil || m == nil {
		t.Fatalf("MPRQ: %v %v", m, err)
	}
	// Nothing unsolicited came for the unanswered THEN/HPIF.
	select {
	case p := <-c.Incoming():
		t.Fatalf("unsolicited packet %+v", p)
	case <-time.After(100 * time.Millisecond):
	}
}

// The device shell serves /proc and dumpsys from each VM's truth, and
// what they print parses back to that truth.
func TestDeviceShellProcAndDumpsys(t *testing.T) {
	dev := NewDevice("s")
	dev.SetAPI(34)
	vm := NewVM(VMSpec{PID: 4242, App: "com.example.x", Family: ART, API: 34, Threads: 2, Seed: 4})
	dev.Add(vm)
	defer dev.Close()
	run := func(cmd string) string {
		var b bytes.Buffer
		if _, err := dev.Shell(context.Background(), cmd, &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if got := run("getprop ro.build.version.sdk"); got != "34\n" {
		t.Errorf("getprop: %q", got)
	}
	r := procfs.Parse([]byte(run("cat /proc/4242/task/*/stat")))
	if !reflect.DeepEqual(r.Threads, vm.ProcThreads()) || r.Skipped != 0 {
		t.Errorf("/proc: %+v skipped %d\ntruth %+v", r.Threads, r.Skipped, vm.ProcThreads())
	}
	hostile := false
	for _, th := range r.Threads {
		hostile = hostile || th.Comm == "Render) Thread "
	}
	if !hostile {
		t.Error("no thread whose comm holds ') '")
	}
	if got := meminfo.Parse([]byte(run("dumpsys meminfo 4242"))); !reflect.DeepEqual(got, vm.MemInfo()) {
		t.Errorf("dumpsys: %+v\ntruth %+v", got, vm.MemInfo())
	}
	if got := run("cat /proc/1/task/*/stat"); !strings.Contains(got, "No such file or directory") {
		t.Errorf("missing pid: %q", got)
	}
	if got := run("dumpsys meminfo 1"); got != "No process found for: 1\n" {
		t.Errorf("missing pid: %q", got)
	}
	if got := run("echo still a shell"); got != "still a shell\n" {
		t.Errorf("echo: %q", got)
	}
}
