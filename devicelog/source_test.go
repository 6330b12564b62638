package devicelog_test

import (
	"context"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// A Log over a ring (the demo's in-process device): it reads what
// the ring holds and what comes later, routes by pid, and a view by app
// and pid also gets the pid's lines from before the name was known.
func TestSourceLogFollowsRing(t *testing.T) {
	leakcheck.Check(t)
	src := logcat.NewRing(100)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	add := func(i int, pid int32, msg string) {
		src.Append(logcat.Entry{Time: t0.Add(time.Duration(i) * time.Millisecond), PID: pid, TID: pid, Priority: logcat.Info, Tag: "T", Message: msg})
	}
	add(1, 100, "before the name")
	add(2, 300, "another app")
	streams := devicelog.NewLogs(0)
	defer streams.Close()
	dl := streams.Source("sim:x", func(ctx context.Context) (devicelog.EntryReader, error) {
		return devicelog.NewRingReader(ctx, src), nil
	})
	if again := streams.Source("sim:x", nil); again != dl {
		t.Fatal("a second Source call started another log")
	}
	waitFor(t, "the first entries", 5*time.Second, func() bool { return dl.Ring().Len() == 2 })
	dl.SetApp(100, "com.a")
	add(3, 100, "named")
	dl.SetApp(200, "com.a")
	add(4, 200, "restarted")
	waitFor(t, "the later entries", 5*time.Second, func() bool { return dl.Ring().Len() == 4 })
	got, _ := dl.Cursor(devicelog.Filter{App: "com.a", PID: 100}).Read(nil, 0, time.Time{})
	var msgs []string
	for _, e := range got {
		msgs = append(msgs, e.Message)
	}
	if len(got) != 3 || msgs[0] != "before the name" || msgs[2] != "restarted" || !got[2].Has(logcat.FlagRestarted) || got[1].Has(logcat.FlagRestarted) {
		t.Fatalf("app view: %q (flags %v)", msgs, got)
	}
	if got, _ := dl.Cursor(devicelog.Filter{App: "com.a"}).Read(nil, 0, time.Time{}); len(got) != 2 {
		t.Fatalf("by name alone: %d entries, want 2 (the pid's unnamed line is not the app's)", len(got))
	}
	if _, n, err := dl.Status(); n != 1 || err != nil {
		t.Fatalf("status: %d streams, %v", n, err)
	}
}
