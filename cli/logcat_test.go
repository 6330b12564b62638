package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// logcatSpecs is the demo set with small heaps, the maps app crashing
// after a few steps (and restarted by the device).
func logcatSpecs() []sim.VMSpec {
	specs := sim.Scenario(1, 7)
	for i := range specs {
		specs[i].HeapBytes, specs[i].HeapMax, specs[i].Fragmented = 1<<20, 8<<20, false
	}
	specs[6].CrashAfter = 6
	return specs
}

// runDeviceUntil steps the device every 5 ms until done says so.
func runDeviceUntil(t *testing.T, dev *sim.Device, what string, done func([]logcat.Entry) bool) []logcat.Entry {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { dev.Run(ctx, 5*time.Millisecond); close(stopped) }()
	defer func() { cancel(); <-stopped }()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		all, _, _ := dev.Logcat().Read(nil, 1, 0)
		if done(all) {
			cancel()
			<-stopped
			all, _, _ = dev.Logcat().Read(nil, 1, 0)
			return all
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the device never logged %s", what)
	return nil
}

// appPIDs are the pids the ActivityManager started pkg under.
func appPIDs(all []logcat.Entry, pkg string) map[int32]bool {
	var procs logcat.Processes
	pids := map[int32]bool{}
	for i := range all {
		if pid, name := procs.Observe(&all[i]); name == pkg {
			pids[pid] = true
		}
	}
	return pids
}

// TestLogcatAppAcrossRestartJSON: `ddmtui logcat --app PKG --json` through
// the real adb server prints exactly the entries the device logged for the
// app, across its restarts.
func TestLogcatAppAcrossRestartJSON(t *testing.T) {
	leakcheck.Check(t)
	r := startADBRig(t, logcatSpecs())
	const pkg = "com.example.maps"
	all := runDeviceUntil(t, r.dev, "a restart of "+pkg, func(all []logcat.Entry) bool { return len(appPIDs(all, pkg)) >= 3 })
	pids := appPIDs(all, pkg)
	var want []logcat.Entry
	for _, e := range all {
		if pids[e.PID] {
			want = append(want, e)
		}
	}
	out, err := runApp(t, "logcat", "--adb", r.server.Addr(), "--scan", "off", "--serial", r.adbd, "--app", pkg, "--json", "--wait", "1s")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d entries:\n%s", len(lines), len(want), out)
	}
	seen := map[int32]bool{}
	var crashes int
	for i, l := range lines {
		var j logcatJSON
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, l)
		}
		w := want[i]
		tm, err := time.Parse(time.RFC3339Nano, j.Time)
		if err != nil || len(j.Time) != len(jsonTime) && !strings.HasSuffix(j.Time, "Z") {
			t.Fatalf("line %d: time %q: %v", i, j.Time, err)
		}
		if j.PID != w.PID || j.TID != w.TID || j.Tag != w.Tag || j.Message != w.Message || j.Level != w.Priority.String() ||
			j.App != pkg || !tm.Equal(w.Time.Truncate(time.Millisecond)) && !tm.Equal(w.Time) {
			t.Fatalf("line %d:\n %s\nwant %+v", i, l, w)
		}
		seen[j.PID] = true
		if strings.HasPrefix(j.Message, "FATAL EXCEPTION") {
			crashes++
		}
	}
	if len(seen) < 3 || crashes < 2 {
		t.Errorf("%d processes and %d crashes in the output", len(seen), crashes)
	}
	// In text, each new process of the app is announced once.
	text, err := runApp(t, "logcat", "--adb", r.server.Addr(), "--scan", "off", "--app", pkg, "--wait", "1s")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text, "--------- "+pkg+": process "); n != len(seen)-1 {
		t.Errorf("%d process lines for %d processes:\n%s", n, len(seen), text)
	}
}

