package adbd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

func TestLogcatCommand(t *testing.T) {
	cases := []struct {
		cmd  string
		args []string
		ok   bool
	}{
		{`export ANDROID_LOG_TAGS="''"; exec logcat '-d'`, []string{"-d"}, true}, // what `adb logcat -d` sends
		{`export ANDROID_LOG_TAGS="''" ; exec logcat '-B' '--pid=42'`, []string{"-B", "--pid=42"}, true},
		{"logcat -B -b main,system,crash -T 10", []string{"-B", "-b", "main,system,crash", "-T", "10"}, true},
		{"logcat", nil, true},
		{"exec logcat -v threadtime", []string{"-v", "threadtime"}, true},
		{"echo logcat", nil, false},
		{"logcat -d; rm -rf /", nil, false},
		{"logcatx -d", nil, false},
		{"export A=1", nil, false},
	}
	for _, c := range cases {
		args, ok := logcatCommand(c.cmd)
		if ok != c.ok || (ok && !reflect.DeepEqual(args, c.args) && !(len(args) == 0 && len(c.args) == 0)) {
			t.Errorf("%q: %q %v, want %q %v", c.cmd, args, ok, c.args, c.ok)
		}
	}
}

func TestLogcatArgsRejects(t *testing.T) {
	for _, args := range [][]string{
		{"-v", "brief"}, {"-T", "01-01 00:00:00.000"}, {"-b", "nope"}, {"--pid", "0"}, {"--pid"}, {"-x"}, {"tag"}, {"tag:Q"},
	} {
		if _, err := parseLogcatArgs(args); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// testLog is a small device log: two processes, three buffers, a
// multi-line entry.
func testLog() *logcat.Ring {
	r := logcat.NewRing(100)
	t0 := time.Date(2026, 11, 23, 19, 0, 0, 0, time.Local)
	add := func(ms, pid int, buf logcat.LogID, pri logcat.Priority, tag, msg string) {
		r.Append(logcat.Entry{Time: t0.Add(time.Duration(ms) * time.Millisecond), PID: int32(pid), TID: int32(pid + 1), UID: 10001,
			Buffer: buf, Priority: pri, Tag: tag, Message: msg})
	}
	add(1, 100, logcat.Main, logcat.Info, "App", "one")
	add(2, 612, logcat.System, logcat.Info, "ActivityManager", "Start proc 200:com.b/u0a2 for activity")
	add(3, 200, logcat.Main, logcat.Debug, "Other App", "größe ✓")
	add(4, 100, logcat.Crash, logcat.Error, "AndroidRuntime", "FATAL EXCEPTION: main\n\tat a.B.c(B.java:1)")
	add(5, 100, logcat.Main, logcat.Verbose, "App", "two")
	return r
}

func runLogcatString(t *testing.T, r *logcat.Ring, args ...string) string {
	t.Helper()
	var b bytes.Buffer
	if err := runLogcat(context.Background(), r, args, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRunLogcatDump(t *testing.T) {
	r := testLog()
	ts := func(ms int) string {
		return time.Date(2026, 11, 23, 19, 0, 0, ms*1e6, time.Local).Format("01-02 15:04:05.000")
	}
	got := runLogcatString(t, r, "-d")
	want := "--------- beginning of main\n" +
		ts(1) + "   100   101 I App     : one\n" +
		"--------- beginning of system\n" +
		ts(2) + "   612   613 I ActivityManager: Start proc 200:com.b/u0a2 for activity\n" +
		ts(3) + "   200   201 D Other App: größe ✓\n" +
		"--------- beginning of crash\n" +
		ts(4) + "   100   101 E AndroidRuntime: FATAL EXCEPTION: main\n" +
		ts(4) + "   100   101 E AndroidRuntime: \tat a.B.c(B.java:1)\n" +
		ts(5) + "   100   101 V App     : two\n"
	if got != want {
		t.Errorf("dump:\n%s\nwant:\n%s", got, want)
	}
	if got := runLogcatString(t, r, "-d", "--pid=100", "-b", "main"); got != ts(1)+"   100   101 I App     : one\n"+ts(5)+"   100   101 V App     : two\n" {
		t.Errorf("--pid -b main:\n%s", got)
	}
	if got := runLogcatString(t, r, "-t", "1"); !strings.HasSuffix(got, "V App     : two\n") || strings.Count(got, "\n") != 2 {
		t.Errorf("-t 1:\n%s", got)
	}
	if got := runLogcatString(t, r, "-d", "*:E"); !strings.Contains(got, "AndroidRuntime") || strings.Contains(got, ": one") {
		t.Errorf("*:E:\n%s", got)
	}
	if got := runLogcatString(t, r, "-d", "App:V", "*:S"); strings.Count(got, " App ") != 2 || strings.Contains(got, "ActivityManager") {
		t.Errorf("App:V *:S:\n%s", got)
	}
	if got := runLogcatString(t, r, "-d", "-v", "long"); !strings.HasPrefix(got, "logcat: format") {
		t.Errorf("bad format: %q", got)
	}
	// Binary: v4 records that decode to the ring's entries.
	bin := runLogcatString(t, r, "-B", "-d")
	d := logcat.NewBinaryDecoder(strings.NewReader(bin), logcat.BinaryOptions{})
	all, _, _ := r.Read(nil, 1, 0)
	for i := range all {
		var e logcat.Entry
		if err := d.Next(&e); err != nil {
			t.Fatalf("binary entry %d: %v", i, err)
		}
		if !e.Time.Equal(all[i].Time) || e.Message != all[i].Message || e.Tag != all[i].Tag || e.Buffer != all[i].Buffer || e.UID != 10001 {
			t.Errorf("binary entry %d: %+v, want %+v", i, e, all[i])
		}
	}
	var e logcat.Entry
	if err := d.Next(&e); err != io.EOF {
		t.Errorf("after the last binary entry: %v", err)
	}
}

func TestRunLogcatFollow(t *testing.T) {
	leakcheck.Check(t)
	r := testLog()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runLogcat(ctx, r, []string{"-T", "1", "-B", "--pid", "100"}, pw) }()
	dec := logcat.NewBinaryDecoder(pr, logcat.BinaryOptions{})
	var e logcat.Entry
	if err := dec.Next(&e); err != nil || e.Message != "two" {
		t.Fatalf("first: %v %q", err, e.Message)
	}
	r.Append(logcat.Entry{PID: 200, Tag: "x", Message: "other pid", Priority: logcat.Info})
	r.Append(logcat.Entry{PID: 100, Tag: "x", Message: "three", Priority: logcat.Info})
	if err := dec.Next(&e); err != nil || e.Message != "three" {
		t.Fatalf("followed: %v %q", err, e.Message)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("runLogcat: %v", err)
	}
	pr.Close()
}

// logFakeDevice is a fake device with a log.
type logFakeDevice struct {
	*fakeDevice
	ring *logcat.Ring
}

func (d logFakeDevice) Logcat() *logcat.Ring { return d.ring }

func startLogServer(t *testing.T, dev logFakeDevice) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(dev, Options{Logger: testLogger(t)})
	go s.Serve(ln)
	t.Cleanup(func() { s.Close(); dev.wait() })
	return ln.Addr().String()
}

// TestRealADBLogcat: the Debian adb client and server read the simulated
// device's log through the shell: service; what `adb logcat` prints is what
// the simulated logcat writes, in text and in binary.
func TestRealADBLogcat(t *testing.T) {
	a := newADBServer(t)
	a.start()
	r := testLog()
	addr := startLogServer(t, logFakeDevice{newFakeDevice(100, 200), r})
	if out, err := a.run("connect", addr); err != nil || !strings.Contains(out, "connected to") {
		t.Fatalf("adb connect: %v %s", err, out)
	}
	if out, err := a.run("-s", addr, "wait-for-device"); err != nil {
		t.Fatalf("wait-for-device: %v %s", err, out)
	}
	out, err := a.run("-s", addr, "logcat", "-d")
	if err != nil {
		t.Fatalf("adb logcat -d: %v %s", err, out)
	}
	if want := runLogcatString(t, r, "-d"); out != want {
		t.Errorf("adb logcat -d:\n%q\nwant\n%q", out, want)
	}
	out, _ = a.run("-s", addr, "logcat", "-d", "--pid=200")
	if !strings.Contains(out, "D Other App: größe ✓\n") || strings.Count(out, "\n") != 2 {
		t.Errorf("adb logcat --pid=200:\n%s", out)
	}
	bin, _ := a.run("-s", addr, "logcat", "-B", "-d")
	if want := runLogcatString(t, r, "-B", "-d"); bin != want {
		t.Errorf("adb logcat -B -d: %d bytes differ from the %d written", len(bin), len(want))
	}
}

// FuzzLogcatCommand: any shell command line is either not logcat, or
// logcat arguments that parse or are refused; nothing panics, and a
// refused line is answered with logcat's complaint.
func FuzzLogcatCommand(f *testing.F) {
	for _, s := range []string{
		`export ANDROID_LOG_TAGS="''"; exec logcat '-d'`,
		"logcat -B -b main,system,crash -T 10 --pid=42",
		"logcat -v threadtime App:V *:S",
		"logcat -t",
		`logcat "-b" 'all' -d`,
	} {
		f.Add(s)
	}
	r := testLog()
	f.Fuzz(func(t *testing.T, cmd string) {
		args, ok := logcatCommand(cmd)
		if !ok {
			return
		}
		if _, err := parseLogcatArgs(args); err != nil {
			var b bytes.Buffer
			if err := runLogcat(context.Background(), r, args, &b); err != nil || !strings.HasPrefix(b.String(), "logcat: ") {
				t.Fatalf("%q: %v %q", cmd, err, b.String())
			}
		}
	})
}
