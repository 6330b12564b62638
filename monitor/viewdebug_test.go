package monitor

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/viewtree"
)

func viewSession(t *testing.T, r *rig, i int) *Session {
	t.Helper()
	var s *Session
	waitFor(t, "session", 5*time.Second, func() bool {
		s = r.engine.Session(r.key(i))
		if s == nil {
			return false
		}
		vm, ok := r.store.VM(r.key(i))
		return ok && (len(vm.Features) > 0 || !vm.DDM && vm.VMIdent != "")
	})
	return s
}

// Every request against simulated VMs of three framework generations: the
// v2 dump (API 34 and no API), the text dump (API 19 ignores the flag),
// captures, profile, theme, invoke and set-layout with their FAILs, and
// the model keeping the latest dump.
func TestViewDebugAgainstSimulator(t *testing.T) {
	leakcheck.Check(t)
	specs := []sim.VMSpec{
		{PID: 301, App: "com.example.notes", Package: "com.example.notes", Family: sim.ART, API: 34, Seed: 1},
		{PID: 302, App: "com.example.old", Family: sim.Dalvik, API: 19, Seed: 2},
		{PID: 303, App: "com.example.plain", Family: sim.ART, Seed: 3},
	}
	r := startRig(t, specs, 0, SessionOptions{})
	ctx := context.Background()
	for i, want := range []viewtree.Format{viewtree.FormatV2, viewtree.FormatText, viewtree.FormatV2} {
		s := viewSession(t, r, i)
		wins, err := s.Views().ViewWindows(ctx)
		if err != nil || len(wins) == 0 || !strings.HasSuffix(wins[0], "") || !strings.Contains(wins[0], "MainActivity/android.view.ViewRootImpl@") {
			t.Fatalf("vm %d windows %q %v", i, wins, err)
		}
		tr, err := s.Views().DumpWindow(ctx, wins[0])
		if err != nil {
			t.Fatalf("vm %d dump: %v", i, err)
		}
		if tr.Format != want || tr.Truncated || tr.Count() < 50 {
			t.Fatalf("vm %d: format %s, %d views", i, tr.Format, tr.Count())
		}
		root := tr.Nodes[0]
		if root.Class != "com.android.internal.policy.DecorView" || root.Width != 1080 || root.Height != 2400 {
			t.Errorf("vm %d root %+v", i, root)
		}
		clock := findID(tr, "id/clock")
		if clock < 0 || !tr.Nodes[clock].HasText || !strings.HasPrefix(tr.Nodes[clock].Text, "12:") {
			t.Fatalf("vm %d: no clock text view", i)
		}
		label := findID(tr, "id/label")
		if label < 0 || tr.Nodes[label].Text != "Item 1\nsecond line" {
			t.Errorf("vm %d: label %q", i, tr.Nodes[label].Text)
		}
		if e := findID(tr, "id/empty"); e < 0 || tr.Nodes[e].Visibility != viewtree.Invisible {
			t.Errorf("vm %d: the empty view is not INVISIBLE", i)
		}
		vm, _ := r.store.VM(r.key(i))
		if len(vm.Views) != 1 || vm.Views[0].Tree != tr || vm.Views[0].Window != wins[0] {
			t.Errorf("vm %d: model views %+v", i, vm.Views)
		}
		if i == 1 {
			continue // API 19: the ops below are the same code
		}
		view := tr.Nodes[clock].Name()
		pic, err := s.Views().CaptureView(ctx, wins[0], view)
		if err != nil {
			t.Fatalf("capture: %v", err)
		}
		if cfg, err := png.DecodeConfig(bytes.NewReader(pic)); err != nil || cfg.Width != 272/4 {
			t.Errorf("capture: %v %+v", err, cfg)
		}
		layers, err := s.Views().CaptureLayers(ctx, wins[0])
		if err != nil || layers.Width != 1080 || len(layers.Views) < 40 || layers.Views[0].Name != root.Name() {
			t.Fatalf("layers: %v", err)
		}
		list := findID(tr, "id/list")
		prof, err := s.Views().ProfileView(ctx, wins[0], tr.Nodes[list].Name())
		if err != nil || len(prof) != tr.Subtree(list)-list {
			t.Fatalf("profile: %d timings for %d views, %v", len(prof), tr.Subtree(list)-list, err)
		}
		theme, err := s.Views().DumpTheme(ctx, wins[0])
		if err != nil || len(theme) == 0 || theme[0].Name != "android:colorPrimary" {
			t.Fatalf("theme %v %v", theme, err)
		}
		ret, err := s.Views().InvokeViewMethod(ctx, wins[0], view, "setVisibility", []ddm.ViewArg{{Type: 'I', Value: 8}})
		if err != nil {
			t.Fatalf("invoke: %v", err)
		}
		if i == 0 && (ret == nil || ret.Type != 'V') {
			t.Errorf("API 34 invoke returns %+v, want void", ret)
		}
		if i == 2 && ret != nil {
			t.Errorf("pre-34 invoke returned %+v", ret)
		}
		if err := s.Views().SetViewLayoutParam(ctx, wins[0], view, "width", 300); err != nil {
			t.Fatalf("set layout: %v", err)
		}
		tr2, err := s.Views().DumpWindow(ctx, wins[0])
		if err != nil {
			t.Fatal(err)
		}
		c2 := tr2.Find(view)
		if c2 < 0 || tr2.Nodes[c2].Visibility != viewtree.Gone || tr2.Nodes[c2].Width != 300 {
			t.Errorf("after setVisibility(GONE) and width=300: %+v", tr2.Nodes[c2])
		}
		if err := s.Views().DumpDisplayList(ctx, wins[0], view); err != nil {
			t.Errorf("display list: %v", err)
		}
		for name, tc := range map[string]struct {
			err  error
			want error
		}{
			"no such method": {errOnly(s.Views().InvokeViewMethod(ctx, wins[0], view, "frobnicate", nil)), viewtree.ErrNoSuchMethod},
			"wrong args":     {errOnly(s.Views().InvokeViewMethod(ctx, wins[0], view, "setEnabled", []ddm.ViewArg{{Type: 'I', Value: 1}})), viewtree.ErrNoSuchMethod},
			"no such view":   {errOnly(s.Views().CaptureView(ctx, wins[0], "android.widget.TextView@0")), viewtree.ErrNoSuchView},
			"no such window": {errOnly(s.Views().DumpWindow(ctx, "gone/android.view.ViewRootImpl@1")), viewtree.ErrNoSuchWindow},
			"bad field":      {s.Views().SetViewLayoutParam(ctx, wins[0], view, "gravity", 1), viewtree.ErrCallFailed},
			"threw":          {errOnly(s.Views().InvokeViewMethod(ctx, wins[0], view, "setVisibility", []ddm.ViewArg{{Type: 'I', Value: 3}})), viewtree.ErrCallFailed},
		} {
			if !errors.Is(tc.err, tc.want) {
				t.Errorf("vm %d %s: %v, want %v", i, name, tc.err, tc.want)
			}
		}
	}
}

