package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/sim/adbd"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testadb"
	"github.com/ddmtui/ddmtui/trace"
)

// adbRig is a simulated device served by the simulated adbd, connected to a
// private real adb server.
type adbRig struct {
	dev    *sim.Device
	server *testadb.Server
	adbd   string
}

func startADBRig(t *testing.T, specs []sim.VMSpec) *adbRig {
	t.Helper()
	srv := testadb.New(t)
	r := &adbRig{dev: sim.NewDevice("sim"), server: srv}
	for _, s := range specs {
		r.dev.Add(sim.NewVM(s))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := adbd.New(r.dev, adbd.Options{})
	go d.Serve(ln)
	r.adbd = ln.Addr().String()
	srv.Start()
	srv.Connect(r.adbd)
	t.Cleanup(func() {
		srv.Kill() // before the device goes: the server drops its transport
		d.Close()
		r.dev.Close()
	})
	return r
}

func TestSnapshotThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	specs := sim.Scenario(1, 3)
	r := startADBRig(t, specs)
	out, err := runApp(t, "snapshot", "--json", "--adb", r.server.Addr(), "--scan", "off", "--wait", "3s")
	if err != nil {
		t.Fatal(err)
	}
	var snap []headless.SnapshotEntry
	if err := json.Unmarshal([]byte(out), &snap); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(snap) != len(specs) {
		t.Fatalf("%d VMs through adb, want %d:\n%s", len(snap), len(specs), out)
	}
	for _, e := range snap {
		vm := r.dev.VM(e.PID)
		if vm == nil {
			t.Fatalf("pid %d is not on the device", e.PID)
		}
		if e.Source != "adb:"+r.adbd || e.App != vm.App() || !e.DDM {
			t.Errorf("entry %+v", e.ListEntry)
		}
		truth := vm.Threads()
		if len(e.Threads) != len(truth) {
			t.Fatalf("pid %d: %d threads, VM has %d", e.PID, len(e.Threads), len(truth))
		}
		for i, th := range e.Threads {
			if th.Name != truth[i].Name || th.Status != int(truth[i].Status) {
				t.Errorf("pid %d thread %d: %+v, truth %+v", e.PID, i, th, truth[i])
			}
		}
	}
}

func TestDumpThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	r := startADBRig(t, []sim.VMSpec{
		{PID: 3100, App: "com.example.stuck", Package: "com.example.stuck", Family: sim.ART, Threads: 4, Deadlock: true, Seed: 1},
		{PID: 3200, App: "com.example.old", Package: "com.example.old", Family: sim.Dalvik, Threads: 3, Deadlock: true, Seed: 2},
	})
	for _, pid := range []int{3100, 3200} {
		raw := filepath.Join(t.TempDir(), "traces.txt")
		out, err := runApp(t, "dump", "--pid", fmt.Sprint(pid), "--json", "-o", raw, "--adb", r.server.Addr(), "--scan", "off")
		if err != nil {
			t.Fatalf("dump %d: %v\n%s", pid, err, out)
		}
		var rep struct {
			Processes []struct {
				PID       int                     `json:"pid"`
				Threads   []struct{ Name string } `json:"threads"`
				Deadlocks [][]struct {
					TID       int `json:"tid"`
					HeldByTID int `json:"held_by_tid"`
				} `json:"deadlocks"`
			} `json:"processes"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(rep.Processes) != 1 || rep.Processes[0].PID != pid {
			t.Fatalf("dump of %d: %+v", pid, rep.Processes)
		}
		p := rep.Processes[0]
		if len(p.Threads) != len(r.dev.VM(pid).Threads()) {
			t.Errorf("pid %d: %d threads in the dump, VM has %d", pid, len(p.Threads), len(r.dev.VM(pid).Threads()))
		}
		if len(p.Deadlocks) != 1 || len(p.Deadlocks[0]) != 2 || p.Deadlocks[0][0].HeldByTID != p.Deadlocks[0][1].TID {
			t.Errorf("pid %d: deadlocks %+v, want one two-thread cycle", pid, p.Deadlocks)
		}
		if b, err := os.ReadFile(raw); err != nil || !bytes.Contains(b, []byte(fmt.Sprintf("----- pid %d ", pid))) {
			t.Errorf("raw dump not saved: %v", err)
		}
	}
	// A local VM has no device to signal.
	if _, err := runApp(t, "dump", "--pid", "99", "--adb", "off", "--scan", "off", "--wait", "200ms"); err == nil {
		t.Fatal("dump of a missing VM succeeded")
	}
}

// A VM that cannot stream traces writes them to a device file (MPRS/MPRE);
// ddmtui reads the file back through adb.
func TestProfileToDeviceFileThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	r := startADBRig(t, []sim.VMSpec{{PID: 3300, App: "com.example.filetrace", Family: sim.ART, FileTracesOnly: true, Threads: 2, Seed: 3}})
	out := filepath.Join(t.TempDir(), "f.trace")
	text, err := runApp(t, "profile", "--pid", "3300", "--duration", "200ms", "-o", out, "--adb", r.server.Addr(), "--scan", "off")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{}); err != nil {
		t.Fatalf("the trace read back from the device does not parse: %v", err)
	}
	if !bytes.Equal(data, r.dev.VM(3300).File("/sdcard/com.example.filetrace.trace")) {
		t.Fatal("the saved trace differs from the device file")
	}
	if !strings.Contains(text, "wrote "+out) {
		t.Fatalf("output %q", text)
	}
}
