package headless

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/monitor"
)

// The example: a profileable release app without JDWP appears with
// "debuggable": false, "profileable": true, "ddm": false, no debug_port,
// and the track-app fields; a debuggable VM keeps "debug_port" (0: none
// yet) and leaves unknown fields out.
func TestListTrackAppFields(t *testing.T) {
	release := monitor.VM{Key: "adb:h/emulator-5554:16024", Source: "adb:emulator-5554", PID: 16024, App: "com.example.release",
		Profileable: true, Tracked: true, Architecture: "arm64", UID: 1010123, UIDKnown: true, UserID: 10, UserIDKnown: true,
		Debugger: monitor.DebuggerNone}
	debug := monitor.VM{Key: "local:8000", Source: "local:8000", PID: 42, App: "com.example.debug", DDM: true, Debuggable: true,
		Debugger: monitor.DebuggerNone, VMIdent: "Dalvik v2.1.0"}
	var b bytes.Buffer
	if err := WriteJSON(&b, List([]monitor.VM{release, debug})); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"source": "adb:emulator-5554", "pid": 16024.0, "app": "com.example.release", "vm": "", "ddm": false,
			"debuggable": false, "profileable": true, "debugger": "none", "architecture": "arm64", "uid": 1010123.0, "user_id": 10.0},
		{"source": "local:8000", "pid": 42.0, "app": "com.example.debug", "vm": "Dalvik v2.1.0", "ddm": true,
			"debuggable": true, "profileable": false, "debugger": "none", "debug_port": 0.0},
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("entry %d keys: %v, want %v", i, got[i], want[i])
		}
		for k, v := range want[i] {
			if got[i][k] != v {
				t.Errorf("entry %d %s = %v, want %v", i, k, got[i][k], v)
			}
		}
	}
	// The snapshot carries them too, and says in one line what the
	// process cannot give.
	release.Capabilities = monitor.Capabilities{monitor.FeatStack: {Source: monitor.SourceNone, Reason: monitor.NoJDWPReason}}
	b.Reset()
	if err := WriteJSON(&b, Snapshot([]monitor.VM{release})); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"debuggable": false`, `"profileable": true`, `"architecture": "arm64"`, `"uid": 1010123`, `"user_id": 10`,
		`"stack": "` + monitor.NoJDWPReason + `"`} {
		if !strings.Contains(b.String(), k) {
			t.Errorf("snapshot lacks %s:\n%s", k, b.String())
		}
	}
	if strings.Contains(b.String(), "debug_port") {
		t.Errorf("snapshot of a process without JDWP has a debug_port:\n%s", b.String())
	}
	// The text table says so in its port column.
	b.Reset()
	if err := WriteListText(&b, List([]monitor.VM{release})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "com.example.release") || !strings.Contains(b.String(), "profileable, no JDWP") {
		t.Errorf("text:\n%s", b.String())
	}
}

func TestParseProcesses(t *testing.T) {
	release := monitor.VM{Profileable: true}
	debug := monitor.VM{Debuggable: true, Profileable: true}
	for _, tc := range []struct {
		in         string
		rel, debug bool
	}{{"all", true, true}, {"", true, true}, {"debuggable", false, true}} {
		keep, err := ParseProcesses(tc.in)
		if err != nil || keep(release) != tc.rel || keep(debug) != tc.debug {
			t.Errorf("%q: %v %v %v", tc.in, err, keep(release), keep(debug))
		}
	}
	if _, err := ParseProcesses("profileable"); err == nil || !strings.Contains(err.Error(), "want all or debuggable") {
		t.Errorf("bad value: %v", err)
	}
}
