package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/viewtree"
)

// The simulated app's user interface: windows with view trees that change
// a little at every step (a clock's text, the list scrolls, a toast comes
// and goes), served through the view debugging chunks as the framework's
// DdmHandleViewDebug serves them (../shared/spec/viewdebug.md), FAILs and
// silences included.

// Screen size of the simulated devices.
const (
	screenW = 1080
	screenH = 2400
	// viewV2API is the first API level whose framework writes the v2
	// dump; below it the flag is ignored and the text dump comes back.
	viewV2API = 23
	// invokeReplyAPI is the first API level whose framework answers an
	// invoked method with its return value; below it, success is silent.
	invokeReplyAPI = 34
	// modernViewOpsAPI is the first API level with today's VUOP numbers;
	// Android 4.4 (API 19, 20) numbers invalidate, request layout and
	// profile 3, 4 and 5, with no data.
	modernViewOpsAPI = 21
)

// legacyViews reports whether the VM runs Android 4.4's view handler.
func (vm *VM) legacyViews() bool { return vm.spec.API > 0 && vm.spec.API < modernViewOpsAPI }

// simView is one view of a simulated window.
type simView struct {
	class    string
	hash     uint32
	id       string // "" for NO_ID
	left     int32
	top      int32
	width    int32
	height   int32
	vis      int32
	alpha    float32
	enabled  bool
	pad      [4]int32
	text     *string
	scrollY  int32
	lpW, lpH int32 // layout params: -1 MATCH_PARENT, -2 WRAP_CONTENT, else pixels
	margin   int32
	invalid  int // invalidate() calls, shown as a property
	children []*simView
}

// simWindow is one window root.
type simWindow struct {
	name string
	root *simView
}

// uiModel is an app's windows.
type uiModel struct {
	windows []*simWindow
	clock   *simView // its text changes at every step
	list    *simView // scrolls now and then
	toast   *simWindow
}

func (vm *VM) newView(class, id string, l, t, w, h int32, kids ...*simView) *simView {
	return &simView{class: class, hash: vm.rng.Uint32() >> 4, id: id, left: l, top: t, width: w, height: h,
		alpha: 1, enabled: true, lpW: w, lpH: h, children: kids}
}

func (vm *VM) textView(id, text string, l, t, w, h int32) *simView {
	v := vm.newView("android.widget.TextView", id, l, t, w, h)
	v.text = &text
	v.pad = [4]int32{16, 8, 16, 8}
	v.lpW = -2
	return v
}

// buildUILocked builds the app's main activity window. Apps with no
// activity (the JVM, a VM waiting for a debugger) have none.
func (vm *VM) buildUILocked() {
	if vm.ui != nil || vm.spec.Family == JVM || vm.spec.WaitingForDebugger || vm.spec.NoWindows {
		return
	}
	pkg := vm.spec.Package
	if pkg == "" {
		pkg = vm.spec.App
	}
	ui := &uiModel{}
	title := vm.textView("id/title", shortName(pkg), 48, 40, 600, 88)
	clock := vm.textView("id/clock", "12:00:00", 760, 40, 272, 88)
	toolbar := vm.newView("androidx.appcompat.widget.Toolbar", "id/toolbar", 0, 0, screenW, 168, title, clock)
	var rows []*simView
	for i := 0; i < 12; i++ {
		icon := vm.newView("android.widget.ImageView", "id/icon", 32, 8, 144, 144)
		label := vm.textView("id/label", fmt.Sprintf("Item %d\nsecond line", i+1), 208, 8, 800, 96)
		sub := vm.textView("id/subtitle", fmt.Sprintf("%d KB", 12+vm.rng.IntN(900)), 208, 104, 400, 48)
		row := vm.newView("android.widget.LinearLayout", "", 0, int32(i)*160, screenW, 160, icon, label, sub)
		row.lpW, row.lpH = -1, -2
		if i == 7 {
			sub.vis = int32(viewtree.Gone)
		}
		rows = append(rows, row)
	}
	list := vm.newView("androidx.recyclerview.widget.RecyclerView", "id/list", 0, 168, screenW, 1932, rows...)
	list.lpW, list.lpH = -1, 0
	empty := vm.textView("id/empty", "Nothing here yet", 340, 1000, 400, 60)
	empty.vis = int32(viewtree.Invisible)
	fab := vm.newView("com.google.android.material.floatingactionbutton.FloatingActionButton", "id/fab", 856, 1876, 168, 168)
	fab.margin = 56
	fab.alpha = 0.9
	content := vm.newView("androidx.constraintlayout.widget.ConstraintLayout", "", 0, 0, screenW, 2100, toolbar, list, empty, fab)
	frame := vm.newView("androidx.appcompat.widget.ContentFrameLayout", "android:id/content", 0, 132, screenW, 2100, content)
	status := vm.newView("android.view.View", "android:id/statusBarBackground", 0, 0, screenW, 132)
	nav := vm.newView("android.view.View", "android:id/navigationBarBackground", 0, 2232, screenW, 168)
	linear := vm.newView("android.widget.LinearLayout", "", 0, 0, screenW, 2232, frame)
	decor := vm.newView("com.android.internal.policy.DecorView", "", 0, 0, screenW, screenH, linear, status, nav)
	decor.lpW, decor.lpH = -1, -1
	activity := pkg + "/" + pkg + ".MainActivity"
	ui.windows = []*simWindow{{name: fmt.Sprintf("%s/android.view.ViewRootImpl@%x", activity, vm.rng.Uint32()>>4), root: decor}}
	ui.clock, ui.list = clock, list
	msg := vm.textView("android:id/message", "Saved", 24, 16, 200, 64)
	ui.toast = &simWindow{name: fmt.Sprintf("Toast/android.view.ViewRootImpl@%x", vm.rng.Uint32()>>4),
		root: vm.newView("android.widget.LinearLayout", "", 0, 0, 248, 96, msg)}
	vm.ui = ui
}

