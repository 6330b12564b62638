// Package heapview is the heap dump viewer: what holds the memory of an
// HPROF dump, on the shared viewer base (tui/viewer), over the analysis of
// heapdump (spec/hprof-analysis.md D1–D16).
//
// Tabs: Classes (the histogram of the app heap by default, z steps to all
// heaps, zygote and image; sorted by retained size, shallow size,
// instances or name; Enter lists a class's instances by retained size),
// Dominators (the dominator tree, expandable, with retained size and its
// share of the reachable heap), Leaks (leaked Activities and Fragments with
// the chain from their GC root and the hop most likely to blame marked,
// see heapdump.Heap.BlameStep), Strings (duplicate strings), Bitmaps (drawn with
// half-block cells when the dump holds their pixels, saved as PNG with s)
// and, given an earlier dump, Diff (what grew, by class, D16).
//
// An object page lists its fields (values and the objects they name), then
// its referrers; p shows its shortest path from a GC root. Enter on any
// object opens it; Backspace goes back.
//
// The analysis runs off the UI goroutine (Frame.Work) with its progress
// in the footer; everything a key needs is computed then (Model), so a key
// costs no pass over the objects. Strings from the dump are escaped before
// tview sees them.
package heapview

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// Options configure a View.
type Options struct {
	// File is the dump to analyse; Baseline, when set, an earlier dump of
	// the same app that the Diff tab compares it with.
	File, Baseline string
	Palette        style.Palette
	// Quit is called by q; nil leaves q without effect (an embedding
	// decides itself when to leave).
	Quit func()
	// Runner runs the analysis off the UI goroutine (viewer.Run's host
	// gives one; the dashboard passes its own).
	Runner viewer.Runner
	// SaveDir is where bitmaps are saved ("": beside the dump).
	SaveDir string
	// PID chooses the dump in a Perfetto trace with heap graphs of
	// several processes (heapfile.Options.PID).
	PID int32
	// Mapping is the app's mapping file (a release build): the viewer
	// shows the source's class and field names, its header the coverage.
	Mapping *mapping.Mapping
}

// Tab indices once the dump is loaded.
const (
	tabClasses = iota
	tabDominators
	tabLeaks
	tabStrings
	tabBitmaps
	tabDiff
)

// View is the heap dump viewer.
type View struct {
	*viewer.Frame
	opt  Options
	m    *Model
	heap string // the classes table's heap selection

	classes    *viewer.Table
	classRows  *classRows
	domTable   *viewer.Table
	dominators *domTree
	leaks      *viewer.Table
	leakRows   *leakRows
	strings    *viewer.Table
	stringRows *dupRows
	bitmaps    *viewer.Table
	bitmapRows *bitmapRows
	diff       *viewer.Table
	diffRows   *diffRows

	pageRows map[*viewer.Table]viewer.Rows
	pushed   []*viewer.Table // pages made since the tabs, oldest first
	tabsMade bool
	err      error

	mu     sync.Mutex
	loaded *Model // what the analysis made, shown or not (Close closes it)
	closed bool   // Close was called: a model analysed later is closed at once
	busy   int    // background searches still reading loaded (Close leaves it to the last)

	bitmapJob bitmapJob // the bitmap being decoded or saved (C, Close cancel it)
}

// New returns the viewer, saying it is waiting for the analysis; Load
// starts it (or SetModel shows a model analysed elsewhere).
func New(opt Options) *View {
	v := &View{opt: opt, pageRows: map[*viewer.Table]viewer.Rows{}}
	v.Frame = viewer.NewFrame(viewer.FrameOptions{
		Palette: opt.Palette, Quit: opt.Quit, HelpTitle: "Heap dump keys", Item: "row",
		FilterHelp: "filter the rows (class, field or value; !text excludes)",
		Copy:       v.copyText, CopyHelp: "copy the selected object's id and class (OSC 52)",
	})
	v.SetRunner(opt.Runner)
	v.AddTab(viewer.NewMessage("Heap dump", "analysing "+opt.File+"…"))
	v.SetHeader(style.Escape(filepath.Base(opt.File)) + " — analysing…")
	v.SetHints("? help  q quit")
	v.addKeys() // scoped to pages that exist once the dump is loaded
	return v
}

// Load analyses the dump in the background, progress in the footer, and
// shows it (or why it could not be analysed). It reports false when no
// runner is set or a job already runs.
func (v *View) Load() bool {
	file, base := v.opt.File, v.opt.Baseline
	return v.Work("analysing", func(ctx context.Context, progress func(string)) func() {
		m, err := LoadPID(file, base, v.opt.PID, v.opt.Mapping, func(phase string, f float64) {
			progress(fmt.Sprintf("%s %d%%", phase, int(f*100)))
		})
		if err == nil {
			v.mu.Lock()
			closed := v.closed
			if !closed {
				v.loaded = m
			}
			v.mu.Unlock()
			if closed { // the view went while the dump was analysed
				m.Close()
				return nil
			}
		}
		return func() {
			if err != nil {
				v.Fail(err)
				return
			}
			v.SetModel(m)
		}
	})
}

