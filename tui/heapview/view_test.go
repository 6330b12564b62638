package heapview

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/testkit/hprofref"
	"github.com/ddmtui/ddmtui/tui/style"
)

func hex(id hprof.ID) string { return heapdump.HexID(uint64(id)) }

// fields splits a table line into its cells (two or more spaces apart,
// or one before a right-aligned number).
func fields(line string) []string { return strings.Fields(line) }

// The first screen says the dump is being analysed, with the progress in
// the footer; once the job has run, the classes of the app heap are shown.
func TestLoadShowsProgressThenTheAppHeap(t *testing.T) {
	file, e := writeScene(t, scene.Options{})
	hs := &harness{t: t, r: &testRunner{ctx: t.Context()}, screen: tcell.NewSimulationScreen("UTF-8"), w: 120, h: 40}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	defer hs.screen.Fini()
	hs.screen.SetSize(120, 40)
	hs.v = New(Options{File: file, Runner: hs.r})
	defer hs.v.Close()
	hs.v.SetRect(0, 0, 120, 40)
	hs.v.Load()
	hs.draw()
	hs.must("app.hprof — analysing…", "analysing…")
	hs.r.step() // the first screen: the classes; leaks, strings and bitmaps follow
	hs.draw()
	hs.must("1 Classes (heap app)", "RETAINED ▼", "finding leaks, bitmaps and strings…")
	hs.mustNot(" leaked")
	hs.v.SelectTab(tabLeaks) // not through keys(), which runs the queued jobs
	hs.draw()
	hs.must("looking for leaked Activities and Fragments…")
	hs.r.run()
	hs.v.SelectTab(tabClasses)
	hs.draw()
	var app scene.Heap
	for _, h := range e.Heaps {
		if h.Name == "app" {
			app = h
		}
	}
	hs.must("1 Classes (heap app)", "2 Dominators", "3 Leaks", "4 Strings", "5 Bitmaps",
		fmt.Sprintf("%s objects, ", count(e.Nodes)),
		fmt.Sprintf("heap app: %s in %s ·", size(app.Bytes), count(app.Objects)),
		fmt.Sprintf("%d leaked", len(e.Leaks)), "RETAINED ▼")
	hs.mustNot("analysing…")
}

