package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// logRig is a dashboard with one VM (com.a, pid 100) on a device whose log
// is a ring the test appends to.
type logRig struct {
	*harness
	ring *logcat.Ring
	dl   *devicelog.Log
	t0   time.Time
	n    int
}

func startLogRig(t *testing.T, w, h int, pal style.Palette, tweaks ...func(*Config)) *logRig {
	t.Helper()
	r := &logRig{ring: logcat.NewRing(100_000), t0: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	r.dl = devicelog.NewSource(func(ctx context.Context) (devicelog.EntryReader, error) {
		return devicelog.NewRingReader(ctx, r.ring), nil
	}, 0)
	r.harness = startCfg(t, w, h, pal, func(s *monitor.Store) {
		s.UpdateVM("adb:dev/100", func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = "sim:dev", 100, "com.a", true, time.Now()
		})
		s.UpdateVM("local:9", func(vm *monitor.VM) {
			vm.Source, vm.PID, vm.App, vm.DDM, vm.Connected = "local:9", 9, "com.local", true, time.Now()
		})
	}, func(c *Config) {
		c.Log = func(vm monitor.VM) (*devicelog.Log, string) {
			if vm.Source == "sim:dev" {
				return r.dl, ""
			}
			return nil, "local-port VM: no device log"
		}
		for _, f := range tweaks {
			f(c)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.dl.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

func (r *logRig) add(pid int32, pri logcat.Priority, tag, msg string) {
	r.n++
	r.ring.Append(logcat.Entry{Time: r.t0.Add(time.Duration(r.n) * time.Millisecond), PID: pid, TID: pid, Priority: pri, Tag: tag, Message: msg})
}

// onUI runs f on the UI goroutine.
func (r *logRig) onUI(f func(p *logPane)) {
	r.dash.App().QueueUpdate(func() { f(r.dash.logP) })
}

// selectApp selects com.a (the VM list is sorted: adb before local? find it).
func (r *logRig) selectApp() {
	r.onUI(func(p *logPane) { p.env.nav.selectVM("adb:dev/100") })
}

func lineWith(screen, sub string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

func TestLogPaneFollowsAppAcrossRestart(t *testing.T) {
	r := startLogRig(t, 120, 40, style.Palette{NoColor: true})
	r.add(100, logcat.Info, "A", "hello one")
	r.add(300, logcat.Info, "B", "other app line")
	r.add(100, logcat.Warn, "A", "careful \x1b[31m red")
	r.selectApp()
	r.key(tcell.KeyRune, 'l')
	r.waitText("hello one")
	s := strings.Join(r.text(), "\n")
	if strings.Contains(s, "other app line") {
		t.Fatal("another process's line shows in the VM's log")
	}
	if l := lineWith(s, "hello one"); !strings.Contains(l, "  100   100 I A: hello one") {
		t.Fatalf("level letter column missing: %q", l)
	}
	if l := lineWith(s, "careful"); !strings.Contains(l, `W A: careful \x1b[31m red`) {
		t.Fatalf("VM text not escaped: %q", l)
	}
	// The app restarts as pid 200: its first line is marked.
	r.dl.SetApp(200, "com.a")
	r.add(200, logcat.Info, "A", "second life")
	r.add(200, logcat.Error, "AndroidRuntime", "FATAL EXCEPTION: main\nProcess: com.a, PID: 200\njava.lang.IllegalStateException: x\n\tat a.b.C.d(C.java:1)")
	r.waitText("second life")
	r.waitText("a.b.C.d(C.java:1)")
	s = strings.Join(r.text(), "\n")
	if l := lineWith(s, "second life"); !strings.Contains(l, "║>") {
		t.Fatalf("restart not marked: %q", l)
	}
	if l := lineWith(s, "FATAL EXCEPTION"); !strings.Contains(l, "║!") {
		t.Fatalf("crash not marked: %q", l)
	}
	// L: the whole device, other processes included.
	r.key(tcell.KeyRune, 'L')
	r.waitText("other app line")
	r.waitText("device sim:dev")
	// There the app of each line stands beside its pid; "-" where the
	// pid's app is not known (issue 38: the package was missing).
	s = strings.Join(r.text(), "\n")
	if l := lineWith(s, "second life"); !strings.Contains(l, "  200 com.a   200 I A: second life") {
		t.Fatalf("whole-device line without its app: %q", l)
	}
	if l := lineWith(s, "other app line"); !strings.Contains(l, "  300 -   300 I B: other app line") {
		t.Fatalf("a line of an unknown pid: %q", l)
	}
	// L again closes the pane (issue 29 #15), l then opens the app's log.
	r.key(tcell.KeyRune, 'L')
	r.waitGone("other app line")
	r.waitGone("hello one")
	r.key(tcell.KeyRune, 'l')
	r.waitText("hello one")
	if strings.Contains(strings.Join(r.text(), "\n"), "other app line") {
		t.Fatal("l after L shows the device's log, not the app's")
	}
}

func TestLogPaneQueryFollowSaveCrash(t *testing.T) {
	r := startLogRig(t, 120, 40, style.Palette{})
	r.add(100, logcat.Info, "A", "hello one")
	r.add(100, logcat.Error, "A", "boom one")
	r.add(100, logcat.Error, "AndroidRuntime", "FATAL EXCEPTION: main")
	r.add(100, logcat.Debug, "A", "after the crash")
	r.selectApp()
	r.key(tcell.KeyRune, 'l')
	r.waitText("after the crash")

	r.key(tcell.KeyRune, '/')
	r.runes("level:E")
	r.key(tcell.KeyEnter, 0)
	r.waitGone("hello one")
	r.waitText("boom one")
	r.waitText("/level:E")

	r.key(tcell.KeyRune, '/')
	r.runes("level:Q")
	r.key(tcell.KeyEnter, 0)
	r.waitText("unknown level")
	r.waitText("boom one") // the old query stays

	// Scrolling up pauses; new lines are counted; End resumes.
	r.key(tcell.KeyRune, 'k')
	r.waitText("paused, 0 new")
	r.add(100, logcat.Error, "A", "boom two")
	r.waitText("paused, 1 new")
	r.key(tcell.KeyEnd, 0)
	r.waitText("following")

	// [ jumps to the crash banner.
	// The key and the look at the selection travel on different queues of
	// the application, so wait for the key to have been handled.
	r.key(tcell.KeyRune, '[')
	var msg string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got := make(chan string, 1)
		r.onUI(func(p *logPane) { got <- p.all[p.shown[p.sel]].Message })
		if msg = <-got; msg == "FATAL EXCEPTION: main" || time.Now().After(deadline) {
			break
		}
	}
	if msg != "FATAL EXCEPTION: main" {
		t.Fatalf("[ went to %q", msg)
	}
	what, text := "", ""
	r.onUI(func(p *logPane) { what, text = p.CopyText() })
	if what != "log line" || !strings.HasSuffix(text, "E AndroidRuntime: FATAL EXCEPTION: main") {
		t.Fatalf("CopyText = %q, %q", what, text)
	}

	// s saves the filtered view (s is the stack pane's key elsewhere).
	r.key(tcell.KeyRune, 's')
	r.waitText("lines saved to")
	var saved string
	r.onUI(func(p *logPane) { saved = p.saved })
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "\n"); got != 3 || strings.Contains(string(b), "hello one") {
		t.Fatalf("saved %d lines:\n%s", got, b)
	}
	if filepath.Dir(saved) != r.dash.cfg.TraceDir {
		t.Fatalf("saved to %s, not the out dir", saved)
	}
}

func TestLogPaneLocalVM(t *testing.T) {
	r := startLogRig(t, 80, 24, style.Palette{})
	r.onUI(func(p *logPane) { p.env.nav.selectVM("local:9") })
	r.key(tcell.KeyRune, 'l')
	r.waitText("local-port VM: no device log")
}

// The query is applied in chunks: a turn of the UI loop filters at most
// logChunk entries, and the rest follow.
func TestLogPaneRefiltersInChunks(t *testing.T) {
	r := startLogRig(t, 120, 40, style.Palette{})
	const n = 50_000
	for i := range n {
		r.add(100, logcat.Info, "A", "line "+strings.Repeat("x", i%7))
	}
	r.selectApp()
	r.key(tcell.KeyRune, 'l')
	var got int
	deadline := time.Now().Add(10 * time.Second)
	for got != n && time.Now().Before(deadline) {
		r.onUI(func(p *logPane) { got = len(p.all) })
		time.Sleep(10 * time.Millisecond)
	}
	var first int
	r.onUI(func(p *logPane) {
		p.later = func(func()) {} // keep the rest for the test to drive
		p.SetFilter("message~:x{6}$")
		first = p.done
	})
	if first != logChunk {
		t.Fatalf("first turn filtered %d entries, want %d", first, logChunk)
	}
	var shown, done int
	r.onUI(func(p *logPane) {
		for p.done < len(p.all) {
			p.step()
		}
		shown, done = len(p.shown), p.done
	})
	if want := n / 7; done != n || (shown != want && shown != want+1) {
		t.Fatalf("shown %d of %d filtered, want about %d", shown, done, want)
	}
}

func TestQueryWords(t *testing.T) {
	got := strings.Join(queryWords(`crash tag:AndroidRuntime -tag:x level:E message:"boom" tag~:re`), ",")
	if got != "crash,androidruntime,boom" {
		t.Fatalf("queryWords = %q", got)
	}
}

func TestLogPaneWrapAndSearch(t *testing.T) {
	r := startLogRig(t, 120, 40, style.Palette{})
	long := "start " + strings.Repeat("filler ", 20) + "END-OF-LINE"
	r.add(100, logcat.Info, "A", long)
	r.add(100, logcat.Info, "A", "needle one")
	r.add(100, logcat.Info, "A", "hay")
	r.add(100, logcat.Info, "A", "needle two")
	r.add(100, logcat.Info, "A", "hay again")
	r.selectApp()
	r.key(tcell.KeyRune, 'l')
	r.waitText("hay again")
	if strings.Contains(strings.Join(r.text(), "\n"), "END-OF-LINE") {
		t.Fatal("a long line shows whole without wrap")
	}
	r.key(tcell.KeyRune, 'w')
	r.waitText("END-OF-LINE")
	r.waitText("· wrap")
	// n/N go between lines with the query's words.
	r.key(tcell.KeyRune, '/')
	r.runes("needle | hay")
	r.key(tcell.KeyEnter, 0)
	r.waitText("/needle | hay")
	r.onUI(func(p *logPane) { p.words = []string{"needle"} })
	sel := func() string {
		var m string
		r.onUI(func(p *logPane) { m = p.all[p.shown[p.sel]].Message })
		return m
	}
	// A key is handled on the UI goroutine some time after it is injected:
	// wait for the line it moves to (under load 15 ms is not always enough).
	want := func(key rune, msg string) {
		t.Helper()
		r.key(tcell.KeyRune, key)
		deadline := time.Now().Add(5 * time.Second)
		for sel() != msg {
			if time.Now().After(deadline) {
				t.Fatalf("%c went to %q, want %q", key, sel(), msg)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	want('N', "needle two")
	want('N', "needle one")
	want('n', "needle two")
}

func TestLogPaneHighlightsQueryWords(t *testing.T) {
	r := startLogRig(t, 120, 40, style.Palette{NoColor: true})
	r.add(100, logcat.Info, "A", "find the needle here")
	r.selectApp()
	r.key(tcell.KeyRune, 'l')
	r.waitText("needle here")
	r.key(tcell.KeyRune, '/')
	r.runes("needle")
	r.key(tcell.KeyEnter, 0)
	r.waitText("/needle")
	st, ok := r.styleOf("needle here")
	if !ok {
		t.Fatal("line not found")
	}
	if _, _, attr := st.Decompose(); attr&tcell.AttrUnderline == 0 || attr&tcell.AttrBold == 0 {
		t.Fatalf("query word not highlighted: attrs %v", attr)
	}
	st, _ = r.styleOf("here")
	if _, _, attr := st.Decompose(); attr&tcell.AttrUnderline != 0 {
		t.Fatal("the rest of the line is highlighted too")
	}
}
