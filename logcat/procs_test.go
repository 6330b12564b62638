package logcat

import "testing"

func TestProcessesObserve(t *testing.T) {
	var p Processes
	for _, c := range []struct {
		tag, msg string
		pid      int32
		name     string
	}{
		{"ActivityManager", "Start proc 1881:com.example.gallery/u0a66 for activity {com.example.gallery/.Main}", 1881, "com.example.gallery"},
		{"ActivityManager", "Start proc 2001:com.example.mail:sync/u0a67 for service com.example.mail/.Sync", 2001, "com.example.mail:sync"},
		{"ActivityManager", "Start proc com.android.music for broadcast com.android.music/.MediaButtonIntentReceiver: pid=1337 uid=10034 gids={50034, 3003}", 1337, "com.android.music"},
		{"ActivityManager", "Start proc x for y", 0, ""},
		{"ActivityManager", "Start proc 99999999999:x/u0", 0, "x"},
		{"NotAM", "Start proc 5:com.fake/u0a1 for activity", 0, ""},
	} {
		e := Entry{Tag: c.tag, Message: c.msg}
		pid, name := p.Observe(&e)
		if pid != c.pid || (pid != 0 && name != c.name) {
			t.Errorf("%q: %d %q, want %d %q", c.msg, pid, name, c.pid, c.name)
		}
	}
	if p.App(1881) != "com.example.gallery" || p.App(1337) != "com.android.music" || p.App(5) != "" {
		t.Fatalf("table %v", p.byPID)
	}
	p.Set(1881, "com.other") // pid reuse
	if p.App(1881) != "com.other" {
		t.Fatal("Set did not replace")
	}
}

func TestProcessesBounded(t *testing.T) {
	var p Processes
	for i := int32(1); i <= MaxProcesses+10; i++ {
		p.Set(i, "x")
	}
	if len(p.byPID) != MaxProcesses || p.App(1) != "" || p.App(MaxProcesses+10) != "x" {
		t.Fatalf("%d pids held", len(p.byPID))
	}
}

func TestAppMatches(t *testing.T) {
	for _, c := range []struct {
		proc, pkg string
		want      bool
	}{{"com.a", "com.a", true}, {"com.a:remote", "com.a", true}, {"com.ab", "com.a", false}, {"com", "com.a", false}} {
		if AppMatches(c.proc, c.pkg) != c.want {
			t.Errorf("AppMatches(%q, %q)", c.proc, c.pkg)
		}
	}
}