// findExtras looks for the leaks, bitmaps and duplicate strings of the
// model shown, in the background, and shows them when found.
func (v *View) findExtras() {
	m := v.m
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return
	}
	v.busy++
	v.mu.Unlock()
	started := v.Work("finding leaks, bitmaps and strings", func(ctx context.Context, progress func(string)) func() {
		x := FindExtras(m.Heap, func(phase string, f float64) { progress(fmt.Sprintf("%s %d%%", phase, int(f*100))) })
		if v.release() {
			return nil // the view went while the search ran: the dump is released
		}
		return func() {
			if v.m != m || v.isClosed() { // closed since the search ended: the dump is released
				return
			}
			m.SetExtras(x)
			v.extrasShown()
		}
	})
	if !started {
		v.release()
	}
}

// extrasShown refreshes the tabs that wait for the extras.
func (v *View) extrasShown() {
	v.leaks.SetEmpty("no leaked Activity or Fragment: none is destroyed, finished or detached and still reachable")
	v.strings.SetEmpty("no duplicate strings: every reachable String's content is unique")
	v.bitmaps.SetEmpty("no reachable android.graphics.Bitmap")
	if v.m != nil && v.m.Heap.Unavailable() != "" {
		h := v.m.Heap // a heap graph: said where it empties a tab
		v.leaks.SetEmpty("no detached Fragment; " + style.Escape(h.Leaks().Unavailable()))
		v.strings.SetEmpty("not in this dump: " + style.Escape(h.Strings().Unavailable()))
		v.bitmaps.SetEmpty("not in this dump: " + style.Escape(h.Bitmaps().Unavailable()))
	}
	for _, t := range []*viewer.Table{v.leaks, v.strings, v.bitmaps} {
		t.Refresh()
	}
	v.updateHeader()
}

// unavailableNote is the footer's line on a dump without values (a heap
// graph).
const unavailableNote = "references only: no strings' text, bitmap pixels or Activities' mDestroyed"

// Fail shows why the dump could not be analysed.
func (v *View) Fail(err error) {
	v.err = err
	v.SetRoot(0, viewer.NewMessage("Cannot analyse "+filepath.Base(v.opt.File), err.Error()))
	v.SetHeader(style.Escape(filepath.Base(v.opt.File)) + " — not analysed")
	v.SetMessage("")
}

// Err is why the dump could not be analysed (nil when it was, or is
// still being).
func (v *View) Err() error { return v.err }

// Model returns the model shown (nil before it is loaded).
func (v *View) Model() *Model { return v.m }

// Close releases the dump (also one analysed but not yet shown); call it
// once the view is no longer shown. A search for the extras still running
// keeps the dump until it ends, and releases it then.
func (v *View) Close() error {
	v.bitmapJob.stop()
	v.ReleasePages() // a bitmap shown leaves the memory budget
	v.mu.Lock()
	v.closed = true
	if v.busy > 0 {
		v.mu.Unlock()
		return nil
	}
	m := v.loaded
	v.loaded = nil
	v.mu.Unlock()
	if m == nil {
		return nil
	}
	return m.Close()
}

