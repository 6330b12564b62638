package tui

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/tui/style"
)

// waitLong is waitFor with a longer deadline (a whole heap dump).
func (hs *harness) waitLong(what string, d time.Duration, cond func(screen string) bool) string {
	hs.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := strings.Join(hs.text(), "\n")
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			hs.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Issue 25 item 2: H on an Android 14 VM (which never answers HPDS) once
// said "0B received…" for minutes. Through the real engine and the
// simulated device, as `ddmtui demo` shows it, the dashboard takes the
// same road as `ddmtui hprof` — am dumpheap, a sync pull streamed to a
// temporary file, validation, rename — and keeps Android's HPROF, which
// the viewer analyses: its leaks are `hprof analyze`'s on that file, the
// scene's planted ones, and not the destroyed activity only a ROOT
// UNREACHABLE record names (a converted dump made it a rooted false
// leak). Progress stays out of the message history.
func TestHeapDumpKeyOnModernDevice(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice(sim.ModernDemoSerial)
	dev.SetAPI(34)
	dev.Add(sim.NewVM(sim.VMSpec{PID: 5200, App: "com.example.chat", Package: "com.example.chat", Family: sim.ART, API: 34, HeapBytes: 4 << 20, Seed: 9}))
	defer dev.Close()
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{ProbeTimeout: 200 * time.Millisecond, RequestTimeout: time.Second,
		HeapDumpWait: 300 * time.Millisecond, MeminfoInterval: -1})
	ctx, cancel := context.WithCancel(context.Background())
	engineDone := make(chan struct{})
	go func() {
		defer close(engineDone)
		engine.Run(ctx, monitor.Discovery{ADB: []monitor.Runner{&sim.Endpoints{Device: dev}}})
	}()
	defer func() { cancel(); <-engineDone }()

	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dash := New(Config{Store: store, Controller: EngineController{Engine: engine}, Palette: style.Palette{}, Discovery: "test",
		Screen: screen, FrameInterval: 5 * time.Millisecond, TraceDir: dir})
	screen.SetSize(120, 40)
	done := make(chan error, 1)
	go func() { done <- dash.Run(ctx) }()
	defer func() { cancel(); <-done }()
	hs := &harness{t: t, screen: screen, dash: dash}
	hs.waitLong("the Android 14 VM", 10*time.Second, func(s string) bool { return strings.Contains(s, "com.example.chat") })
	hs.waitLong("its API level", 10*time.Second, func(string) bool {
		vms := store.VMs()
		return len(vms) == 1 && vms[0].API == 34 && vms[0].DDM
	})
	hs.key(tcell.KeyRune, 'H')
	screenText := hs.waitLong("the saved dump", 60*time.Second, func(s string) bool {
		failed := strings.Contains(s, "heap dump of com.example.chat:") && !strings.Contains(s, "received…") && !strings.Contains(s, "waiting for the VM…")
		return strings.Contains(s, ".hprof — 1.0.3 · ") || failed // saved: the heap dump viewer opens on it
	})
	files, _ := filepath.Glob(filepath.Join(dir, "com.example.chat-*.hprof"))
	if len(files) != 1 {
		t.Fatalf("saved dumps: %v; screen:\n%s", files, screenText)
	}
	checkViewerLeaks(hs, files[0], "com.example.chat")
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the directory, want the dump alone", len(ents))
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := hprof.Summarize(bufio.NewReader(f))
	if err != nil || sum.Header.Version != hprof.VersionAndroid || len(sum.Heaps) < 2 {
		t.Fatalf("saved dump: %v %+v", err, sum)
	}
	hs.key(tcell.KeyRune, 'q') // leaves the heap dump viewer
	hs.key(tcell.KeyRune, 'M')
	hist := hs.waitLong("the message history", 5*time.Second, func(s string) bool { return strings.Contains(s, "Messages") })
	if strings.Count(hist, "dumping the heap of com.example.chat") != 1 || strings.Contains(hist, "received…") ||
		strings.Count(hist, "heap dump saved to") != 1 || !strings.Contains(hist, "Android HPROF; for MAT: ddmtui hprof convert") {
		t.Errorf("message history:\n%s", hist)
	}
}