// Classes: sorted by instances and by shallow size over all heaps as the
// scene planted them; the filter; Enter lists the instances.
func TestClassesSortFilterAndInstances(t *testing.T) {
	file, e := writeScene(t, scene.Options{})
	hs := open(t, file, "", 120, 40, style.Palette{})
	// The app heap has no zygote class such as java.lang.Object's.
	if hs.row("android.os.Looper ") >= 0 && hs.row("com.example.mail") < 0 {
		t.Fatalf("app heap shows the zygote's classes:\n%s", hs.text())
	}
	hs.keys("z") // all heaps
	hs.must("1 Classes (all heaps)", fmt.Sprintf("all heaps: %s in %s ·", size(sumBytes(e)), count(e.Nodes)))
	// The last of all the classes selected, then the zygote's few.
	hs.key(tcell.KeyEnd, 0)
	hs.keys("z")
	for _, name := range []string{"image", "zygote"} { // in the file's order
		var want scene.Heap
		for _, h := range e.Heaps {
			if h.Name == name {
				want = h
			}
		}
		hs.must("1 Classes (heap "+name+")", fmt.Sprintf("heap %s: %s in %s ·", name, size(want.Bytes), count(want.Objects)))
		hs.keys("z")
	}
	hs.must("1 Classes (heap app)")
	hs.keys("z")

	// Instances and shallow sizes are the reachable objects' (D9's
	// reachable_instances, reachable_shallow, from the reference), the
	// unreachable ones a column of their own.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hprofref.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	ref := d.Analyze().Result().Classes
	byInst := slices.Clone(ref)
	slices.SortStableFunc(byInst, func(a, b hprofref.Class) int {
		return cmp.Or(b.ReachableInstances-a.ReachableInstances, strings.Compare(a.Name, b.Name))
	})
	hs.keys("i")
	hs.key(tcell.KeyHome, 0)
	hs.must("INSTANCES ▼", "UNREACHABLE")
	first := fields(hs.line(3))
	if first[0] != byInst[0].Name || first[1] != count(byInst[0].ReachableInstances) {
		t.Errorf("first by instances %q, want %s %d", hs.line(3), byInst[0].Name, byInst[0].ReachableInstances)
	}
	if c := byInst[0]; c.Instances > c.ReachableInstances {
		want := count(c.Instances-c.ReachableInstances) + " · " + size(c.Shallow-c.ReachableShallow)
		if !strings.HasSuffix(hs.line(3), want) {
			t.Errorf("first by instances %q, want %s unreachable", hs.line(3), want)
		}
	} else {
		t.Errorf("test setup: %s has no unreachable instance", c.Name)
	}
	for _, c := range ref {
		if c.Retained < c.ReachableShallow {
			t.Errorf("%s retains %d < its reachable shallow %d", c.Name, c.Retained, c.ReachableShallow)
		}
	}
	hs.keys("i") // the same key again reverses
	hs.must("INSTANCES ▲")
	bySh := slices.Clone(ref)
	slices.SortStableFunc(bySh, func(a, b hprofref.Class) int {
		return cmp.Or(cmp.Compare(b.ReachableShallow, a.ReachableShallow), strings.Compare(a.Name, b.Name))
	})
	hs.keys("s")
	hs.key(tcell.KeyHome, 0)
	if got := fields(hs.line(3)); got[0] != bySh[0].Name {
		t.Errorf("first by shallow %q, want %s", hs.line(3), bySh[0].Name)
	}

	// The filter keeps the classes whose name holds the text; each row's
	// instances and shallow size are the scene's.
	hs.filter("InboxActivity")
	want := e.ClassRow("com.example.mail.InboxActivity")
	y := hs.row("com.example.mail.InboxActivity ")
	if y < 0 {
		t.Fatalf("no InboxActivity row:\n%s", hs.text())
	}
	got := fields(hs.line(y))
	if got[1] != count(want.Instances) || got[2]+" "+got[3] != size(want.Shallow) {
		t.Errorf("InboxActivity row %q, want %d instances, %s", hs.line(y), want.Instances, size(want.Shallow))
	}
	hs.mustNot("java.lang.String ", "ComposeActivity")
	// Its retained size (D9) is the leaked instance's (the only one).
	leak := leakOf(e, "com.example.mail.InboxActivity")
	if !strings.HasSuffix(hs.line(y), size(leak.Retained)) {
		t.Errorf("InboxActivity row %q, want retained %s", hs.line(y), size(leak.Retained))
	}
	for hs.selected() != "" && !strings.Contains(hs.selected(), "com.example.mail.InboxActivity ") {
		hs.key(tcell.KeyDown, 0)
	}
	hs.enter()
	if got := hs.v.Current().Title(); got != "InboxActivity ×1 (all heaps)" {
		t.Errorf("Enter opened %q", got)
	}
	hs.must("com.example.mail.InboxActivity@" + hex(leak.ID))
	hs.back()
	hs.must("1 Classes (all heaps)")
	hs.key(tcell.KeyEscape, 0) // clears the filter
	if hs.v.classes.Filter() != "" || hs.v.classes.Len() != len(e.Classes) {
		t.Errorf("after Esc: filter %q, %d rows, want all %d", hs.v.classes.Filter(), hs.v.classes.Len(), len(e.Classes))
	}
}

func sumBytes(e *scene.Expect) uint64 {
	var n uint64
	for _, h := range e.Heaps {
		n += h.Bytes
	}
	return n
}