// SetModel shows an analysed dump: the tabs, the app heap's classes first
// (the diff first when the model has a baseline).
func (v *View) SetModel(m *Model) {
	if v.m != nil || v.isClosed() {
		return
	}
	v.m = m
	v.mu.Lock()
	v.loaded = m
	v.mu.Unlock()
	v.heap = m.defaultHeap()
	pal := v.opt.Palette

	v.classRows = &classRows{m: m, hist: m.histogram(v.heap)}
	v.classes = v.table(v.classRows, viewer.TableOptions{
		Title: "Classes (" + heapTitle(v.heap) + ")", Scope: "classes", RepeatReverses: true,
		Sorts: []viewer.Sort{
			{Key: 't', Name: "retained", Help: "sort by retained size (what the class's objects hold)"},
			{Key: 's', Name: "shallow", Help: "sort by shallow size"},
			{Key: 'i', Name: "instances", Help: "sort by number of instances"},
			{Key: 'n', Name: "name", Help: "sort by class name"},
		},
		Empty: "no class matches the filter",
	})
	v.classes.OnChange(v.updateHeader)
	v.SetRoot(tabClasses, v.classes)

	v.dominators = &domTree{m: m}
	v.domTable, v.dominators.tree = viewer.NewTree(v.dominators, viewer.TableOptions{
		Title: "Dominators", Scope: "dominators",
		Empty: "no reachable objects",
	})
	v.pageRows[v.domTable] = v.dominators.tree
	v.AddTab(v.domTable)

	v.leakRows = &leakRows{m: m}
	v.leaks = v.table(v.leakRows, viewer.TableOptions{
		Title: "Leaks", Scope: "leaks", SideBySide: 1 << 30,
		Empty: "looking for leaked Activities and Fragments…",
	})
	v.leaks.SetDetail(detailPane("Chain from the GC root"))
	v.leaks.OnSelect(v.showLeakChain)
	v.AddTab(v.leaks)

	v.stringRows = &dupRows{m: m}
	v.strings = v.table(v.stringRows, viewer.TableOptions{
		Title: "Strings", Scope: "strings",
		Empty: "looking for duplicate strings…",
	})
	v.AddTab(v.strings)

	v.bitmapRows = &bitmapRows{m: m}
	v.bitmaps = v.table(v.bitmapRows, viewer.TableOptions{
		Title: "Bitmaps", Scope: "bitmaps", SideBySide: 1 << 30, Empty: "looking for bitmaps…",
	})
	v.bitmaps.SetDetail(detailPane("Pixels"))
	v.bitmaps.OnSelect(v.showBitmapInfo)
	v.AddTab(v.bitmaps)

	if m.Baseline != "" {
		v.diffRows = &diffRows{m: m}
		v.diff = v.table(v.diffRows, viewer.TableOptions{
			Title: "Diff", Scope: "diff", RepeatReverses: true,
			Sorts: []viewer.Sort{
				{Key: 's', Name: "shallow", Help: "sort by the change of shallow size"},
				{Key: 'i', Name: "instances", Help: "sort by the change of instances"},
				{Key: 't', Name: "retained", Help: "sort by the change of retained size"},
				{Key: 'n', Name: "name", Help: "sort by class name"},
			},
			Empty: "no class changed between the two dumps",
		})
		v.AddTab(v.diff)
		v.SelectTab(tabDiff)
	}
	v.leakRows.warn = pal.Warning()
	for _, t := range []*viewer.Table{v.classes, v.domTable, v.leaks, v.strings, v.bitmaps, v.diff} {
		if t != nil {
			t.Refresh()
		}
	}
	v.tabsMade = true
	v.SetHints("Enter open  p path  z heap  1-6 tabs  / filter  ? help")
	v.updateHeader()
	if trunc, at := m.Heap.Truncated(); trunc {
		v.SetMessage(fmt.Sprintf("the file is cut short: analysed up to byte %d", at))
	} else if m.Heap.Unavailable() != "" {
		v.SetMessage(unavailableNote) // said once; the tabs it empties say why
	} else if m.Heap.Converted() {
		v.SetMessage(heapdump.ConvertedNote)
	}
	if m.extras {
		v.extrasShown()
	} else {
		v.findExtras()
	}
}

// addKeys declares the viewer's own keys, each in the scope of the pages
// it acts on; help is generated from them.
func (v *View) addKeys() {
	b := keymap.Bind
	enter := func(scope, help string, fn func()) keymap.Binding {
		return b(tcell.KeyEnter, 0, "Enter", help, "Heap", fn).As("open").In(scope)
	}
	open := func() { v.openObject(v.selectedNode()) }
	path := func() { v.openPath(v.selectedNode()) }
	v.AddKeys(
		enter("classes", "classes: the class's instances, the largest retained first", v.openClass),
		b(tcell.KeyRune, 'z', "z", "classes: the heap shown, app → all heaps → each other heap (image, zygote)", "Heap", v.nextHeap).As("heap").In("classes"),
		enter("objects", "a list of objects: open the selected one", open),
		b(tcell.KeyRune, 'p', "p", "a list of objects or the dominators: the shortest path from a GC root to the selected one", "Heap", path).As("path").In("objects"),
		enter("object", "an object: open the object the selected field, element or referrer names", open),
		b(tcell.KeyRune, 'p', "p", "an object: the shortest path from a GC root to it", "Heap", func() { v.openPath(v.pageObject()) }).As("path").In("object"),
		keymap.Alias(tcell.KeyEnter, 0, open).As("open").In("dominators"),
		keymap.Alias(tcell.KeyRune, 'p', path).As("path").In("dominators"),
		enter("leaks", "leaks: the leak's chain from its GC root, each hop openable", v.openLeak),
		enter("strings", "strings: the String objects with this content", v.openDuplicate),
		enter("bitmaps", "bitmaps: draw the bitmap (when the dump holds its pixels)", v.openBitmap),
		b(tcell.KeyRune, 's', "s", "bitmaps: save the bitmap as PNG beside the dump", "Heap", v.saveBitmap).As("save-bitmap").In("bitmaps"),
		keymap.Alias(tcell.KeyRune, 's', v.saveBitmap).As("save-bitmap").In("image"),
		b(tcell.KeyRune, 'C', "C", "bitmaps: cancel the bitmap being decoded or saved", "Heap", v.cancelBitmap).As("cancel-bitmap").In("bitmaps"),
		keymap.Alias(tcell.KeyRune, 'C', v.cancelBitmap).As("cancel-bitmap").In("image"),
	)
	if v.opt.Baseline != "" {
		v.AddKeys(enter("diff", "diff: the class's instances in the newer dump", v.openDiffClass))
	}
}