// The cancel-save key ends a heap dump under way: nothing is left in the
// directory, and the status line says so.
func TestCancelSaveKey(t *testing.T) {
	ctrl := &slowController{}
	hs := startCfg(t, 120, 40, style.Palette{}, twoVMs, func(c *Config) { c.Controller = ctrl })
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'C')
	hs.waitText("nothing is being saved")
	hs.key(tcell.KeyRune, 'H')
	hs.waitFor("the dump to start", func(string) bool { return ctrl.called("hpds local:8000") })
	hs.key(tcell.KeyRune, 'C')
	hs.waitText("cancelling the heap dump of com.example.mail")
	hs.waitText("heap dump of com.example.mail cancelled; nothing saved")
	if ents, _ := os.ReadDir(hs.dash.cfg.TraceDir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	hs.key(tcell.KeyRune, '?')
	// The help page is longer than the screen: scroll it (j) until the line shows.
	hs.waitFor("the cancel-save line in the help", func(s string) bool {
		if strings.Contains(s, "cancel the heap dump or trace being saved") {
			return true
		}
		hs.key(tcell.KeyRune, 'j')
		return false
	})
}

// checkViewerLeaks checks the open heap viewer's leaks against `hprof
// analyze` on file (the same analysis of the same Android dump) and
// against the scene the simulator planted in it; the HistoryActivity that
// only ROOT UNREACHABLE names is not among them, unreachable, and would
// be a leak had the dump been converted.
func checkViewerLeaks(hs *harness, file, pkg string) {
	t := hs.t
	t.Helper()
	var shown []heapdump.Leak
	hs.waitLong("the viewer's leaks", 30*time.Second, func(string) bool {
		hs.dash.App().QueueUpdate(func() {
			if v := hs.dash.ov.heapV; v != nil && v.Model() != nil {
				shown = v.Model().Leaks()
			}
		})
		return shown != nil
	})
	h, err := heapdump.Open(file, heapdump.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	type leak struct {
		id                  uint64
		class, kind, reason string
		depth               int
		retained            uint64
	}
	list := func(h *heapdump.Heap, ls []heapdump.Leak) []leak {
		var out []leak
		for _, l := range ls {
			out = append(out, leak{h.ID(l.Node), h.ClassName(l.Node), l.Kind, l.Reason, l.Depth, h.Retained(l.Node)})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
		return out
	}
	viewer, analyzed := list(hs.dash.ov.heapV.Model().Heap, shown), list(h, h.Leaks().Find())
	if !reflect.DeepEqual(viewer, analyzed) {
		t.Errorf("the viewer's leaks %+v\nhprof analyze's %+v", viewer, analyzed)
	}
	_, exp, err := scene.Android(scene.Options{API: 34, Package: pkg})
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, l := range exp.Leaks {
		want = append(want, l.Class+" "+l.Reason)
	}
	for _, l := range analyzed {
		got = append(got, l.class+" "+l.reason)
	}
	sort.Strings(want)
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("leaks %q, planted %q", got, want)
	}
	history := h.Instances(pkg+".HistoryActivity", "")
	if len(history) != 1 || h.Reachable(history[0]) || h.Retained(history[0]) != 0 {
		t.Fatalf("HistoryActivity (ROOT UNREACHABLE only): %v", history)
	}
	for _, l := range analyzed {
		if l.class == pkg+".HistoryActivity" {
			t.Errorf("a false leak: %+v", l)
		}
	}
	// Converted, as the dashboard once saved it, the same dump reports it:
	// what the checks above tell apart.
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	std, err := hprof.ToStandard(raw)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := heapdump.Analyze(std, heapdump.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	if got := list(hc, hc.Leaks().Find()); len(got) != len(analyzed)+1 {
		t.Errorf("converted: %d leaks, want the %d and HistoryActivity", len(got), len(analyzed))
	}
}
