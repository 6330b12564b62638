package sim

import (
	"bytes"
	"context"
	"testing"
)

// track-app per API level: none before 31; flags and architecture from 31;
// names, packages, user, uid and wait from 35. A release build is listed
// (profileable, not debuggable) but has no JDWP; system_process is
// debuggable, not profileable.
func TestAppProcessesPerAPI(t *testing.T) {
	d := NewDevice("s")
	defer d.Close()
	d.Add(NewVM(VMSpec{PID: 100, App: "system_process", Package: "android", Family: ART}))
	d.Add(NewVM(VMSpec{PID: 200, App: "com.example.release", Package: "com.example.release", Family: ART, Release: true, UserID: 10}))
	d.Add(NewVM(VMSpec{PID: 300, App: "com.example.wait", Package: "com.example.wait", Family: ART, WaitingForDebugger: true, PreInitialized: true}))
	for _, api := range []int{0, 30} {
		d.SetAPI(api)
		if _, _, ok := d.AppProcesses(); ok {
			t.Errorf("API %d offers track-app", api)
		}
	}
	d.SetAPI(33)
	procs, _, ok := d.AppProcesses()
	if !ok || len(procs) != 3 {
		t.Fatalf("API 33: %v %+v", ok, procs)
	}
	if p := procs[0]; !p.Debuggable || p.Profileable || p.Architecture != Architecture || p.ProcessName != "" || p.HasUID {
		t.Errorf("API 33 system_process %+v", p)
	}
	if p := procs[1]; p.Debuggable || !p.Profileable || p.HasUserID {
		t.Errorf("API 33 release %+v", p)
	}
	d.SetAPI(35)
	procs, _, _ = d.AppProcesses()
	if p := procs[1]; p.ProcessName != "com.example.release" || len(p.PackageNames) != 1 || !p.HasUserID || p.UserID != 10 ||
		!p.HasUID || p.UID != 10*100000+10200 || !p.HasWaiting || p.WaitingForDebugger {
		t.Errorf("API 35 release %+v", p)
	}
	if p := procs[2]; p.ProcessName != "" || !p.WaitingForDebugger { // not named yet: <pre-initialized>
		t.Errorf("API 35 waiting %+v", p)
	}
	if pids, _ := d.JDWPPids(); len(pids) != 2 || pids[0] != 100 || pids[1] != 300 {
		t.Errorf("track-jdwp lists %v", pids)
	}
	if _, err := d.OpenJDWP(200); err == nil {
		t.Error("jdwp:200 opened for a release build")
	}
	var out bytes.Buffer
	if _, err := d.Shell(context.Background(), "cat /proc/200/cmdline", &out); err != nil || out.String() != "com.example.release\x00" {
		t.Errorf("cmdline %q %v", out.String(), err)
	}
}
