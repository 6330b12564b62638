package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/tui/viewsview"
	"github.com/ddmtui/ddmtui/viewtree"
)

// ViewController is what the views pane (V) asks of a VM. EngineController
// implements it; a Controller without it has no views pane (a replay shows
// the dumps it recorded instead).
type ViewController interface {
	ViewWindows(ctx context.Context, key string) ([]string, error)
	DumpWindow(ctx context.Context, key, window string) (*viewtree.Tree, error)
	CaptureView(ctx context.Context, key, window, view string) ([]byte, error)
	InvokeViewMethod(ctx context.Context, key, window, view, method string, args []ddm.ViewArg) (*viewtree.Return, error)
	ProfileView(ctx context.Context, key, window, view string) ([]viewtree.Timing, error)
}

func (c EngineController) session(key string) (*monitor.ViewDebugger, error) {
	if s := c.Engine.Session(key); s != nil {
		return s.Views(), nil
	}
	return nil, errNoSession
}

// ViewWindows lists the VM's windows (VULW).
func (c EngineController) ViewWindows(ctx context.Context, key string) ([]string, error) {
	s, err := c.session(key)
	if err != nil {
		return nil, err
	}
	return s.ViewWindows(ctx)
}

// DumpWindow dumps a window's view tree (VURT).
func (c EngineController) DumpWindow(ctx context.Context, key, window string) (*viewtree.Tree, error) {
	s, err := c.session(key)
	if err != nil {
		return nil, err
	}
	return s.DumpWindow(ctx, window)
}

// CaptureView captures a view as PNG (VUOP 1).
func (c EngineController) CaptureView(ctx context.Context, key, window, view string) ([]byte, error) {
	s, err := c.session(key)
	if err != nil {
		return nil, err
	}
	return s.CaptureView(ctx, window, view)
}

// InvokeViewMethod calls a method on a view (VUOP 4).
func (c EngineController) InvokeViewMethod(ctx context.Context, key, window, view, method string, args []ddm.ViewArg) (*viewtree.Return, error) {
	s, err := c.session(key)
	if err != nil {
		return nil, err
	}
	return s.InvokeViewMethod(ctx, window, view, method, args)
}

// ProfileView profiles a view's subtree (VUOP 3).
func (c EngineController) ProfileView(ctx context.Context, key, window, view string) ([]viewtree.Timing, error) {
	s, err := c.session(key)
	if err != nil {
		return nil, err
	}
	return s.ProfileView(ctx, window, view)
}

// liveViews is the views pane's source for a live VM.
type liveViews struct {
	c   ViewController
	key string
}

func (l liveViews) Windows(ctx context.Context) ([]string, error) { return l.c.ViewWindows(ctx, l.key) }
func (l liveViews) Dump(ctx context.Context, w string) (*viewtree.Tree, error) {
	return l.c.DumpWindow(ctx, l.key, w)
}
func (l liveViews) Capture(ctx context.Context, w, v string) ([]byte, error) {
	return l.c.CaptureView(ctx, l.key, w, v)
}
func (l liveViews) Invoke(ctx context.Context, w, v, m string, a []ddm.ViewArg) (*viewtree.Return, error) {
	return l.c.InvokeViewMethod(ctx, l.key, w, v, m, a)
}
func (l liveViews) Profile(ctx context.Context, w, v string) ([]viewtree.Timing, error) {
	return l.c.ProfileView(ctx, l.key, w, v)
}

// errReplayViews: a recording holds the dumps, not the app.
var errReplayViews = errors.New("a replay shows the dumps taken while recording; it cannot ask the app")

// recordedViews is the views pane's source in a replay: the dumps the
// model holds at the replay's position.
type recordedViews struct {
	store *monitor.Store
	key   string
}

func (r recordedViews) dumps() []monitor.WindowDump {
	vm, _ := r.store.VM(r.key)
	return vm.Views
}

func (r recordedViews) Windows(context.Context) ([]string, error) {
	var names []string
	for _, d := range r.dumps() {
		names = append(names, d.Window)
	}
	if len(names) == 0 {
		return nil, errors.New("no view dump was taken at this point of the recording")
	}
	return names, nil
}

func (r recordedViews) Dump(_ context.Context, w string) (*viewtree.Tree, error) {
	for _, d := range r.dumps() {
		if d.Window == w {
			if d.Tree == nil {
				return nil, errors.New(d.Err)
			}
			return d.Tree, nil
		}
	}
	return nil, viewtree.ErrNoSuchWindow
}

func (recordedViews) Capture(context.Context, string, string) ([]byte, error) {
	return nil, errReplayViews
}

func (recordedViews) Invoke(context.Context, string, string, string, []ddm.ViewArg) (*viewtree.Return, error) {
	return nil, errReplayViews
}

func (recordedViews) Profile(context.Context, string, string) ([]viewtree.Timing, error) {
	return nil, errReplayViews
}

// newViewsPane builds the views overlay of the dashboard.
func newViewsPane(env paneEnv, quit func()) *viewsview.View {
	return viewsview.New(viewsview.Options{Palette: env.pal, Quit: quit,
		Go: func(name string, work func(ctx context.Context) func()) {
			env.work.job(name, jobReplace, 30*time.Second, func(ctx context.Context) {
				if apply := work(ctx); apply != nil {
					env.work.post(apply)
				}
			})
		},
		Save: func(ctx context.Context, name string, data []byte) (string, error) {
			path := savePath(env.cfg.TraceDir, name, env.now(), ".png")
			if _, err := savefile.SaveBytes(ctx, path, data, savefile.Options{}); err != nil {
				return "", fmt.Errorf("saving the capture: %w", err)
			}
			return path, nil
		},
	})
}

// openViews shows the selected VM's windows and view tree.
func (o *overlays) openViews() {
	e := o.env
	vm, ok := e.selectedDDM("the layout inspector")
	if !ok && !(e.cfg.Timeline != nil && len(vm.Views) > 0) {
		return
	}
	var src viewsview.Source = recordedViews{store: e.cfg.Store, key: vm.Key}
	if vc, live := e.cfg.Controller.(ViewController); live && e.cfg.Timeline == nil {
		src = liveViews{c: vc, key: vm.Key}
	}
	if m := e.cfg.Mappings.forApp(vm.App); m != nil {
		src = mappedViews{Source: src, m: m}
	}
	o.viewsV.Open(appLabel(vm)+e.cfg.Mappings.note(vm.App), src)
	o.show("views", o.viewsV)
}

// mappedViews is a views source whose trees name their classes as the
// app's source does (custom views of a minified release build), through
// the app's mapping file. The renaming works on a copy of the nodes: the
// tree may be the model's (a replay's dumps, the session's last one).
type mappedViews struct {
	viewsview.Source
	m *mapping.Mapping
}

func (s mappedViews) Dump(ctx context.Context, w string) (*viewtree.Tree, error) {
	t, err := s.Source.Dump(ctx, w)
	if err != nil || t == nil {
		return t, err
	}
	cp := *t
	cp.Nodes = slices.Clone(t.Nodes)
	apply.ViewTree(s.m, &cp)
	return &cp, nil
}
