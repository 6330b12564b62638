package devicelog

import (
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/logcat"
)

func TestLogcatArgs(t *testing.T) {
	cases := []struct {
		binary bool
		o      StreamOptions
		sdk    int
		want   string
	}{
		{true, StreamOptions{Dump: true}, 34, "logcat -B -b main,system,crash -d"},
		{true, StreamOptions{Tail: 100, PID: 42}, 24, "logcat -B -b main,system,crash -T 100 --pid=42"},
		// Before Android 7 logcat has no --pid: everything comes, ddmtui filters.
		{true, StreamOptions{Tail: 100, PID: 42}, 23, "logcat -B -b main,system,crash -T 100"},
		{false, StreamOptions{PID: 42}, 0, "logcat -v threadtime -b main,system,crash"},
		{false, StreamOptions{Dump: true, Tail: 5}, 0, "logcat -v threadtime -b main,system,crash -d"},
		// Before Android 5: no crash buffer, no comma list, no -T.
		{false, StreamOptions{Tail: 5, PID: 42}, 19, "logcat -v threadtime -b main -b system"},
	}
	for _, c := range cases {
		if got := logcatArgs(c.binary, c.o, c.sdk); got != c.want {
			t.Errorf("%+v: %q, want %q", c, got, c.want)
		}
	}
}

func TestDeviceLogRouting(t *testing.T) {
	d := New(nil, "emu", 10)
	d.SetApp(7, "com.a")
	r := &skip{}
	t0 := time.Unix(100, 0)
	for _, e := range []logcat.Entry{
		{Time: t0, PID: 7, Message: "a1"},
		{Time: t0, PID: 8, Message: "unknown pid"},
		{Time: t0.Add(time.Millisecond), PID: 600, Tag: "ActivityManager", Message: "Start proc 9:com.a/u0a1 for activity"},
		{Time: t0.Add(2 * time.Millisecond), PID: 9, Message: "a2"},
	} {
		if d.route(&e, r) {
			d.ring.Append(e)
		}
	}
	got, _ := d.Cursor(Filter{App: "com.a"}).Read(nil, 0, time.Time{})
	if len(got) != 2 || got[0].Message != "a1" || got[1].Message != "a2" || got[0].Has(logcat.FlagRestarted) || !got[1].Has(logcat.FlagRestarted) {
		t.Fatalf("app view %+v", got)
	}
	// A re-opened stream replays the buffer: what is held is skipped, an
	// entry at the same time but new is kept.
	r = d.newSkip()
	kept := 0
	for _, e := range []logcat.Entry{
		{Time: t0, PID: 7, Message: "a1"},
		{Time: t0.Add(2 * time.Millisecond), PID: 9, Message: "a2"},
		{Time: t0.Add(2 * time.Millisecond), PID: 9, Message: "a2 twin at the same time"},
		{Time: t0.Add(3 * time.Millisecond), PID: 9, Message: "a3"},
		{Time: t0.Add(time.Millisecond), PID: 9, Message: "late, out of order, after the replay"},
	} {
		if d.route(&e, r) {
			kept++
		}
	}
	if kept != 3 {
		t.Fatalf("kept %d of the replay, want 3", kept)
	}
}
