package tui

import (
	"context"
	"time"

	"github.com/ddmtui/ddmtui/tui/heapview"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// The heap dump viewer in the dashboard: H saves a dump, then the viewer
// opens on it (tui/heapview) and analyses it off the UI goroutine; when
// an earlier dump of the same app was saved in this session, the viewer
// compares the two (its Diff tab: what grew between them).

// heapAnalysisTimeout bounds the analysis of a saved dump.
const heapAnalysisTimeout = 10 * time.Minute

// heapRunner runs the heap viewer's background work as the dashboard's
// owned jobs, and hands results to the UI goroutine through post.
type heapRunner struct{ j *jobs }

func (r heapRunner) Go(work func() func()) bool {
	j := r.j
	// Queued: the viewer starts its second job (leaks, strings, bitmaps)
	// from the first one's result, which may reach the UI goroutine before
	// the first job has quite ended.
	return j.job("heap-analysis", jobQueue, heapAnalysisTimeout, func(context.Context) {
		apply := work()
		if j.bg().Err() == nil && apply != nil {
			j.post(apply)
		}
	})
}

func (r heapRunner) QueueUpdateDraw(fn func()) { r.j.post(fn) }
func (r heapRunner) Context() context.Context  { return r.j.bg() }

// showHeap opens the heap dump viewer on a saved dump of app; baseline,
// when set, is the app's previous dump in this session. The app's mapping
// file (a release build) names its classes and fields.
func (o *overlays) showHeap(app, path, baseline string) {
	o.closeHeap()
	v := heapview.New(heapview.Options{File: path, Baseline: baseline, Palette: o.env.pal, Quit: o.closeHeap, Runner: heapRunner{o.env.work},
		Mapping: o.env.cfg.Mappings.forApp(app)})
	v.SetQuitHelp(viewer.BackToDashboard)
	o.heapV = v
	o.pages.AddPage("heap", v, true, false)
	o.show("heap", v)
	v.Load()
}

// closeHeap hides the heap dump viewer and releases its dump. (A viewer
// still open when the dashboard quits keeps its dump mapped until the
// process ends: the UI may draw it until then.)
func (o *overlays) closeHeap() {
	v := o.heapV
	if v == nil {
		return
	}
	o.heapV = nil
	o.close("heap")
	o.pages.RemovePage("heap")
	v.Close()
}

// heapSaved records a dump saved for app and opens the viewer on it,
// compared with the app's previous dump when there is one.
func (o *overlays) heapSaved(app, path string) {
	if o.lastHeap == nil {
		o.lastHeap = map[string]string{}
	}
	baseline := o.lastHeap[app]
	o.lastHeap[app] = path
	o.showHeap(app, path, baseline)
}