func shortName(pkg string) string {
	if i := strings.LastIndexByte(pkg, '.'); i >= 0 {
		pkg = pkg[i+1:]
	}
	if pkg == "" {
		return "App"
	}
	return strings.ToUpper(pkg[:1]) + pkg[1:]
}

// stepUILocked changes the windows a little: the clock ticks, the list
// scrolls now and then, a toast shows for a few steps.
func (vm *VM) stepUILocked() {
	ui := vm.ui
	if ui == nil {
		return
	}
	s := fmt.Sprintf("12:%02d:%02d", (vm.steps/60)%60, vm.steps%60)
	ui.clock.text = &s
	if vm.steps%7 == 0 {
		ui.list.scrollY = int32(vm.rng.IntN(3)) * 8
	}
	shown := len(ui.windows) > 1
	if want := vm.steps%40 >= 30; want != shown {
		if want {
			ui.windows = append(ui.windows, ui.toast)
		} else {
			ui.windows = ui.windows[:1]
		}
	}
}

func (ui *uiModel) window(name string) *simWindow {
	if ui == nil {
		return nil
	}
	for _, w := range ui.windows {
		if w.name == name {
			return w
		}
	}
	return nil
}

// find looks a view up by class@hash (as ViewDebug.findView does).
func (v *simView) find(name string) *simView {
	if fmt.Sprintf("%s@%x", v.class, v.hash) == name {
		return v
	}
	for _, c := range v.children {
		if f := c.find(name); f != nil {
			return f
		}
	}
	return nil
}

func (v *simView) walk(fn func(v *simView, depth int, x, y int32), depth int, x, y int32) {
	fn(v, depth, x, y)
	for _, c := range v.children {
		c.walk(fn, depth+1, x+c.left, y+c.top-v.scrollY)
	}
}

func fail(code int32, msg string) *ddm.FailError { return &ddm.FailError{Code: code, Message: msg} }

// handleViewLocked answers VULW, VURT and VUOP. Called with vm.mu held.
func (vm *VM) handleViewLocked(c *vmConn, p *jdwp.Packet, msg ddm.Message) {
	vm.buildUILocked()
	switch m := msg.(type) {
	case *ddm.ViewWindowsRequest:
		var names []string
		if vm.ui != nil {
			for _, w := range vm.ui.windows {
				names = append(names, w.name)
			}
		}
		c.replyChunk(p, &ddm.ViewWindows{Names: names})
	case *ddm.ViewRootRequest:
		w := vm.ui.window(m.ViewRoot)
		if w == nil {
			c.replyChunk(p, fail(viewtree.FailBadArgument, "Invalid View Root"))
			return
		}
		switch m.Op {
		case ddm.ViewDumpHierarchy:
			if vm.spec.ViewDumpFails != "" {
				c.replyChunk(p, fail(viewtree.FailThrew, vm.spec.ViewDumpFails))
				return
			}
			c.replyChunk(p, &ddm.ViewRootData{Data: vm.dumpLocked(w, m)})
		case ddm.ViewCaptureLayers:
			c.replyChunk(p, &ddm.ViewRootData{Data: vm.captureLayersLocked(w)})
		case ddm.ViewDumpTheme:
			c.replyChunk(p, &ddm.ViewRootData{Data: viewtree.FormatTheme(simTheme)})
		default:
			c.replyChunk(p, fail(viewtree.FailUnknownOp, fmt.Sprintf("Unknown view root operation: %d", m.Op)))
		}
	case *ddm.ViewOpRequest:
		vm.viewOpLocked(c, p, m)
	}
}

