package monitor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/pixbound"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/viewtree"
)

// View debugging: the requests of the framework's DdmHandleViewDebug
// (VULW, VURT, VUOP; ../shared/spec/viewdebug.md). Every request has its
// own deadline on the shared connection, so one the VM never answers holds
// up nothing else; the ones ART leaves unanswered on success wait only
// SessionOptions.ViewSilentWait for a FAIL.

// WindowDump is a window's latest view hierarchy dump in the model.
type WindowDump struct {
	Window string
	At     time.Time
	Tree   *viewtree.Tree // nil when the dump failed (or its tree was let go to make room)
	Err    string
	held   int64 // the tree's bytes charged to the store's view budget
}

const (
	// viewDumpTimeout bounds a dump or capture: the framework gives its
	// UI thread ~2 s, a capture encodes a PNG.
	viewDumpTimeout = 10 * time.Second
	// maxViewWindows bounds the windows kept per VM in the model.
	maxViewWindows = 32
	// maxWindowName bounds a window name in a views record.
	maxWindowName = 4096
	// modernViewOpsAPI is the first API level whose handler numbers VUOP
	// as today (Android 5); Android 4.4's numbers invalidate, request
	// layout and profile 3, 4 and 5, and invokes nothing else.
	modernViewOpsAPI = 21
)

// ViewDebugger asks a VM about its views: the requests of the framework's
// DdmHandleViewDebug, on the session's connection. Session.Views gives it;
// dumps go into the model (VM.Views) and the recording.
type ViewDebugger struct {
	conn  *vmConn
	entry *vmEntry
	input func(func(now time.Time)) // the session's
	// timeout is SessionOptions.RequestTimeout, silentWait ViewSilentWait.
	timeout, silentWait time.Duration
}

// legacyViewOps reports whether the VM's device runs Android 4.4's handler
// (known from its API level; VMs on local ports count as current).
func (s *ViewDebugger) legacyViewOps() bool {
	vm, _ := s.entry.vm()
	return vm.API > 0 && vm.API < modernViewOpsAPI
}

// ErrNoViewDebug says the VM registers no view debugging handler.
var ErrNoViewDebug = errors.New("the VM has no view debugging handler (no view-hierarchy in FEAT: not an Android app VM)")

// viewReady checks that the VM can be asked about views.
func (s *ViewDebugger) viewReady(ctx context.Context) error {
	if err := s.conn.waitReady(ctx); err != nil {
		return err
	}
	if !s.conn.isDDM {
		return fmt.Errorf("%w: %w", viewtree.ErrNoWindows, ErrNotDDM)
	}
	if !s.entry.hasFeature(ddm.FeatureViewHierarchy) {
		return fmt.Errorf("%w: %w", viewtree.ErrNoWindows, ErrNoViewDebug)
	}
	return nil
}

// viewRequest sends a view request and returns the reply's data; a FAIL
// becomes a *viewtree.OpError.
func (s *ViewDebugger) viewRequest(ctx context.Context, m ddm.Message, d time.Duration) (ddm.Message, error) {
	reply, err := s.conn.requestWithin(ctx, m, d)
	var f *ddm.FailError
	if errors.As(err, &f) {
		return nil, viewtree.FromFail(f)
	}
	return reply, err
}

// ViewWindows lists the VM's window roots (VULW). A VM with none (waiting
// for a debugger, a service, no activity up) gives viewtree.ErrNoWindows.
func (s *ViewDebugger) ViewWindows(ctx context.Context) ([]string, error) {
	if err := s.viewReady(ctx); err != nil {
		return nil, err
	}
	reply, err := s.viewRequest(ctx, &ddm.ViewWindowsRequest{Arg: 1}, s.timeout)
	if err != nil {
		return nil, fmt.Errorf("VULW: %w", err)
	}
	w, ok := reply.(*ddm.ViewWindows)
	if !ok {
		return nil, fmt.Errorf("VULW answered with %T", reply)
	}
	if len(w.Names) == 0 {
		return nil, viewtree.ErrNoWindows
	}
	return w.Names, nil
}

// rootData runs a VURT operation and returns its raw reply.
func (s *ViewDebugger) rootData(ctx context.Context, req *ddm.ViewRootRequest) ([]byte, error) {
	if err := s.viewReady(ctx); err != nil {
		return nil, err
	}
	reply, err := s.viewRequest(ctx, req, viewDumpTimeout)
	if err != nil {
		return nil, err
	}
	d, ok := reply.(*ddm.ViewRootData)
	if !ok {
		return nil, fmt.Errorf("answered with %T", reply)
	}
	return d.Data, nil
}

