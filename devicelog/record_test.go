package devicelog_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// sameEntry compares what a recording keeps of an entry (App and the
// crash flags are set again by the log that takes it).
func sameEntry(a, b *logcat.Entry) bool {
	return a.Time.Equal(b.Time) && a.PID == b.PID && a.TID == b.TID && a.UID == b.UID && a.Buffer == b.Buffer &&
		a.Priority == b.Priority && a.Tag == b.Tag && a.Message == b.Message &&
		a.Flags&logcat.FlagTruncated == b.Flags&logcat.FlagTruncated
}

// The recorder passed in: a device log read through the real adb server
// from the simulated device, recorded by a monitor.Recorder, replays (by a
// monitor.Replay) to the very entries the live log held: time, pid, tid,
// uid, buffer, priority, tag, message, and the app and crash flags its
// routing gave them.
func TestDeviceLogRecordReplay(t *testing.T) {
	leakcheck.Check(t)
	r := startLogRig(t)
	r.steps(10)
	var buf bytes.Buffer
	rec, err := monitor.NewRecorder(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	ls := devicelog.NewLogs(0)
	ls.Recorder = rec
	dl := ls.Device(r.srv.Client(), r.addr)
	<-dl.Ready()
	deadline := time.Now().Add(30 * time.Second)
	for len(startedAs(r.dev, "com.example.maps")) < 2 { // a crash and a restart in the log
		if time.Now().After(deadline) {
			t.Fatal("the maps app did not restart")
		}
		r.steps(10)
	}
	live := sameLog(t, dl, r.dev)
	ls.Close()
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	size := buf.Len()
	recording, err := monitor.ReadRecording(&buf)
	if err != nil || recording.Tail != nil {
		t.Fatal(err, recording.Tail)
	}
	p := monitor.NewReplay(recording, monitor.NewStore(monitor.NewBus()))
	p.Seek(recording.Duration())
	rl, why := p.Log(monitor.VM{Source: "adb:" + r.addr})
	if rl == nil {
		t.Fatal(why)
	}
	got, _, _ := rl.Ring().Read(nil, 1, 0)
	if len(got) != len(live) {
		t.Fatalf("replayed %d entries, live %d", len(got), len(live))
	}
	crashes := 0
	for i := range live {
		g, w := &got[i], &live[i]
		if !sameEntry(g, w) || g.App != w.App || g.Flags != w.Flags {
			t.Fatalf("entry %d:\n replayed %+v\n     live %+v", i, *g, *w)
		}
		if g.Has(logcat.FlagCrashStart) {
			crashes++
		}
	}
	if crashes == 0 {
		t.Error("no crash in the replayed log")
	}
	t.Logf("%d entries, %d crashes, recording of %d bytes", len(got), crashes, size)
}