var simTheme = []viewtree.ThemeAttr{
	{Name: "android:colorPrimary", Value: "#ff6200ee"}, {Name: "android:colorAccent", Value: "#ff03dac5"},
	{Name: "android:windowBackground", Value: "@android:color/white"}, {Name: "android:textSize", Value: "14.0sp"},
	{Name: "android:fontFamily", Value: "sans-serif"},
}

func (vm *VM) viewOpLocked(c *vmConn, p *jdwp.Packet, m *ddm.ViewOpRequest) {
	w := vm.ui.window(m.ViewRoot)
	if w == nil {
		c.replyChunk(p, fail(viewtree.FailBadArgument, "Invalid View Root"))
		return
	}
	v := w.root.find(m.View)
	if v == nil {
		c.replyChunk(p, fail(viewtree.FailBadArgument, "Invalid target view"))
		return
	}
	if m.Legacy {
		switch m.Op {
		case ddm.ViewCapture:
			c.replyChunk(p, &ddm.ViewOpData{Data: vm.capturePNG(v)})
		case ddm.ViewDumpDisplayList, ddm.ViewLegacyRequestLayout:
			c.replyEmpty(p)
		case ddm.ViewLegacyInvalidate:
			v.invalid++
			c.replyEmpty(p)
		case ddm.ViewLegacyProfile:
			c.replyChunk(p, &ddm.ViewOpData{Data: vm.profileLocked(v)})
		default:
			c.replyChunk(p, fail(viewtree.FailUnknownOp, fmt.Sprintf("Unknown view operation: %d", m.Op)))
		}
		return
	}
	switch m.Op {
	case ddm.ViewCapture:
		c.replyChunk(p, &ddm.ViewOpData{Data: vm.capturePNG(v)})
	case ddm.ViewDumpDisplayList:
		c.replyEmpty(p) // output goes to the log; ART sends nothing
	case ddm.ViewProfile:
		c.replyChunk(p, &ddm.ViewOpData{Data: vm.profileLocked(v)})
	case ddm.ViewInvokeMethod:
		if err := invoke(v, m.Method, m.Args); err != nil {
			c.replyChunk(p, err)
			return
		}
		if vm.spec.API >= invokeReplyAPI {
			c.replyChunk(p, &ddm.ViewOpData{Data: viewtree.EncodeReturn('V', 0)})
			return
		}
		c.replyEmpty(p)
	case ddm.ViewSetLayoutParam:
		switch m.Param {
		case "width":
			v.lpW = m.Value
			if m.Value >= 0 {
				v.width = m.Value
			}
		case "height":
			v.lpH = m.Value
			if m.Value >= 0 {
				v.height = m.Value
			}
		case "leftMargin", "topMargin", "rightMargin", "bottomMargin":
			v.margin = m.Value
		default:
			c.replyChunk(p, fail(viewtree.FailThrew, "Error accessing field "+m.Param))
			return
		}
		c.replyEmpty(p)
	default:
		c.replyChunk(p, fail(viewtree.FailUnknownOp, fmt.Sprintf("Unknown view operation: %d", m.Op)))
	}
}

// profileLocked times a subtree (made-up times that grow with a view's
// children).
func (vm *VM) profileLocked(v *simView) []byte {
	var ts []viewtree.Timing
	v.walk(func(sv *simView, depth int, _, _ int32) {
		n := int64(len(sv.children) + 1)
		ts = append(ts, viewtree.Timing{Measure: 4000 * n * int64(1+vm.rng.IntN(3)), Layout: 2500 * n, Draw: 9000 * n})
	}, 0, 0, 0)
	return viewtree.FormatProfile(ts)
}

// invoke runs one of the methods ddmtui sends (the framework finds any
// public method by reflection; the simulator knows these).
func invoke(v *simView, method string, args []ddm.ViewArg) *ddm.FailError {
	sig := make([]byte, len(args))
	for i, a := range args {
		sig[i] = byte(a.Type)
	}
	noMethod := fail(viewtree.FailBadArgument, fmt.Sprintf("No such method: %s(%s)", method, sig))
	switch method + "(" + string(sig) + ")" {
	case "invalidate()":
		v.invalid++
	case "requestLayout()":
	case "setVisibility(I)":
		switch int32(args[0].Value) {
		case 0, 4, 8:
			v.vis = int32(args[0].Value)
		default:
			return fail(viewtree.FailThrew, "java.lang.reflect.InvocationTargetException")
		}
	case "setEnabled(Z)":
		v.enabled = args[0].Value != 0
	case "setAlpha(F)":
		v.alpha = math.Float32frombits(uint32(args[0].Value))
	default:
		return noMethod
	}
	return nil
}

// hashColor is a view's fill colour in captures.
func hashColor(class string) (r, g, b uint8) {
	rng := rand.New(rand.NewPCG(uint64(len(class)), uint64(class[len(class)-1])))
	return uint8(96 + rng.IntN(160)), uint8(96 + rng.IntN(160)), uint8(96 + rng.IntN(160))
}