func leakOf(e *scene.Expect, class string) scene.Leak {
	for _, l := range e.Leaks {
		if l.Class == class {
			return l
		}
	}
	return scene.Leak{}
}

// An instance: its fields with values, its referrers, the path from its
// GC root; each hop opens, Backspace comes back.
func TestInstanceFieldsReferrersAndPath(t *testing.T) {
	file, e := writeScene(t, scene.Options{})
	hs := open(t, file, "", 120, 50, style.Palette{})
	leak := leakOf(e, "com.example.mail.InboxActivity")
	holder := leak.Path[len(leak.Path)-2] // InboxActivity$1, by this$0
	hs.filter("com.example.mail.InboxActivity")
	for !strings.HasPrefix(hs.selected(), "com.example.mail.InboxActivity ") {
		hs.key(tcell.KeyDown, 0)
	}
	hs.enter() // instances
	hs.enter() // the object
	if f := fields(hs.line(hs.row("mDestroyed (Activity)"))); len(f) != 4 || f[2] != "boolean" || f[3] != "true" {
		t.Errorf("Activity.mDestroyed row %q\n%s", f, hs.text())
	}
	hs.must("InboxActivity@"+hex(leak.ID),
		"Referrers (", "← this$0", holder.Class+"@"+hex(holder.ID),
		"retained", size(leak.Retained), fmt.Sprintf("%d (p: the path", len(leak.Path)))
	// Enter on the referrer opens it.
	for !strings.Contains(hs.selected(), "← this$0") {
		hs.key(tcell.KeyDown, 0)
	}
	hs.enter()
	if got := hs.object(); got != holder.Class+"@"+hex(holder.ID) {
		t.Errorf("Enter on the referrer opened %q", got)
	}
	hs.must("this$0", "com.example.mail.InboxActivity@"+hex(leak.ID))
	hs.back()
	if got := hs.object(); got != leak.Class+"@"+hex(leak.ID) {
		t.Errorf("Backspace came back to %q", got)
	}
	// p: the path from the GC root, one row per hop with the field.
	hs.keys("p")
	if got := hs.v.Current().Title(); got != "Path to InboxActivity@"+hex(leak.ID) {
		t.Errorf("p opened %q", got)
	}
	hs.must("HELD BY")
	y := hs.row("GC root") + hs.row("class object") + 1 // whichever is drawn
	for i, hop := range leak.Path {
		line := hs.line(y + i)
		class := hop.Class
		if class == "java.lang.Class" {
			class = "class "
		}
		if !strings.Contains(line, class) || !strings.Contains(line, "@"+hex(hop.ID)) || (i > 0 && !strings.HasPrefix(line, hop.Field)) {
			t.Errorf("path row %d %q, want %s@%s via %s\n%s", i, line, hop.Class, hex(hop.ID), hop.Field, hs.text())
		}
	}
	// Each hop opens.
	hs.key(tcell.KeyDown, 0)
	hs.enter()
	if got := hs.object(); !strings.HasSuffix(got, "@"+hex(leak.Path[1].ID)) {
		t.Errorf("Enter on the second hop opened %q, want %s", got, hex(leak.Path[1].ID))
	}
}

