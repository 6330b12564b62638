package scan

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/internal/budget"
)

// appEntries: entries left out of a message are logged one line each;
// a device that repeats an unchanged list is ignored (no work per repeat)
// and said once; profileable-only processes become entries without JDWP.
func TestAppEntries(t *testing.T) {
	var logs bytes.Buffer
	conv := appEntries(slog.New(slog.NewTextHandler(&logs, nil)), nil).convert
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

// A device's kept track-app list is charged to the lists' budget (the list
// and its entries); a new list replaces the old one's charge; a list that
// does not fit is left out with a log line and the last list stays; the
// end of the stream gives the bytes back.
func TestAppListsCharged(t *testing.T) {
	var logs bytes.Buffer
	b := budget.New(0)
	lists := appEntries(slog.New(slog.NewTextHandler(&logs, nil)), b)
	small := adb.AppList{Processes: []adb.AppProcess{{PID: 10, Debuggable: true, ProcessName: "com.example.mail", PackageNames: []string{"com.example.mail"}}}}
	if e := lists.convert(small); len(e) != 1 {
		t.Fatalf("entries %+v", e)
	}
	want := 2 * int64(appProcessBytes+len("com.example.mail")+16+len("com.example.mail"))
	if b.Used() != want {
		t.Fatalf("a list of one process: %d bytes charged, want %d", b.Used(), want)
	}
	// 30,000 entries in one message (issue 37 #9), past a 1 MiB share.
	b.SetLimit(1 << 20)
	many := adb.AppList{}
	for i := range 30_000 {
		many.Processes = append(many.Processes, adb.AppProcess{PID: 100 + i, Profileable: true, ProcessName: "com.example.p"})
	}
	if e := lists.convert(many); e != nil || b.Used() != want {
		t.Fatalf("a list past the budget: %d entries, %d bytes charged", len(e), b.Used())
	}
	if !strings.Contains(logs.String(), "track-app list left out: more than the memory budget has left") {
		t.Fatalf("log:\n%s", logs.String())
	}
	other := adb.AppList{Processes: []adb.AppProcess{{PID: 11, Profileable: true}}}
	if e := lists.convert(other); len(e) != 1 || b.Used() != 2*appProcessBytes {
		t.Fatalf("a new list: %d entries, %d bytes charged", len(e), b.Used())
	}
	lists.release()
	if b.Used() != 0 {
		t.Fatalf("%d bytes charged after release", b.Used())
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
