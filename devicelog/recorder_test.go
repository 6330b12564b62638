package devicelog_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// takenLog is a devicelog.Recorder that keeps what it is given.
type takenLog struct {
	mu      sync.Mutex
	devices []string
	msgs    []string
	apps    []string
}

func (r *takenLog) Log(now time.Time, device string, e *logcat.Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.devices = append(r.devices, device)
	r.msgs = append(r.msgs, e.Message)
	r.apps = append(r.apps, e.App)
}

func (r *takenLog) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.msgs)
}

// The recorder passed to Logs takes each kept entry once, routed (its app
// set from the ActivityManager's line), under the device's name; a re-opened stream's resent entries are
// not recorded again; a log started before the recorder was set records
// nothing.
func TestLogsRecordKeptEntries(t *testing.T) {
	leakcheck.Check(t)
	src := logcat.NewRing(100)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	add := func(i int, msg string) {
		src.Append(logcat.Entry{Time: t0.Add(time.Duration(i) * time.Millisecond), PID: 100, TID: 100, Priority: logcat.Info, Tag: "T", Message: msg})
	}
	src.Append(logcat.Entry{Time: t0, PID: 600, TID: 600, Priority: logcat.Info, Tag: "ActivityManager", Message: "Start proc 100:com.a/u0a1 for activity"})
	add(1, "one")
	logs := devicelog.NewLogs(0)
	defer logs.Close()
	before := logs.Source("sim:before", func(ctx context.Context) (devicelog.EntryReader, error) {
		return devicelog.NewRingReader(ctx, src), nil
	})
	rec := &takenLog{}
	logs.Recorder = rec
	opens := 0
	dl := logs.Source("sim:x", func(ctx context.Context) (devicelog.EntryReader, error) {
		opens++
		if opens > 2 {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		// The first stream ends after the buffer; the second resends it.
		r := devicelog.NewRingReader(ctx, src)
		if opens == 1 {
			return &firstN{r: r, n: 2}, nil
		}
		return r, nil
	})
	waitFor(t, "the first two entries", 5*time.Second, func() bool { return rec.len() == 2 })
	waitFor(t, "the second stream", 5*time.Second, func() bool { _, n, _ := dl.Status(); return n == 2 })
	add(2, "two")
	waitFor(t, "the third entry", 5*time.Second, func() bool { return rec.len() == 3 })
	time.Sleep(50 * time.Millisecond) // a resent entry would come now
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.msgs) != 3 || rec.msgs[1] != "one" || rec.msgs[2] != "two" {
		t.Fatalf("recorded %q", rec.msgs)
	}
	for i, app := range []string{"", "com.a", "com.a"} { // the ActivityManager's line is its own
		if rec.devices[i] != "sim:x" || rec.apps[i] != app {
			t.Errorf("entry %d recorded under %q with app %q, want sim:x and %q", i, rec.devices[i], rec.apps[i], app)
		}
	}
	if before.Ring().Len() != 3 {
		t.Errorf("the log started before the recorder holds %d entries, want 3", before.Ring().Len())
	}
}

// firstN reads n entries, then ends as a dropped stream does.
type firstN struct {
	r *devicelog.RingReader
	n int
}

func (f *firstN) Next(e *logcat.Entry) error {
	if f.n == 0 {
		return errors.New("dropped")
	}
	f.n--
	return f.r.Next(e)
}

func (f *firstN) Close() error { return nil }

// A fed log (a replay's) is ready at once, routes what it is given as a
// stream's entries are, and keeps every entry, even one the device would
// have resent: there is no stream to de-duplicate.
func TestFedLog(t *testing.T) {
	dl := devicelog.NewFed(10)
	select {
	case <-dl.Ready():
	default:
		t.Fatal("a fed log is not ready at once")
	}
	t0 := time.Unix(100, 0)
	for _, e := range []logcat.Entry{
		{Time: t0, PID: 600, Tag: "ActivityManager", Message: "Start proc 9:com.a/u0a1 for activity"},
		{Time: t0.Add(time.Millisecond), PID: 9, Message: "a"},
		{Time: t0.Add(time.Millisecond), PID: 9, Message: "a"},
	} {
		dl.Add(&e)
	}
	got, _ := dl.Cursor(devicelog.Filter{App: "com.a"}).Read(nil, 0, time.Time{})
	if len(got) != 2 || got[0].App != "com.a" || got[1].Message != "a" {
		t.Fatalf("fed log's app view: %+v", got)
	}
	if dl.Ring().Cap() != 10 {
		t.Errorf("ring of %d entries, want 10", dl.Ring().Cap())
	}
}
