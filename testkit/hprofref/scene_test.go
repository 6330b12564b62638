package hprofref

import (
	"bytes"
	"fmt"
	"image/png"
	"reflect"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// sceneVariants are the scenes every test below checks: ART at several API
// levels (Dalvik strings, mBuffer bitmaps, compressed strings, dumpData
// with PNG and JPEG) and the standard 8-byte form.
var sceneVariants = []scene.Options{
	{Seed: 1},
	{Seed: 2, API: 19},
	{Seed: 3, API: 25},
	{Seed: 4, API: 35},
	{Seed: 5, API: 35, BitmapFormat: "png"},
	{Seed: 6, API: 35, BitmapFormat: "jpg"},
	{Seed: 7, Standard: true},
	{Seed: 8, Standard: true, API: 23},
	{Seed: 9, API: 35, BitmapFormat: "png", Filler: []hprof.ClassCount{{Name: "com.example.mail.data.Item", Instances: 40},
		{Name: "java.lang.String", Instances: 20}, {Name: "int[]", Instances: 10}, {Name: "java.lang.Object[]", Instances: 5}}},
}

func analyzeScene(t *testing.T, o scene.Options) (*Analysis, *scene.Expect, []byte) {
	t.Helper()
	data, want, err := scene.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return d.Analyze(), want, data
}

func variantName(o scene.Options) string {
	form := "art"
	if o.Standard {
		form = "std"
	}
	return fmt.Sprintf("%s-api%d-%s-fill%d", form, o.API, o.BitmapFormat, len(o.Filler))
}

// The reference analysis of every scene gives exactly the planted answers.
func TestSceneAnswers(t *testing.T) {
	for _, o := range sceneVariants {
		t.Run(variantName(o), func(t *testing.T) {
			a, want, _ := analyzeScene(t, o)
			checkScene(t, a, want)
		})
	}
}

// The same after hprof.Convert (hprof-conv): the answers Expect.Converted
// gives, a ROOT UNREACHABLE turned into ROOT UNKNOWN included.
func TestConvertedSceneAnswers(t *testing.T) {
	for _, o := range sceneVariants {
		if o.Standard {
			continue
		}
		t.Run(variantName(o), func(t *testing.T) {
			data, want, err := scene.Build(o)
			if err != nil {
				t.Fatal(err)
			}
			var conv bytes.Buffer
			if err := hprof.Convert(&conv, bytes.NewReader(data), hprof.ConvertOptions{}); err != nil {
				t.Fatal(err)
			}
			d, err := Read(&conv)
			if err != nil {
				t.Fatal(err)
			}
			got := want.Converted()
			if len(got.Leaks) != len(want.Leaks)+1 {
				t.Fatalf("converted: %d leaks, want %d", len(got.Leaks), len(want.Leaks)+1)
			}
			checkScene(t, d.Analyze(), got)
		})
	}
}

func checkScene(t *testing.T, a *Analysis, want *scene.Expect) {
	t.Helper()
	d := a.D
	if d.Version != want.Version || d.IDSize != want.IDSize {
		t.Errorf("header %s/%d, want %s/%d", d.Version, d.IDSize, want.Version, want.IDSize)
	}
	if len(d.Order) != want.Nodes {
		t.Errorf("%d nodes, want %d", len(d.Order), want.Nodes)
	}
	got := a.Result()
	var heaps []scene.Heap
	for _, h := range got.Heaps {
		heaps = append(heaps, scene.Heap{Name: h.Name, Objects: h.Objects, Bytes: h.Bytes})
	}
	if !reflect.DeepEqual(heaps, want.Heaps) {
		t.Errorf("heaps %+v\nwant %+v", heaps, want.Heaps)
	}
	if len(got.Classes) != len(want.Classes) {
		t.Errorf("%d classes, want %d", len(got.Classes), len(want.Classes))
	}
	for _, c := range got.Classes {
		if w := want.ClassRow(c.Name); w.Instances != c.Instances || w.Shallow != c.Shallow {
			t.Errorf("class %s: %d instances, %d bytes; want %d, %d", c.Name, c.Instances, c.Shallow, w.Instances, w.Shallow)
		}
	}
	checkLeaks(t, a, got.Leaks, want)
	for _, o := range want.NotLeaks {
		for _, l := range got.Leaks {
			if uint64(l.ID) == uint64(o.ID) {
				t.Errorf("%s %#x reported as a leak: %s", o.Class, uint64(o.ID), o.Why)
			}
		}
	}
	for _, o := range want.Unreachable {
		if d.Nodes[uint64(o.ID)] == nil || a.Reachable(uint64(o.ID)) {
			t.Errorf("%s %#x (%s): node %v, reachable %v", o.Class, uint64(o.ID), o.Why, d.Nodes[uint64(o.ID)] != nil, a.Reachable(uint64(o.ID)))
		}
	}
	for _, o := range want.Retained {
		if r, ok := a.Retained[uint64(o.ID)]; !ok || r != o.Retained {
			t.Errorf("retained(%s %#x, %s) = %d, %v; want %d", o.Class, uint64(o.ID), o.Why, r, ok, o.Retained)
		}
	}
	for _, o := range want.Depths {
		if a.Depth[uint64(o.ID)] != o.Depth {
			t.Errorf("depth(%s %#x, %s) = %d, want %d", o.Class, uint64(o.ID), o.Why, a.Depth[uint64(o.ID)], o.Depth)
		}
	}
	var dups []scene.Duplicate
	for _, s := range got.DuplicateStrings {
		dups = append(dups, scene.Duplicate{Value: s.Value, Count: s.Count, Wasted: s.Wasted})
	}
	if !reflect.DeepEqual(dups, want.Duplicates) {
		t.Errorf("duplicate strings %+v\nwant %+v", dups, want.Duplicates)
	}
	var bms []scene.Bitmap
	for _, b := range got.Bitmaps {
		bms = append(bms, scene.Bitmap{ID: hprof.ID(b.ID), Width: b.Width, Height: b.Height, PixelBytes: b.PixelBytes,
			PixelsInDump: b.PixelsInDump, Source: b.Source, Format: b.Format})
	}
	if !reflect.DeepEqual(bms, want.Bitmaps) {
		t.Errorf("bitmaps %+v\nwant %+v", bms, want.Bitmaps)
	}
	checkOddities(t, a, want)
}

func checkLeaks(t *testing.T, a *Analysis, got []Leak, want *scene.Expect) {
	t.Helper()
	if len(got) != len(want.Leaks) {
		t.Errorf("%d leaks, want %d", len(got), len(want.Leaks))
	}
	for _, w := range want.Leaks {
		var g *Leak
		for i := range got {
			if uint64(got[i].ID) == uint64(w.ID) {
				g = &got[i]
			}
		}
		if g == nil {
			t.Errorf("leak %s %#x not found", w.Class, uint64(w.ID))
			continue
		}
		if g.Class != w.Class || g.Kind != w.Kind || g.Reason != w.Reason || g.Retained != w.Retained {
			t.Errorf("leak %#x: %s %s %s %d; want %s %s %s %d", uint64(w.ID), g.Class, g.Kind, g.Reason, g.Retained,
				w.Class, w.Kind, w.Reason, w.Retained)
		}
		path := toHops(w.Path)
		if !reflect.DeepEqual(g.Path, path) {
			t.Errorf("leak %#x path\n%s\nwant %s", uint64(w.ID), hopsString(g.Path), w)
		}
		if err := a.ValidPath(path); err != nil {
			t.Errorf("leak %#x: planted path invalid: %v", uint64(w.ID), err)
		}
		if n := shortestPaths(a, uint64(w.ID)); n != 1 {
			t.Errorf("leak %#x: %d shortest paths, the scene promises one", uint64(w.ID), n)
		}
	}
}

func toHops(p []scene.Hop) []Hop {
	var out []Hop
	for i, h := range p {
		hop := Hop{Class: h.Class, ID: HexID(h.ID)}
		if i > 0 {
			f := h.Field
			hop.Field = &f
		}
		out = append(out, hop)
	}
	return out
}

func hopsString(p []Hop) string {
	var b bytes.Buffer
	for i, h := range p {
		if i > 0 {
			fmt.Fprintf(&b, " -%s-> ", *h.Field)
		}
		fmt.Fprintf(&b, "%s@%#x", h.Class, uint64(h.ID))
	}
	return b.String()
}

// checkOddities: the duplicated id, the class without CLASS DUMP, the PNG.
func checkOddities(t *testing.T, a *Analysis, want *scene.Expect) {
	t.Helper()
	d := a.D
	dup := d.Nodes[uint64(want.DuplicateID)]
	heap := "app"
	if want.Version == hprof.VersionStandard {
		heap = "default"
	}
	if dup == nil || dup.Kind != KindPrimArray || dup.Length != 64 || dup.Heap != heap || d.ClassName(dup) != "byte[]" {
		t.Errorf("duplicated id %#x: first dump not kept: %+v", uint64(want.DuplicateID), dup)
	}
	orphan := d.Nodes[uint64(want.NoClassDump)]
	if orphan == nil || d.Shallow(orphan) != 8 || len(d.Edges(orphan)) != 0 || !a.Reachable(orphan.ID) {
		t.Errorf("instance without CLASS DUMP: %+v", orphan)
	}
	if want.PNG != nil {
		if _, err := png.Decode(bytes.NewReader(want.PNG)); err != nil {
			t.Errorf("planted PNG: %v", err)
		}
		found := false
		for _, id := range d.Order {
			n := d.Nodes[id]
			found = found || (n.Kind == KindPrimArray && bytes.Equal(n.Data, want.PNG))
		}
		if !found {
			t.Error("the PNG is not in the dump")
		}
	}
}

// Diff of two scenes, the second with more filler: exactly the filler's
// classes (and the holding Object[]) grow, by what the scenes planted.
func TestSceneDiff(t *testing.T) {
	item := "com.example.mail.data.Item"
	small := scene.Options{Seed: 11, Filler: []hprof.ClassCount{{Name: item, Instances: 30}, {Name: "java.lang.String", Instances: 5}}}
	big := small
	big.Filler = []hprof.ClassCount{{Name: item, Instances: 75}, {Name: "java.lang.String", Instances: 5}}
	a1, w1, _ := analyzeScene(t, small)
	a2, w2, _ := analyzeScene(t, big)
	diff := Diff(a1.Result(), a2.Result())
	byName := map[string]DiffRow{}
	for _, r := range diff {
		byName[r.Name] = r
	}
	itemSize := int64(w2.ClassRow(item).Shallow / uint64(w2.ClassRow(item).Instances))
	if r := byName[item]; r.InstancesDelta != 45 || r.ShallowDelta != 45*itemSize || r.RetainedDelta != 45*itemSize {
		t.Errorf("item row %+v, want 45 instances, %d bytes shallow and retained", r, 45*itemSize)
	}
	// Every class's instance and shallow deltas are what the scenes hold.
	names := map[string]bool{}
	for _, c := range w1.Classes {
		names[c.Name] = true
	}
	for _, c := range w2.Classes {
		names[c.Name] = true
	}
	for name := range names {
		di := w2.ClassRow(name).Instances - w1.ClassRow(name).Instances
		ds := int64(w2.ClassRow(name).Shallow) - int64(w1.ClassRow(name).Shallow)
		if r := byName[name]; r.InstancesDelta != int64(di) || r.ShallowDelta != ds {
			t.Errorf("%s: %+v, want %d instances, %d bytes", name, r, di, ds)
		}
	}
	if objArr := byName["java.lang.Object[]"]; objArr.ShallowDelta != 45*4 || objArr.InstancesDelta != 0 {
		t.Errorf("Object[] row %+v: the store's array grows by 45 ids", objArr)
	}
	for i := 1; i < len(diff); i++ {
		if diff[i-1].ShallowDelta < diff[i].ShallowDelta {
			t.Errorf("diff not sorted by shallow delta: %+v before %+v", diff[i-1], diff[i])
		}
	}
}

// shortestPaths counts the shortest paths from the super-root to id (each
// labelled edge its own), layer by layer.
func shortestPaths(a *Analysis, id uint64) int {
	count := map[uint64]int{}
	for _, r := range a.RootSet {
		count[r] = 1
	}
	for depth := 1; depth < a.Depth[id]; depth++ {
		for v, dv := range a.Depth {
			if dv != depth {
				continue
			}
			for _, e := range a.D.Edges(a.D.Nodes[v]) {
				if a.Depth[e.To] == depth+1 {
					count[e.To] += count[v]
				}
			}
		}
	}
	return count[id]
}
