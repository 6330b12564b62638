package headless

import (
	"encoding/json"
	"testing"

	"github.com/ddmtui/ddmtui/monitor"
)

func TestThreadJSON(t *testing.T) {
	for _, tc := range []struct {
		in   monitor.Thread
		want string
	}{
		{monitor.Thread{ID: 1, Name: "main", Status: 0, State: "zombie", SysTID: 9, Source: monitor.SourceDDM},
			`{"id":1,"name":"main","status":0,"state":"zombie","systid":9,"utime":0,"stime":0,"daemon":false,"source":"ddm"}`},
		{monitor.Thread{ID: 2, Name: "w", Status: 1, State: "running", Source: monitor.SourceJDWP, CPUPercent: 12.345, CPUKnown: true},
			`{"id":2,"name":"w","status":1,"state":"running","systid":0,"utime":0,"stime":0,"daemon":false,"source":"jdwp","cpu_percent":12.3}`},
		{monitor.Thread{ID: 77, Name: "Render) Thread ", Status: -1, State: "sleeping", SysTID: 77, UTime: 5, STime: 1,
			Source: monitor.SourceProc, ProcState: "S", CPUKnown: true},
			`{"id":77,"name":"Render) Thread ","state":"sleeping","systid":77,"utime":5,"stime":1,"source":"proc","cpu_percent":0,"proc_state":"S"}`}, // no status, and /proc does not know daemon
		{monitor.Thread{ID: 3, Name: "old"}, // a thread from before sources existed reads as DDM's
			`{"id":3,"name":"old","status":0,"state":"","systid":0,"utime":0,"stime":0,"daemon":false,"source":"ddm"}`},
	} {
		b, err := json.Marshal(NewThread(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("got  %s\nwant %s", b, tc.want)
		}
	}
}

func TestSnapshotCapabilitiesAndMemoryJSON(t *testing.T) {
	pss, java := int64(100), int64(40)
	vm := monitor.VM{Key: "adb:x/s:1", Source: "adb:s", PID: 1, API: 34,
		Capabilities: monitor.Capabilities{monitor.FeatThreads: {Source: monitor.SourceProc},
			monitor.FeatStack: {Source: monitor.SourceNone, Reason: "no DDM thread handler"}},
		Memory: &monitor.Memory{}}
	vm.Memory.Info.TotalPSS, vm.Memory.Info.JavaHeap = &pss, &java
	vm.Memory.Info.Objects = map[string]int64{"views": 3}
	b, err := json.Marshal(Snapshot([]monitor.VM{vm})[0])
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"api":                `34`,
		"capabilities":       `{"stack":"none","threads":"proc"}`,
		"capability_reasons": `{"stack":"no DDM thread handler"}`,
		"memory":             `{"total_pss_kb":100,"java_heap_kb":40,"objects":{"views":3}}`,
	} {
		if string(got[k]) != want {
			t.Errorf("%s: %s, want %s", k, got[k], want)
		}
	}
	// A local VM: api 0, no memory key.
	b, _ = json.Marshal(Snapshot([]monitor.VM{{Key: "local:1", Source: "local:1"}})[0])
	got = nil
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if _, has := got["memory"]; has || string(got["api"]) != "0" {
		t.Errorf("local VM: %s", b)
	}
}
