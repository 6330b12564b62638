package viewsview

import (
	"context"
	"image"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/pixbound"
	"github.com/ddmtui/ddmtui/viewtree"
)

// The pane's requests to the app: capture, profile and the methods it
// invokes. Each runs through Options.Go and is applied on the UI
// goroutine only while the pane still shows the same source.

// toggleCapture fetches the selected view's capture and draws it, or goes
// back to the wireframe.
func (v *View) toggleCapture() {
	name := v.selectedName()
	if v.showCapture && v.captureOf == name {
		v.showCapture = false
		v.update()
		return
	}
	v.fetchCapture(name, nil)
}

func (v *View) fetchCapture(name string, then func()) {
	if name == "" || v.src == nil {
		return
	}
	win, src := v.window(), v.src
	// What the pane keeps is what it can show: a cell is a pixel wide and
	// two high (Picture), and a pane is never wider than the terminal.
	_, _, pw, ph := v.pic.GetInnerRect()
	pw, ph = max(pw, 320), max(2*ph, 200)
	v.flash("capturing " + name + "…")
	v.opt.Go("views-capture", func(ctx context.Context) func() {
		data, err := src.Capture(ctx, win, name)
		var img image.Image
		if err == nil {
			// Its size checked from the header before decoding (issue 37
			// #6: a 1.5 MB PNG claiming 20000×20000 took 1.6 GiB here).
			img, _, err = pixbound.Decode(ctx, data, "png", 0)
		}
		var kept *pixbound.Kept
		if err == nil {
			// What is kept (the picture fitted to the pane, and the PNG
			// for s) is charged to the memory budget until it goes.
			kept, err = pixbound.Keep(pixbound.Fit(img, pw, ph), data, "the capture of "+name)
		}
		return func() {
			if v.src != src {
				kept.Release()
				return
			}
			if err != nil {
				v.flash("capture: " + err.Error())
				return
			}
			v.capture.Release()
			v.capture, v.captureOf, v.showCapture = kept, name, true
			v.message = ""
			v.update()
			if then != nil {
				then()
			}
		}
	})
}

func (v *View) save() {
	name := v.selectedName()
	if name == "" {
		return
	}
	store := func() {
		data, base := v.capture.Data(), name
		if v.title != "" {
			base = v.title + "-" + name
		}
		v.flash("saving the capture of " + name + "…")
		v.opt.Go("views-save", func(ctx context.Context) func() {
			path, err := v.opt.Save(ctx, base, data)
			return func() {
				if err != nil {
					v.flash("save: " + err.Error())
					return
				}
				v.flash("capture saved to " + path)
			}
		})
	}
	if v.captureOf == name && v.capture.Data() != nil {
		store()
		return
	}
	v.fetchCapture(name, store)
}

func (v *View) doProfile() {
	i := v.selected()
	if i < 0 || v.src == nil {
		return
	}
	name, win, src := v.t.Nodes[i].Name(), v.window(), v.src
	v.flash("profiling " + name + "…")
	v.opt.Go("views-profile", func(ctx context.Context) func() {
		ts, err := src.Profile(ctx, win, name)
		return func() {
			if err != nil {
				v.flash("profile: " + err.Error())
				return
			}
			v.profile, v.profileOf, v.message = ts, name, ""
			v.update()
		}
	})
}

func (v *View) toggleVisibility() {
	i := v.selected()
	if i < 0 {
		return
	}
	to := viewtree.Invisible
	if v.t.Nodes[i].Visibility != viewtree.Visible {
		to = viewtree.Visible
	}
	v.invokeArgs("setVisibility", []ddm.ViewArg{{Type: 'I', Value: uint64(uint32(int32(to)))}})
}

func (v *View) invoke(method string) { v.invokeArgs(method, nil) }

// invokeArgs calls a method on the selected view, then dumps again.
func (v *View) invokeArgs(method string, args []ddm.ViewArg) {
	i := v.selected()
	if i < 0 || v.src == nil {
		return
	}
	name, win, src := v.t.Nodes[i].Name(), v.window(), v.src
	v.flash(method + " on " + name + "…")
	v.opt.Go("views-act", func(ctx context.Context) func() {
		_, err := src.Invoke(ctx, win, name, method, args)
		if err != nil {
			return func() { v.flash(method + ": " + err.Error()) }
		}
		t, derr := src.Dump(ctx, win)
		return func() {
			if v.src == src && v.window() == win {
				v.SetTree(t, derr)
				v.flash(method + " done on " + name)
			}
		}
	})
}