// DumpWindow dumps a window's view hierarchy with every property: the v2
// stream where the framework has it (API 23+), the text dump on older ones
// (which ignore the flag). The dump goes into the model (VM.Views) and the
// recording.
func (s *ViewDebugger) DumpWindow(ctx context.Context, window string) (*viewtree.Tree, error) {
	data, err := s.rootData(ctx, &ddm.ViewRootRequest{Op: ddm.ViewDumpHierarchy, ViewRoot: window,
		IncludeProperties: true, HasV2: true, V2: true})
	if err != nil {
		return nil, fmt.Errorf("dump %s: %w", window, err)
	}
	t, derr := decodeDump(window, data)
	s.input(func(now time.Time) {
		if s.entry.rec != nil && len(window) <= maxWindowName {
			rec := make([]byte, 2+len(window)+len(data))
			rec[0], rec[1] = byte(len(window)>>8), byte(len(window))
			copy(rec[2:], window)
			copy(rec[2+len(window):], data)
			s.entry.rec.add(now, record.KindViews, s.entry.key, rec)
		}
		s.applyViewDump(window, t, derr, now)
	})
	if derr != nil {
		return nil, fmt.Errorf("dump %s: %w", window, derr)
	}
	return t, nil
}

// decodeDump reads a VURT dump reply in whichever format it came.
func decodeDump(window string, data []byte) (*viewtree.Tree, error) {
	var t *viewtree.Tree
	var err error
	if viewtree.IsV2(data) {
		t, err = viewtree.DecodeV2(data)
	} else {
		t, err = viewtree.DecodeText(data)
	}
	if err != nil {
		return nil, err
	}
	t.Window = window
	return t, nil
}

// applyViewsRecord applies a recorded dump.
func (s *ViewDebugger) applyViewsRecord(data []byte, now time.Time) error {
	if len(data) < 2 {
		return fmt.Errorf("views record of %d bytes", len(data))
	}
	n := int(data[0])<<8 | int(data[1])
	if 2+n > len(data) {
		return fmt.Errorf("views record: window name of %d bytes, %d left", n, len(data)-2)
	}
	window := string(data[2 : 2+n])
	t, err := decodeDump(window, data[2+n:])
	s.applyViewDump(window, t, err, now)
	return nil
}

// applyViewDump keeps a window's latest dump in the model.
func (s *ViewDebugger) applyViewDump(window string, t *viewtree.Tree, err error, now time.Time) {
	d := WindowDump{Window: window, At: now, Tree: t}
	if err != nil {
		d.Err = err.Error()
	}
	s.entry.store.setViewDump(s.entry.key, d)
}

// DumpAllWindows dumps every window; a window that vanished between VULW
// and VURT has its error in its entry, the others are unaffected.
func (s *ViewDebugger) DumpAllWindows(ctx context.Context) ([]viewtree.JSONWindow, error) {
	names, err := s.ViewWindows(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]viewtree.JSONWindow, 0, len(names))
	for _, name := range names {
		t, err := s.DumpWindow(ctx, name)
		out = append(out, viewtree.JSONWindowOf(name, t, err))
	}
	return out, nil
}

// CaptureLayers asks for a window's capture-layers stream (VURT op 2).
func (s *ViewDebugger) CaptureLayers(ctx context.Context, window string) (*viewtree.Layers, error) {
	data, err := s.rootData(ctx, &ddm.ViewRootRequest{Op: ddm.ViewCaptureLayers, ViewRoot: window})
	if err != nil {
		return nil, fmt.Errorf("capture layers of %s: %w", window, err)
	}
	return viewtree.DecodeLayers(data)
}

// DumpTheme dumps a window's theme (VURT op 3, API 22+).
func (s *ViewDebugger) DumpTheme(ctx context.Context, window string) ([]viewtree.ThemeAttr, error) {
	data, err := s.rootData(ctx, &ddm.ViewRootRequest{Op: ddm.ViewDumpTheme, ViewRoot: window})
	if err != nil {
		return nil, fmt.Errorf("dump theme of %s: %w", window, err)
	}
	return viewtree.ParseTheme(data)
}

// viewOp runs a VUOP operation that answers with data.
func (s *ViewDebugger) viewOp(ctx context.Context, req *ddm.ViewOpRequest) ([]byte, error) {
	if err := s.viewReady(ctx); err != nil {
		return nil, err
	}
	reply, err := s.viewRequest(ctx, req, viewDumpTimeout)
	if err != nil {
		return nil, err
	}
	d, ok := reply.(*ddm.ViewOpData)
	if !ok {
		return nil, fmt.Errorf("answered with %T", reply)
	}
	return d.Data, nil
}