func errOnly[T any](_ T, err error) error { return err }

func findID(tr *viewtree.Tree, id string) int {
	for i := range tr.Nodes {
		if tr.Nodes[i].ID == id {
			return i
		}
	}
	return -1
}

// A VM waiting for a debugger has no window; a plain JVM no view debugging.
func TestViewDebugNoWindows(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, []sim.VMSpec{
		{PID: 311, App: "com.example.wait", Family: sim.ART, API: 30, WaitingForDebugger: true, Seed: 1},
		{PID: 312, App: "java", Family: sim.JVM, Seed: 2},
		{PID: 313, App: "com.example.svc", Family: sim.ART, API: 33, NoWindows: true, Seed: 3},
	}, 0, SessionOptions{})
	ctx := context.Background()
	if _, err := viewSession(t, r, 0).Views().ViewWindows(ctx); !errors.Is(err, viewtree.ErrNoWindows) {
		t.Errorf("waiting VM: %v", err)
	}
	if _, err := viewSession(t, r, 1).Views().ViewWindows(ctx); !errors.Is(err, ErrNotDDM) {
		t.Errorf("JVM: %v", err)
	}
	if _, err := viewSession(t, r, 2).Views().DumpAllWindows(ctx); !errors.Is(err, viewtree.ErrNoWindows) {
		t.Errorf("service: %v", err)
	}
}

// An invoke ART leaves unanswered (success below API 34) ends after the
// short wait, and holds up nothing: a VULW sent while it waits is
// answered first.
func TestViewSilentOpsDoNotBlock(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, []sim.VMSpec{{PID: 321, App: "com.example.modern", Family: sim.ART, API: 30, Seed: 1}}, 0,
		SessionOptions{ViewSilentWait: 2 * time.Second})
	s := viewSession(t, r, 0)
	ctx := context.Background()
	wins, err := s.Views().ViewWindows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Views().DumpWindow(ctx, wins[0])
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Views().InvokeViewMethod(ctx, wins[0], tr.Nodes[0].Name(), "invalidate", nil)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // the invoke is on the wire
	if _, err := s.Views().ViewWindows(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("the silent invoke ended (%v) before the VULW sent after it: the wait is not bounded by ViewSilentWait", err)
	default:
	}
	if err := <-done; err != nil {
		t.Fatalf("silent success: %v", err)
	}
	// A silent request must not outlive a cancelled context either.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Views().InvokeViewMethod(cctx, wins[0], tr.Nodes[0].Name(), "invalidate", nil); err == nil {
		t.Error("a cancelled invoke reported success")
	}
}