// TestLogcatAgreesWithADB: what `ddmtui logcat` prints is what the real
// `adb logcat` prints from the same device (less logcat's buffer dividers),
// and --pid, --query narrow it.
func TestLogcatAgreesWithADB(t *testing.T) {
	leakcheck.Check(t)
	r := startADBRig(t, logcatSpecs())
	all := runDeviceUntil(t, r.dev, "a crash", func(all []logcat.Entry) bool {
		for _, e := range all {
			if e.Tag == "AndroidRuntime" {
				return true
			}
		}
		return false
	})
	ref, err := r.server.Run("-s", r.adbd, "logcat", "-d", "-b", "main,system,crash")
	if err != nil {
		t.Fatalf("adb logcat: %v\n%s", err, ref)
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(ref, "\n") {
		if !strings.HasPrefix(l, "--------- ") {
			b.WriteString(l)
		}
	}
	common := []string{"logcat", "--adb", r.server.Addr(), "--scan", "off", "--wait", "0"}
	out, err := runApp(t, common...)
	if err != nil {
		t.Fatal(err)
	}
	if out != b.String() {
		t.Fatalf("ddmtui logcat:\n%s\nadb logcat:\n%s", out, b.String())
	}
	// The text path (devices without exec:) prints the same.
	out, err = runApp(t, append(common, "--text-only")...)
	if err != nil || out != b.String() {
		t.Fatalf("ddmtui logcat --text-only: %v\n%s\nadb logcat:\n%s", err, out, b.String())
	}
	pid := all[len(all)-1].PID
	out, err = runApp(t, append(common, "--pid", fmt.Sprint(pid))...)
	if err != nil || out == "" {
		t.Fatalf("--pid: %v %q", err, out)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.Contains(l, fmt.Sprintf(" %5d ", pid)) {
			t.Fatalf("--pid %d printed %q", pid, l)
		}
	}
	// An Android 14 device is asked for the pid itself (logcat --pid): the
	// same lines.
	r.dev.SetAPI(34)
	out34, err := runApp(t, append(common, "--pid", fmt.Sprint(pid))...)
	if err != nil || out34 != out {
		t.Fatalf("--pid on API 34: %v\n%s\nwant\n%s", err, out34, out)
	}
	out, err = runApp(t, append(common, "--query", "is:crash")...)
	if err != nil || !strings.Contains(out, "E AndroidRuntime: FATAL EXCEPTION: main\n") || !strings.Contains(out, "\tat ") {
		t.Fatalf("is:crash: %v\n%s", err, out)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.Contains(l, "AndroidRuntime") && !strings.Contains(l, "libc") {
			t.Fatalf("is:crash printed %q", l)
		}
	}
	if _, err := runApp(t, append(common, "--query", "level:Q")...); err == nil || !strings.Contains(err.Error(), "--query") {
		t.Fatalf("bad query: %v", err)
	}
}

// TestLogcatFollow: -f prints the last --tail buffered entries, then those
// logged after it started, and ends cleanly when cancelled.
func TestLogcatFollow(t *testing.T) {
	leakcheck.Check(t)
	r := startADBRig(t, logcatSpecs()[:3])
	for i := 1; i <= 5; i++ {
		r.dev.Logcat().Append(logcat.Entry{Time: time.Now(), PID: 41, TID: 41, Priority: logcat.Info, Tag: "T", Message: fmt.Sprintf("marker-old-%d", i)})
	}
	app := NewApp()
	var out syncBuffer
	app.Writer, app.ErrWriter = &out, &out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- app.RunContext(ctx, []string{"ddmtui", "logcat", "-f", "--adb", r.server.Addr(), "--scan", "off", "--wait", "0", "--tail", "2", "--query", "message:marker-"})
	}()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(out.String(), "marker-old-5") {
		if time.Now().After(deadline) {
			t.Fatalf("no backlog: %q", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	n := 0
	for !strings.Contains(out.String(), "marker-1\n") {
		if time.Now().After(deadline) {
			t.Fatalf("followed output: %q", out.String())
		}
		n++
		r.dev.Logcat().Append(logcat.Entry{Time: time.Now(), PID: 42, TID: 42, Priority: logcat.Info, Tag: "T", Message: fmt.Sprintf("marker-%d", n)})
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("logcat -f: %v", err)
	}
	got := out.String()
	if !strings.Contains(got, " I T       : marker-1\n") || strings.Contains(got, "marker-old-3") || !strings.Contains(got, "marker-old-4\n") ||
		strings.Index(got, "marker-old-5") > strings.Index(got, "marker-1\n") {
		t.Errorf("output %q", got)
	}
}

// On a terminal the whole device's text names each line's app beside its
// pid, escaped (issue 38: the package was missing); piped it stays the
// threadtime adb prints (TestLogcatAgreesWithADB).
func TestLogcatTextNamesTheApp(t *testing.T) {
	var b bytes.Buffer
	out := bufio.NewWriter(&b)
	p := logcatPrinter{out: out, loc: time.UTC, withApp: true}
	at := time.Date(2026, 12, 7, 4, 30, 1, 0, time.UTC)
	for _, e := range []logcat.Entry{
		{Time: at, PID: 1881, TID: 1881, Priority: logcat.Info, Tag: "G", Message: "hi", App: "com.example.gallery"},
		{Time: at, PID: 7, TID: 7, Priority: logcat.Warn, Tag: "X", Message: "m", App: "evil\x1b]0;x\a"},
	} {
		if err := p.print(&e); err != nil {
			t.Fatal(err)
		}
	}
	out.Flush()
	if s := b.String(); !strings.Contains(s, " 1881 com.example.gallery  1881 I G       : hi\n") || strings.ContainsRune(s, 0x1b) {
		t.Errorf("%q", s)
	}
}