// updateHeader: the file, its objects, the heap shown and the leaks.
func (v *View) updateHeader() {
	m := v.m
	if m == nil {
		return
	}
	h := m.Heap
	s := filepath.Base(m.File)
	if m.Baseline != "" {
		s += " vs " + filepath.Base(m.Baseline)
	}
	s += " — " + strings.TrimPrefix(h.Version(), "JAVA PROFILE ")
	if h.Converted() { // early too, with the note in the message line
		s += " · " + heapdump.ConvertedShort
	}
	if m.Mapping != "" { // early: a "wrong build?" must not be cut off
		s += " · " + m.Mapping
	}
	s += fmt.Sprintf(" · %s objects, %s reachable", count(h.NumNodes()), count(h.ReachableCount()))
	if hg := v.classRows.hist; hg != nil {
		s += fmt.Sprintf(" · %s: %s in %s", heapTitle(hg.heap), size(hg.bytes), count(hg.count))
	}
	if len(m.leaks) > 0 {
		s += fmt.Sprintf(" · %d leaked", len(m.leaks))
	}
	v.SetHeader(style.Escape(s))
}

// heapTitle names a heap selection.
func heapTitle(heap string) string {
	if heap == allHeaps {
		return "all heaps"
	}
	return "heap " + heap
}

// nextHeap steps the classes table to the next heap selection.
func (v *View) nextHeap() {
	cycle := v.m.heapCycle()
	next := cycle[0]
	for i, hp := range cycle {
		if hp == v.heap {
			next = cycle[(i+1)%len(cycle)]
		}
	}
	v.heap = next
	v.classRows.hist = v.m.histogram(next)
	v.classes.SetPageTitle("Classes (" + heapTitle(next) + ")")
	v.classes.Refresh()
	v.SelectTab(v.Tab()) // the tab bar shows the new title
	v.updateHeader()
}

// selectedNode is the object the current page's selection names (-1 for
// none).
func (v *View) selectedNode() heapdump.Node {
	t, ok := v.Current().(*viewer.Table)
	if !ok {
		return -1
	}
	i := t.Selected()
	switch r := v.rowsOf(t).(type) {
	case *nodeRows:
		return r.selected(i)
	case *objectRows:
		return r.selected(i)
	case *viewer.Tree:
		if n := r.Node(i); n >= 0 && n < v.m.Heap.NumNodes() {
			return heapdump.Node(n)
		}
	}
	return -1
}

// pageObject is the object the object page shown is about (-1 if none).
func (v *View) pageObject() heapdump.Node {
	if t, ok := v.Current().(*viewer.Table); ok {
		if r, ok := v.rowsOf(t).(*objectRows); ok {
			return r.node
		}
	}
	return -1
}

// maxPagesKept bounds the pushed pages whose rows the viewer remembers
// (each may list thousands of objects): a page deeper than that in a tab
// no longer opens what it lists.
const maxPagesKept = 256

// rowsOf returns the Rows a table of the viewer shows.
func (v *View) rowsOf(t *viewer.Table) viewer.Rows { return v.pageRows[t] }

// table makes a table page over rows and remembers its rows.
func (v *View) table(rows viewer.Rows, opt viewer.TableOptions) *viewer.Table {
	t := viewer.NewTable(rows, opt)
	v.pageRows[t] = rows
	if v.tabsMade { // a page pushed on a tab, not a tab itself
		v.pushed = append(v.pushed, t)
		if len(v.pushed) > maxPagesKept {
			delete(v.pageRows, v.pushed[0])
			v.pushed = v.pushed[1:]
		}
	}
	return t
}

func (v *View) copyText() (string, string) {
	n := v.selectedNode()
	if n < 0 || v.m == nil {
		return "nothing", ""
	}
	return "the object", label(v.m.Heap, n)
}