// Dominators: the top level by retained size with its share of the
// heap; → opens a node's children.
func TestDominatorsExpand(t *testing.T) {
	file, e := writeScene(t, scene.Options{})
	hs := open(t, file, "", 120, 40, style.Palette{})
	hs.keys("2")
	hs.must("OBJECT", "RETAINED", "% HEAP", "▸ ")
	leak := leakOf(e, "com.example.mail.InboxActivity")
	monitor := leak.Path[0] // the class object whose static list holds the listener
	list := leak.Path[1]
	for i := 0; i < 40 && !strings.Contains(hs.selected(), "ConnectivityMonitor"); i++ {
		hs.key(tcell.KeyDown, 0)
	}
	if !strings.Contains(hs.selected(), "@"+hex(monitor.ID)) {
		t.Fatalf("selected %q, want the monitor class %s\n%s", hs.selected(), hex(monitor.ID), hs.text())
	}
	hs.mustNot(list.Class + "@" + hex(list.ID))
	hs.keys("l")
	y := hs.row(list.Class + "@" + hex(list.ID))
	if y < 0 {
		t.Fatalf("expanding the monitor shows no %s:\n%s", list.Class, hs.text())
	}
	if !strings.HasPrefix(strings.TrimSpace(hs.line(y-1)), "▾ class com.example.mail.net.ConnectivityMonitor") &&
		!strings.Contains(hs.text(), "▾ class com.example.mail.net.ConnectivityMonitor") {
		t.Errorf("the monitor is not drawn open:\n%s", hs.text())
	}
	if !strings.HasPrefix(hs.line(y), "  ▸ ") && !strings.HasPrefix(hs.line(y), "    ") {
		t.Errorf("child %q not indented", hs.line(y))
	}
	// The percentage is the share of the reachable heap's shallow bytes.
	m := hs.v.Model()
	n, _ := m.Heap.Lookup(uint64(monitor.ID))
	if pc := percent(m.Heap.Retained(n), m.reachable); !strings.Contains(hs.selected(), pc) {
		t.Errorf("monitor row %q lacks %s", hs.selected(), pc)
	}
	// Enter opens the selected node, p its path.
	for i := 0; i < 5 && !strings.Contains(hs.selected(), hex(list.ID)); i++ {
		hs.key(tcell.KeyDown, 0)
	}
	hs.enter()
	if got := hs.object(); got != list.Class+"@"+hex(list.ID) {
		t.Errorf("Enter on the dominated list opened %q", got)
	}
	hs.back()
	hs.keys("p")
	if got := hs.v.Current().Title(); got != "Path to ArrayList@"+hex(list.ID) {
		t.Errorf("p opened %q", got)
	}
	hs.back()
	hs.keys("hh")
	hs.mustNot(list.Class + "@" + hex(list.ID))
}

// Leaks: every leak with its retained size and the hop to blame; Enter
// shows the chain with that hop marked.
func TestLeaksBlameTheRightHop(t *testing.T) {
	file, e := writeScene(t, scene.Options{})
	hs := open(t, file, "", 120, 40, style.Palette{})
	hs.keys("3")
	causes := map[string]string{
		"com.example.mail.InboxActivity":          "static ConnectivityMonitor.sListeners",
		"com.example.mail.ComposeActivity":        "Handler.mCallback",
		"com.example.mail.SettingsActivity":       "Thread.target",
		"com.example.mail.ui.MessageListFragment": "static FragmentCache.sLastFragment",
		"com.example.mail.legacy.PrefsFragment":   "PrefsCallback.mFragment",
	}
	for _, l := range e.Leaks {
		simple := l.Class[strings.LastIndexByte(l.Class, '.')+1:]
		y := hs.row(" " + simple + "@" + hex(l.ID))
		if y < 0 {
			y = hs.row(simple + "@" + hex(l.ID))
		}
		if y < 0 {
			t.Fatalf("no row for leak %s:\n%s", l, hs.text())
		}
		line := hs.line(y)
		if !strings.Contains(line, " "+l.Reason+" ") || !strings.Contains(line, size(l.Retained)) ||
			!strings.Contains(line, fmt.Sprintf(" %d ", len(l.Path))) {
			t.Errorf("leak row %q, want %s %s depth %d", line, l.Reason, size(l.Retained), len(l.Path))
		}
		if c, ok := causes[l.Class]; ok && !strings.HasSuffix(line, c) {
			t.Errorf("leak row %q, want the cause %s", line, c)
		}
	}
	// The chain of the InboxActivity, the static list marked.
	leak := leakOf(e, "com.example.mail.InboxActivity")
	for !strings.Contains(hs.selected(), hex(leak.ID)) {
		hs.key(tcell.KeyDown, 0)
	}
	hs.must("▶  .sListeners → java.util.ArrayList@" + hex(leak.Path[1].ID) + "  ◀ likely cause")
	hs.enter()
	if got := hs.v.Current().Title(); got != "Chain to InboxActivity@"+hex(leak.ID) {
		t.Errorf("Enter opened %q", got)
	}
	y := hs.row("◀ likely cause")
	if y < 0 || !strings.HasPrefix(hs.line(y), "sListeners") || !strings.Contains(hs.selected(), "sListeners") {
		t.Errorf("blamed row %d %q, selected %q\n%s", y, hs.line(y), hs.selected(), hs.text())
	}
}

