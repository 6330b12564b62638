package scan

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/adb"
)

// appEntries: entries left out of a message are logged one line each;
// a device that repeats an unchanged list is ignored (no work per repeat)
// and said once; profileable-only processes become entries without JDWP.
func TestAppEntries(t *testing.T) {
	var logs bytes.Buffer
	conv := appEntries(slog.New(slog.NewTextHandler(&logs, nil)))
	list := adb.AppList{
		Processes: []adb.AppProcess{{PID: 10, Debuggable: true, Profileable: true}, {PID: 11, Profileable: true}, {PID: 12}},
		Dropped:   []string{"process entry 4 (offset 20): pid -3 is not a pid"},
	}
	got := conv(list)
	if len(got) != 2 || !got[0].jdwp || got[1].jdwp || got[1].app == nil || got[1].app.PID != 11 {
		t.Fatalf("entries %+v", got)
	}
	if !strings.Contains(logs.String(), `why="process entry 4 (offset 20): pid -3 is not a pid"`) {
		t.Fatalf("log:\n%s", logs.String())
	}
	for i := 0; i < 1000; i++ {
		if e := conv(adb.AppList{Processes: append([]adb.AppProcess(nil), list.Processes...)}); e != nil {
			t.Fatalf("repeat %d gave %+v", i, e)
		}
	}
	if n := strings.Count(logs.String(), "track-app repeats an unchanged list"); n != 1 {
		t.Fatalf("%d repeat warnings:\n%s", n, logs.String())
	}
	// A change counts again; an empty list is a change too.
	if e := conv(adb.AppList{}); e == nil || len(e) != 0 {
		t.Fatalf("empty list: %+v", e)
	}
	if e := conv(adb.AppList{}); e != nil {
		t.Fatalf("repeated empty list: %+v", e)
	}
	if e := conv(list); len(e) != 2 {
		t.Fatalf("after a change: %+v", e)
	}
}

func TestProcessSet(t *testing.T) {
	p := NewProcess(adb.AppProcess{PID: 5, Profileable: true})
	a, ch := p.Get()
	p.Set(adb.AppProcess{PID: 5, Profileable: true}) // unchanged: no wake-up
	select {
	case <-ch:
		t.Fatal("woken for an unchanged entry")
	default:
	}
	p.Set(adb.AppProcess{PID: 5, Profileable: true, ProcessName: "com.example"})
	<-ch
	if b, _ := p.Get(); b.ProcessName != "com.example" || a.ProcessName != "" {
		t.Fatalf("%+v %+v", a, b)
	}
}
