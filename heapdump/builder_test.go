package heapdump

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/testkit/hprofref"
)

// Synthetic type ids of the graph fed from a reference dump: one per
// primitive array type, one for java.lang.Class.
const (
	primTypeID  = 0xfff0_0000_0000_0000
	classTypeID = 0xfff1_0000_0000_0000
)

// feedGraph feeds the heap of a parsed dump into a Builder as a heap graph
// reader would: types with their own reference fields, objects with their
// references only (no primitive values), class objects with named
// statics, roots. Instances of classes with a CLASS DUMP take their size
// from their type.
func feedGraph(t *testing.T, d *hprofref.Dump) *Heap {
	t.Helper()
	b := NewBuilder("test heap graph", Options{})
	typed := map[uint64]bool{}
	addType := func(id uint64, name string, ci *hprofref.ClassInfo) {
		if typed[id] {
			return
		}
		typed[id] = true
		tp := Type{ID: id, Name: name}
		if ci != nil {
			tp.Super, tp.InstanceSize = ci.Super, uint64(ci.InstanceSize)
			for _, f := range ci.Fields {
				if f.Type == hprof.TypeObject || f.Type == 1 {
					tp.RefFields = append(tp.RefFields, f.Name)
				}
			}
		}
		b.Type(tp)
	}
	for id, ci := range d.Classes {
		addType(id, d.ClassName(&hprofref.Node{Class: id}), ci)
	}
	addType(classTypeID, "java.lang.Class", nil)
	for _, id := range d.Order {
		n := d.Nodes[id]
		o := Object{ID: id, Heap: n.Heap, Size: d.Shallow(n)}
		switch n.Kind {
		case hprofref.KindInstance:
			o.Kind, o.Type = KindInstance, n.Class
			if d.Classes[n.Class] != nil {
				o.Size = SizeOfType
			} else {
				addType(n.Class, d.ClassName(n), nil)
			}
			for _, f := range d.Fields(n) {
				if f.Type == hprof.TypeObject || f.Type == 1 {
					o.Refs = append(o.Refs, f.Value)
				}
			}
		case hprofref.KindObjArray:
			o.Kind, o.Type, o.Refs = KindObjectArray, n.Class, n.Elems
			addType(n.Class, d.ClassName(n), d.Classes[n.Class])
		case hprofref.KindPrimArray:
			o.Kind, o.Type = KindPrimitiveArray, primTypeID+uint64(n.ElemType)
			addType(o.Type, d.ClassName(n), nil)
		case hprofref.KindClass:
			o.Kind, o.Type, o.ClassOf = KindClass, classTypeID, id
			o.RefFields = []string{} // named, even when it has none
			for _, s := range d.Classes[id].Statics {
				if s.Type == hprof.TypeObject || s.Type == 1 {
					o.Refs = append(o.Refs, s.Value)
					o.RefFields = append(o.RefFields, s.Name)
				}
			}
		}
		b.Object(o)
	}
	for _, id := range d.Roots {
		b.Root(id)
	}
	h, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A heap fed through the Builder (references only, as a heap graph holds
// them) agrees with the reference analyser on the same heap read from
// HPROF in everything references decide: the class histogram with
// retained sizes, the heaps, the top dominators, every node's immediate
// dominator and retained size, shortest paths (valid, of the right
// length), and the detached Fragments; what needs primitive values
// (Activities' flags, strings, bitmaps) is reported unavailable, not
// guessed.
func TestBuilderAgainstReference(t *testing.T) {
	for _, c := range crossCases() {
		t.Run(c.name, func(t *testing.T) {
			data := buildCase(t, c)
			d, err := hprofref.Read(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			ref := d.Analyze()
			want := ref.Result()
			h := feedGraph(t, d)
			defer h.Close()
			var got hprofref.Result
			report := h.Report(1 << 30)
			viaJSON(t, report, &got)
			// The reference orders ties and heaps its own way: compare sets.
			slices.SortFunc(got.Classes, func(a, b hprofref.Class) int { return strings.Compare(a.Name, b.Name) })
			slices.SortFunc(want.Classes, func(a, b hprofref.Class) int { return strings.Compare(a.Name, b.Name) })
			slices.SortFunc(got.Heaps, func(a, b hprofref.Heap) int { return strings.Compare(a.Name, b.Name) })
			slices.SortFunc(want.Heaps, func(a, b hprofref.Heap) int { return strings.Compare(a.Name, b.Name) })
			if len(got.Classes) < 40 || !slices.Equal(got.Classes, want.Classes) {
				t.Errorf("classes\n got %v\nwant %v", got.Classes, want.Classes)
			}
			if !slices.Equal(got.Heaps, want.Heaps) {
				t.Errorf("heaps\n got %v\nwant %v", got.Heaps, want.Heaps)
			}
			if !slices.Equal(got.Dominators, want.Dominators) {
				t.Errorf("dominators\n got %v\nwant %v", got.Dominators, want.Dominators)
			}
			for x := range h.NumNodes() {
				n := Node(x)
				id := h.ID(n)
				if h.Reachable(n) != ref.Reachable(id) {
					t.Fatalf("%#x: reachable %v, reference %v", id, h.Reachable(n), ref.Reachable(id))
				}
				if !h.Reachable(n) {
					continue
				}
				if h.Retained(n) != ref.Retained[id] {
					t.Errorf("%#x %s: retained %d, reference %d", id, h.ClassName(n), h.Retained(n), ref.Retained[id])
				}
				dom, _ := h.Dominator(n)
				wantDom := ref.Idom[id]
				if (dom == SuperRoot) != (wantDom == 0) || (dom != SuperRoot && h.ID(dom) != wantDom) {
					t.Errorf("%#x: dominator %d, reference %#x", id, dom, wantDom)
				}
				var hops []hprofref.Hop
				viaJSON(t, h.Paths().JSON(h.Paths().ToRoot(n)), &hops)
				if err := ref.ValidPath(hops); err != nil {
					t.Errorf("%#x: %v", id, err)
				}
			}
			var wantLeaks []hprofref.Leak
			for _, l := range want.Leaks {
				if l.Kind == "fragment" {
					wantLeaks = append(wantLeaks, l)
				}
			}
			if len(wantLeaks) == 0 {
				t.Error("test setup: the scene plants no detached Fragment")
			}
			if fmt.Sprint(leakIDs(got.Leaks)) != fmt.Sprint(leakIDs(wantLeaks)) {
				t.Errorf("leaks %v, reference's fragments %v", leakIDs(got.Leaks), leakIDs(wantLeaks))
			}
			for _, section := range []string{"leaks", "duplicate_strings", "bitmaps"} {
				if !strings.Contains(report.Unavailable[section], "no primitive values") {
					t.Errorf("unavailable[%s] = %q", section, report.Unavailable[section])
				}
			}
			if len(got.DuplicateStrings) != 0 || len(got.Bitmaps) != 0 {
				t.Errorf("strings %v, bitmaps %v from a dump without values", got.DuplicateStrings, got.Bitmaps)
			}
		})
	}
}

func leakIDs(ls []hprofref.Leak) []string {
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%#x %s %s", uint64(l.ID), l.Kind, l.Reason))
	}
	slices.Sort(out)
	return out
}

// The same heap through HPROF and through the Builder: one model, the same
// answers for everything references decide.
func TestBuilderAgreesWithHPROF(t *testing.T) {
	data, _, err := scene.Build(scene.Options{Seed: 9, Filler: []hprof.ClassCount{{Name: "java.lang.Object[]", Instances: 50}}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := hprofref.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	g := feedGraph(t, d)
	hp := analyseBytes(t, data)
	if !slices.Equal(g.Histogram(), hp.Histogram()) || !slices.Equal(g.Histogram("app"), hp.Histogram("app")) {
		t.Error("histograms differ")
	}
	if len(Diff(hp.Histogram(), g.Histogram())) != 0 {
		t.Error("the diff of the two forms is not empty")
	}
	for x := range hp.NumNodes() {
		n := Node(x)
		m, ok := g.Lookup(hp.ID(n))
		if !ok {
			t.Fatalf("%#x is missing from the graph", hp.ID(n))
		}
		if hp.Paths().Depth(n) != g.Paths().Depth(m) || hp.Retained(n) != g.Retained(m) || hp.HeapName(n) != g.HeapName(m) {
			t.Errorf("%#x: depth %d/%d retained %d/%d", hp.ID(n), hp.Paths().Depth(n), g.Paths().Depth(m), hp.Retained(n), g.Retained(m))
		}
		if a, b := hp.Referrers(n), g.Referrers(m); len(a) != len(b) {
			t.Errorf("%#x: %d referrers, %d in the graph", hp.ID(n), len(a), len(b))
		}
		if hp.ClassObjectName(n) != g.ClassObjectName(m) {
			t.Errorf("%#x: class object of %q, %q in the graph", hp.ID(n), hp.ClassObjectName(n), g.ClassObjectName(m))
		}
	}
}

// Bad input to the Builder is an error that names the object or type.
func TestBuilderErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		feed func(b *Builder)
		want string
	}{
		{"repeated id", func(b *Builder) {
			b.Type(Type{ID: 1, Name: "A"})
			b.Object(Object{ID: 5, Type: 1, Kind: KindInstance})
			b.Object(Object{ID: 5, Type: 1, Kind: KindInstance})
		}, "object id 0x5 is given twice"},
		{"undefined type", func(b *Builder) {
			b.Object(Object{ID: 5, Type: 9, Kind: KindInstance})
		}, "object 0x5 is of type 0x9, which is not given"},
		{"repeated type", func(b *Builder) {
			b.Type(Type{ID: 1, Name: "A"})
			b.Type(Type{ID: 1, Name: "B"})
		}, "type 0x1 (B) is given twice"},
		{"names and refs", func(b *Builder) {
			b.Object(Object{ID: 5, Type: 1, Kind: KindClass, Refs: []uint64{1, 2}, RefFields: []string{"a"}})
		}, "object 0x5: 1 field names for 2 references"},
		{"id 0", func(b *Builder) { b.Object(Object{Type: 1, Kind: KindInstance}) }, "object 0 has id 0"},
		{"kind", func(b *Builder) { b.Object(Object{ID: 3, Type: 1, Kind: 7}) }, "object 0x3: kind 0x7"},
	} {
		b := NewBuilder("test", Options{})
		c.feed(b)
		if _, err := b.Finish(); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// A small graph worked by hand: the referent of a WeakReference is not a
// strong edge, a superclass's field follows the class's own, a cycle of
// superclasses ends, a reference to an id that is no object is kept as a
// value but is no edge, and per-object names on a class object name its
// statics.
func TestBuilderByHand(t *testing.T) {
	b := NewBuilder("hand", Options{})
	b.Type(Type{ID: 1, Name: "java.lang.ref.Reference", InstanceSize: 8, RefFields: []string{"referent"}})
	b.Type(Type{ID: 2, Name: "java.lang.ref.WeakReference", Super: 1, InstanceSize: 8})
	b.Type(Type{ID: 3, Name: "Node", Super: 4, InstanceSize: 16, RefFields: []string{"next"}})
	b.Type(Type{ID: 4, Name: "Base", Super: 3, InstanceSize: 16, RefFields: []string{"owner"}}) // a cycle
	b.Type(Type{ID: 5, Name: "java.lang.Class<Node>", InstanceSize: 4})
	b.Object(Object{ID: 0x10, Type: 5, Kind: KindClass, ClassOf: 3, Size: SizeOfType, Refs: []uint64{0x20}, RefFields: []string{"Node.sHead"}})
	b.Object(Object{ID: 0x20, Type: 3, Kind: KindInstance, Size: SizeOfType, Heap: "app", Refs: []uint64{0x30, 0x99}}) // next, owner (no object)
	b.Object(Object{ID: 0x30, Type: 3, Kind: KindInstance, Size: 40, Heap: "app", Refs: []uint64{0, 0x40}})
	b.Object(Object{ID: 0x40, Type: 2, Kind: KindInstance, Size: SizeOfType, Heap: "app", Refs: []uint64{0x50}})
	b.Object(Object{ID: 0x50, Type: 3, Kind: KindInstance, Size: SizeOfType, Heap: "app"})
	h, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	n := func(id uint64) Node {
		x, ok := h.Lookup(id)
		if !ok {
			t.Fatalf("no %#x", id)
		}
		return x
	}
	if h.Reachable(n(0x50)) {
		t.Error("the referent of a WeakReference is reachable")
	}
	// 0x10 retains 4 + 16 + 40 + 8.
	if got := h.Retained(n(0x10)); got != 68 {
		t.Errorf("retained %d, want 68", got)
	}
	path := h.Paths().ToRoot(n(0x40))
	var names []string
	for _, s := range path {
		names = append(names, s.Field)
	}
	if fmt.Sprint(names) != "[ sHead next owner]" {
		t.Errorf("path fields %q", names)
	}
	if h.ClassObjectName(n(0x10)) != "Node" || h.ClassName(n(0x10)) != "java.lang.Class<Node>" {
		t.Errorf("class object %q of %q", h.ClassName(n(0x10)), h.ClassObjectName(n(0x10)))
	}
	fs := h.Fields(n(0x20))
	if len(fs) != 2 || fs[1].Name != "owner" || fs[1].Declarer != "Base" || fs[1].Bits != 0x99 || fs[1].Ref != -1 {
		t.Errorf("fields %+v", fs)
	}
	if fs := h.Fields(n(0x10)); len(fs) != 1 || !fs[0].Static || fs[0].Declarer != "Node" || fs[0].Name != "sHead" {
		t.Errorf("statics %+v", fs)
	}
	if kids := h.Dominators().Children(SuperRoot); len(kids) != 1 || kids[0] != n(0x10) {
		t.Errorf("top dominators %v", kids)
	}
	if h.Unavailable() == "" || h.Strings().Duplicates() != nil || h.Bitmaps().List() != nil {
		t.Error("values from a dump that has none")
	}
	var text bytes.Buffer
	if err := WriteText(&text, h.Report(0), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "not in this dump: "); n != 3 || !strings.HasPrefix(text.String(), "heap dump: hand, 5 objects (4 reachable)\n") {
		t.Errorf("the text report says %d times what is not in the dump:\n%s", n, text.String())
	}
}

// The Builder keeps an object's type id and size in 32 bits each: ids and
// sizes that do not fit, and the values next to the marks that stand for
// them, come back as given.
func TestBuilderWideTypesAndSizes(t *testing.T) {
	const wideType = 1 << 40
	b := NewBuilder("wide", Options{})
	b.Type(Type{ID: wideType, Name: "Wide", InstanceSize: 12})
	b.Type(Type{ID: math.MaxUint32 - 1, Name: "Edge", InstanceSize: 20})
	b.Type(Type{ID: 3, Name: "Small", InstanceSize: 7})
	sizes := map[uint64]uint64{
		0x10: 1 << 33,            // a size past 32 bits
		0x20: math.MaxUint32 - 1, // the SizeOfType mark's value, as a size
		0x30: math.MaxUint32,     // the wide mark's value, as a size
		0x40: 12,                 // SizeOfType of Wide
		0x50: 20,                 // SizeOfType of Edge
		0x60: 7,                  // SizeOfType of Small
		0x70: 9,
	}
	b.Object(Object{ID: 0x10, Type: 3, Kind: KindInstance, Size: 1 << 33, Refs: []uint64{0x20, 0x30, 0x40, 0x50, 0x60, 0x70}})
	b.Object(Object{ID: 0x20, Type: 3, Kind: KindInstance, Size: math.MaxUint32 - 1})
	b.Object(Object{ID: 0x30, Type: wideType, Kind: KindInstance, Size: math.MaxUint32})
	b.Object(Object{ID: 0x40, Type: wideType, Kind: KindInstance, Size: SizeOfType})
	b.Object(Object{ID: 0x50, Type: math.MaxUint32 - 1, Kind: KindInstance, Size: SizeOfType})
	b.Object(Object{ID: 0x60, Type: 3, Kind: KindInstance, Size: SizeOfType})
	b.Object(Object{ID: 0x70, Type: wideType, Kind: KindInstance, Size: 9})
	b.RootOf(0x10, 0)
	h, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	class := map[uint64]string{0x10: "Small", 0x20: "Small", 0x30: "Wide", 0x40: "Wide", 0x50: "Edge", 0x60: "Small", 0x70: "Wide"}
	var total uint64
	for id, want := range sizes {
		x, ok := h.Lookup(id)
		if !ok {
			t.Fatalf("no %#x", id)
		}
		if got := h.Shallow(x); got != want {
			t.Errorf("%#x: size %d, want %d", id, got, want)
		}
		if got := h.ClassName(x); got != class[id] {
			t.Errorf("%#x: class %q, want %q", id, got, class[id])
		}
		total += want
	}
	if root, _ := h.Lookup(0x10); h.Retained(root) != total {
		t.Errorf("the root retains %d, want %d", h.Retained(root), total)
	}
}