// A dump taken while recording is in the recording and comes back on
// replay as the VM's tree of that window.
func TestViewDumpRecordedAndReplayed(t *testing.T) {
	leakcheck.Check(t)
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := startRig(t, []sim.VMSpec{{PID: 331, App: "com.example.rec", Family: sim.ART, API: 34, Seed: 4}}, 0, SessionOptions{Recorder: rec})
	s := viewSession(t, r, 0)
	wins, err := s.Views().ViewWindows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	live, err := s.Views().DumpWindow(context.Background(), wins[0])
	if err != nil {
		t.Fatal(err)
	}
	r.stop()
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	recording, err := ReadRecording(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var at time.Duration
	for _, x := range recording.Records {
		if x.Kind == record.KindViews {
			at = x.Time
		}
	}
	if at == 0 {
		t.Fatal("no views record")
	}
	store := NewStore(NewBus())
	p := NewReplay(recording, store)
	p.Seek(at)
	vm, ok := store.VM(r.key(0))
	if !ok || len(vm.Views) != 1 || vm.Views[0].Window != wins[0] || vm.Views[0].Tree == nil {
		t.Fatalf("replayed views %+v", vm.Views)
	}
	got := vm.Views[0].Tree
	if got.Count() != live.Count() || got.String() != live.String() {
		t.Errorf("replayed tree differs:\n%s\nlive:\n%s", got, live)
	}
	if errs := p.Errors(); len(errs) != 0 {
		t.Errorf("replay errors %v", errs)
	}
}

// On an Android 4.4 device (API 19, its level read from the device) the
// handler numbers profile 5 and invalidate 3 and cannot invoke anything
// else: the session sends the old numbers, and refuses what 4.4 lacks
// before asking.
func TestViewDebugAndroid44Numbering(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("kitkat")
	dev.SetAPI(19)
	dev.Add(sim.NewVM(sim.VMSpec{PID: 4400, App: "com.example.kitkat", Family: sim.Dalvik, API: 19, Seed: 7}))
	defer dev.Close()
	store := NewStore(NewBus())
	e := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond, MeminfoInterval: -1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx, Discovery{ADB: []Runner{&sim.Endpoints{Device: dev}}}) }()
	defer func() {
		cancel()
		<-done
	}()
	var key string
	waitFor(t, "the API level", 10*time.Second, func() bool {
		vms := store.VMs()
		if len(vms) == 1 && vms[0].API == 19 && len(vms[0].Features) > 0 {
			key = vms[0].Key
			return true
		}
		return false
	})
	s := e.Session(key)
	wins, err := s.Views().ViewWindows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Views().DumpWindow(ctx, wins[0])
	if err != nil || tr.Format != viewtree.FormatText {
		t.Fatalf("dump: %v", err)
	}
	list := findID(tr, "id/list")
	prof, err := s.Views().ProfileView(ctx, wins[0], tr.Nodes[list].Name())
	if err != nil || len(prof) != tr.Subtree(list)-list {
		t.Fatalf("profile as op 5: %d timings, %v", len(prof), err)
	}
	if _, err := s.Views().InvokeViewMethod(ctx, wins[0], tr.Nodes[list].Name(), "invalidate", nil); err != nil {
		t.Errorf("invalidate as op 3: %v", err)
	}
	if _, err := s.Views().InvokeViewMethod(ctx, wins[0], tr.Nodes[list].Name(), "requestLayout", nil); err != nil {
		t.Errorf("requestLayout as op 4: %v", err)
	}
	if _, err := s.Views().InvokeViewMethod(ctx, wins[0], tr.Nodes[list].Name(), "setVisibility", []ddm.ViewArg{{Type: 'I'}}); !errors.Is(err, viewtree.ErrUnknownOp) {
		t.Errorf("setVisibility on 4.4: %v", err)
	}
	if err := s.Views().SetViewLayoutParam(ctx, wins[0], tr.Nodes[list].Name(), "width", 1); !errors.Is(err, viewtree.ErrUnknownOp) {
		t.Errorf("set layout on 4.4: %v", err)
	}
}