// CaptureView asks for a view's picture (VUOP op 1): PNG bytes whose
// header is checked, before anyone decodes them, to be a PNG that decodes
// within pixbound.DefaultMaxBytes (issue 37 #6): the CLI saves it, the
// dashboard draws it, and both refuse a picture claiming 20000×20000.
func (s *ViewDebugger) CaptureView(ctx context.Context, window, view string) ([]byte, error) {
	data, err := s.viewOp(ctx, &ddm.ViewOpRequest{Op: ddm.ViewCapture, ViewRoot: window, View: view})
	if err != nil {
		return nil, fmt.Errorf("capture %s: %w", view, err)
	}
	in, err := pixbound.Inspect(data, "png")
	if err != nil {
		return nil, fmt.Errorf("capture %s: the picture does not decode as PNG: %w", view, err)
	}
	if err := in.Check(0); err != nil {
		return nil, fmt.Errorf("capture %s: %w", view, err)
	}
	return data, nil
}

// ProfileView measures a view's subtree (VUOP op 3 on Android 10+):
// measure, layout and draw times per view in pre-order.
func (s *ViewDebugger) ProfileView(ctx context.Context, window, view string) ([]viewtree.Timing, error) {
	req := &ddm.ViewOpRequest{Op: ddm.ViewProfile, ViewRoot: window, View: view}
	if s.legacyViewOps() {
		req.Op, req.Legacy = ddm.ViewLegacyProfile, true
	}
	data, err := s.viewOp(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", view, err)
	}
	return viewtree.ParseProfile(data)
}

// silentOp runs a VUOP operation whose success ART leaves unanswered:
// a FAIL arriving within ViewSilentWait is its error, silence is success.
// replied says whether the VM answered (an empty reply on older VMs, a
// return value on API 34+).
func (s *ViewDebugger) silentOp(ctx context.Context, req *ddm.ViewOpRequest) (data []byte, replied bool, err error) {
	if err := s.viewReady(ctx); err != nil {
		return nil, false, err
	}
	reply, err := s.viewRequest(ctx, req, s.silentWait)
	switch {
	case err == nil:
		if d, ok := reply.(*ddm.ViewOpData); ok {
			return d.Data, true, nil
		}
		return nil, true, nil
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && s.conn.jc.Err() == nil:
		return nil, false, nil // silence: the framework sends nothing on success
	}
	return nil, false, err
}

// InvokeViewMethod calls a method on a view on its UI thread (VUOP op 4:
// invalidate, requestLayout, setVisibility with an int…). ret is the
// return value when the framework sends it (API 34+), nil otherwise.
func (s *ViewDebugger) InvokeViewMethod(ctx context.Context, window, view, method string, args []ddm.ViewArg) (*viewtree.Return, error) {
	req := &ddm.ViewOpRequest{Op: ddm.ViewInvokeMethod, ViewRoot: window, View: view, Method: method, Args: args}
	if s.legacyViewOps() {
		switch {
		case method == "invalidate" && len(args) == 0:
			req = &ddm.ViewOpRequest{Op: ddm.ViewLegacyInvalidate, ViewRoot: window, View: view, Legacy: true}
		case method == "requestLayout" && len(args) == 0:
			req = &ddm.ViewOpRequest{Op: ddm.ViewLegacyRequestLayout, ViewRoot: window, View: view, Legacy: true}
		default:
			return nil, fmt.Errorf("invoke %s on %s: %w: Android 4.4 only invalidates and requests layouts", method, view, viewtree.ErrUnknownOp)
		}
	}
	data, replied, err := s.silentOp(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("invoke %s on %s: %w", method, view, err)
	}
	if !replied || len(data) == 0 {
		return nil, nil
	}
	ret, err := viewtree.DecodeReturn(data)
	if err != nil {
		return nil, fmt.Errorf("invoke %s on %s: %w", method, view, err)
	}
	return &ret, nil
}

// SetViewLayoutParam sets an int field of a view's layout params and
// requests a layout (VUOP op 5).
func (s *ViewDebugger) SetViewLayoutParam(ctx context.Context, window, view, field string, value int32) error {
	if s.legacyViewOps() {
		return fmt.Errorf("set %s of %s: %w: Android 4.4 cannot set layout parameters", field, view, viewtree.ErrUnknownOp)
	}
	_, _, err := s.silentOp(ctx, &ddm.ViewOpRequest{Op: ddm.ViewSetLayoutParam, ViewRoot: window, View: view,
		Param: field, Value: value})
	if err != nil {
		return fmt.Errorf("set %s of %s: %w", field, view, err)
	}
	return nil
}

// DumpDisplayList asks the framework to write a view's display list to the
// device log (VUOP op 2; never any reply data).
func (s *ViewDebugger) DumpDisplayList(ctx context.Context, window, view string) error {
	_, _, err := s.silentOp(ctx, &ddm.ViewOpRequest{Op: ddm.ViewDumpDisplayList, ViewRoot: window, View: view})
	if err != nil {
		return fmt.Errorf("dump display list of %s: %w", view, err)
	}
	return nil
}