// Heap.BlameStep on paths of every shape the scene plants, and the edge cases.
func TestBlameHopRule(t *testing.T) {
	file, e := writeScene(t, scene.Options{API: 24})
	h, err := heapdump.Open(file, heapdump.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	want := map[string]string{
		"com.example.mail.InboxActivity":    "sListeners",
		"com.example.mail.ComposeActivity":  "mCallback",
		"com.example.mail.SettingsActivity": "target",
	}
	for _, l := range h.Leaks().Find() {
		b := h.Leaks().BlameStep(l.Path)
		if w, ok := want[h.ClassName(l.Node)]; ok && l.Path[b].Field != w {
			t.Errorf("%s: blamed %q, want %q", h.ClassName(l.Node), l.Path[b].Field, w)
		}
	}
	if h.Leaks().BlameStep(nil) != 0 || h.Leaks().BlameStep([]heapdump.PathStep{{Node: 0}}) != 0 {
		t.Error("a path of one node has no hop to blame")
	}
	_ = e
}

// Duplicate strings: each group with its copies and waste; Enter lists
// the String objects.
func TestDuplicateStrings(t *testing.T) {
	file, e := writeScene(t, scene.Options{})
	hs := open(t, file, "", 120, 40, style.Palette{})
	hs.keys("4")
	i := 0
	for _, d := range e.Duplicates {
		if d.Wasted == 0 { // "" and copies sharing one array waste nothing: left out
			continue
		}
		line := hs.line(3 + i)
		if !strings.HasPrefix(line, quote(d.Value)) || !strings.Contains(line, " "+count(d.Count)+" ") || !strings.HasSuffix(line, size(d.Wasted)) {
			t.Errorf("row %d %q, want %q ×%d %s", i, line, d.Value, d.Count, size(d.Wasted))
		}
		i++
	}
	if i == len(e.Duplicates) || strings.TrimSpace(hs.line(3+i)) != "" {
		t.Errorf("the scene has no group that wastes nothing, or it is shown: row %d %q", i, hs.line(3+i))
	}
	hs.filter("INBOX")
	hs.enter()
	var inbox scene.Duplicate
	for _, d := range e.Duplicates {
		if d.Value == "INBOX" {
			inbox = d
		}
	}
	hs.must(fmt.Sprintf(`"INBOX" ×%d`, inbox.Count))
	if n := strings.Count(hs.text(), `java.lang.String@`); n != inbox.Count {
		t.Errorf("%d String objects listed, want %d\n%s", n, inbox.Count, hs.text())
	}
}

// A dump that cannot be analysed says why, on its own page.
func TestFailedDumpSaysWhy(t *testing.T) {
	file := t.TempDir() + "/bad.hprof"
	if err := os.WriteFile(file, []byte("JAVA PROFILE 9.9\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := open(t, file, "", 100, 20, style.Palette{})
	hs.must("Cannot analyse bad.hprof", "bad.hprof — not analysed")
	if hs.v.Err() == nil {
		t.Error("Err is nil")
	}
	hs.keys("2") // no other tab, nothing happens
	hs.must("Cannot analyse bad.hprof")
}
