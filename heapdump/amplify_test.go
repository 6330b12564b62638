package heapdump

import (
	"fmt"
	"github.com/ddmtui/ddmtui/testkit/alloccount"
	"slices"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/testkit/hprofref"
)

// Issue 37 #1: a name is held once however many classes and fields name
// its STRING record. Here one 64 KiB string names 1,000 fields of one
// class and 1,000 classes (LOAD CLASS); copied on every use it cost
// 128 MB, interned by string id it costs its own size.
func TestNamesAreInternedByStringID(t *testing.T) {
	big := strings.Repeat("n", 64<<10)
	data := dump(t, 4, "", func(b *scene.Builder) {
		fields := make([]scene.Field, 1000)
		for i := range fields {
			fields[i] = scene.Field{Name: big, Type: hprof.TypeInt}
		}
		c := b.Class("Wide", nil, fields...)
		c.Statics = []scene.Static{{Name: big, Type: hprof.TypeObject}}
		c.Dump()
		b.Root(hprof.SubRootJNIGlobal, b.Instance(c, nil))
		for range 1000 {
			k := b.Class(big, nil)
			k.Dump()
		}
	})
	var h *Heap
	got := alloccount.Bytes(func() { h = analyseBytes(t, data) })
	if got > 8<<20 {
		t.Errorf("the analysis of a %d-byte file allocated %d MB", len(data), got>>20)
	}
	wide, named := Node(-1), 0
	for x := range h.NumNodes() {
		switch h.ClassObjectName(Node(x)) {
		case "Wide":
			wide = Node(x)
		case big:
			named++
		}
	}
	if wide < 0 || named != 1000 {
		t.Fatalf("class objects: Wide %d, %d named by the big string", wide, named)
	}
	var statics []Field
	got = alloccount.Bytes(func() {
		for range 100 {
			statics = h.Fields(wide)
		}
	})
	if len(statics) != 1 || statics[0].Name != big || got > 256<<10 {
		t.Errorf("100 listings of %d statics allocated %d KB", len(statics), got>>10)
	}
}

// Issue 37 #2: a class's reference fields over its superclass chain are
// not copied into every class of the chain. 2,000 classes in one chain
// with 10 reference fields each: flattened per class they were 20 million
// offsets (80 MB); the deepest class's instance still has all 20,000 of
// its edges, in data order, and a path through its last field.
func TestLongSuperclassChain(t *testing.T) {
	const depth, perClass = 2000, 10
	var leafID, short, target uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		var c *scene.ClassDecl
		for i := range depth {
			fields := make([]scene.Field, perClass)
			for k := range fields {
				fields[k] = scene.Field{Name: "f" + string(rune('a'+k)), Type: hprof.TypeObject}
			}
			c = b.Class("C"+strings.Repeat("x", i%7)+string(rune('A'+i%26)), c, fields...)
		}
		for k := c; k != nil; k = k.Super {
			k.Dump()
		}
		target = b.Bytes([]byte{1})
		// Every field of the chain names target except the topmost class's
		// last one, which is null.
		values := make([]byte, 0, depth*perClass*4)
		for i := range depth * perClass {
			id := target
			if i == depth*perClass-1 {
				id = 0
			}
			values = append(values, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
		}
		leafID = b.ID()
		b.InstanceData(leafID, c, values)
		b.Root(hprof.SubRootJNIGlobal, leafID)
		short = b.ID()
		b.InstanceData(short, c, values[:4*100+2]) // 100 values and half of one
		b.Root(hprof.SubRootJNIGlobal, short)
	})
	var h *Heap
	got := alloccount.Bytes(func() { h = analyseBytes(t, data) })
	if got > 16<<20 {
		t.Errorf("a chain of %d classes (%d-byte file) allocated %d MB", depth, len(data), got>>20)
	}
	leaf := node(t, h, leafID)
	if n := len(h.Outgoing(leaf)); n != depth*perClass-1 {
		t.Errorf("%d edges, want %d", n, depth*perClass-1)
	}
	if n := len(h.Outgoing(node(t, h, short))); n != 100 {
		t.Errorf("an instance with 100 values and a half: %d edges", n)
	}
	path := h.Paths().ToRoot(node(t, h, target))
	if len(path) != 2 || path[1].Field != "fa" {
		t.Errorf("path %+v", path)
	}
	fs := h.Fields(leaf)
	if len(fs) != depth*perClass || fs[len(fs)-1].Bits != 0 || fs[len(fs)-2].Ref != node(t, h, target) {
		t.Errorf("%d fields", len(fs))
	}
}

// leakScene writes Activities (mDestroyed) under a GC root: chains of
// chainLen Links ending in one Activity each (chains of them), and
// inArray more held by one Object[].
func leakScene(t *testing.T, chains, chainLen, inArray int) (data []byte, arrayID uint64, held []uint64) {
	t.Helper()
	data = dump(t, 4, "", func(b *scene.Builder) {
		object := b.Class("java.lang.Object", nil)
		activity := b.Class("android.app.Activity", object, scene.F("mDestroyed", hprof.TypeBoolean))
		link := b.Class("com.example.Link", object, scene.F("next", hprof.TypeObject))
		objArr := b.Class("java.lang.Object[]", object)
		for _, c := range []*scene.ClassDecl{object, activity, link, objArr} {
			c.Dump()
		}
		for range chains {
			next := b.Instance(activity, scene.V{"mDestroyed": 1})
			for range chainLen - 1 {
				next = b.Instance(link, scene.V{"next": next})
			}
			b.Root(hprof.SubRootJNIGlobal, next)
		}
		if inArray > 0 {
			held = make([]uint64, inArray)
			for i := range held {
				held[i] = b.Instance(activity, scene.V{"mDestroyed": 1})
			}
			arrayID = b.ObjectArray(objArr, held...)
			b.Root(hprof.SubRootJNIGlobal, arrayID)
		}
	})
	return data, arrayID, held
}

// Issue 37 #3: a path lists at most MaxPathSteps steps — the first and the
// last halves, the step after the gap saying how many it leaves out —
// while its depth stays the true one; the JSON and the text say so.
func TestLongLeakPathsAreCut(t *testing.T) {
	const depth = 600
	data, _, _ := leakScene(t, 3, depth, 0)
	h := analyseBytes(t, data)
	leaks := h.Leaks().Find()
	if len(leaks) != 3 {
		t.Fatalf("%d leaks", len(leaks))
	}
	for _, l := range leaks {
		if l.Depth != depth || len(l.Path) != MaxPathSteps {
			t.Fatalf("depth %d with %d steps listed, want %d with %d", l.Depth, len(l.Path), depth, MaxPathSteps)
		}
		half := MaxPathSteps / 2
		if l.Path[half].Omitted != depth-MaxPathSteps || l.Path[half-1].Omitted != 0 || l.Path[half].Field != "next" {
			t.Errorf("step %d: %+v", half, l.Path[half])
		}
		if last := l.Path[len(l.Path)-1]; last.Node != l.Node || h.Paths().Depth(l.Node) != depth {
			t.Errorf("the path does not end at the leak")
		}
	}
	r := h.Report(0)
	if r.Leaks[0].Depth != depth || len(r.Leaks[0].Path) != MaxPathSteps || r.Leaks[0].Path[MaxPathSteps/2].OmittedBefore != depth-MaxPathSteps {
		t.Errorf("JSON: depth %d, %d steps", r.Leaks[0].Depth, len(r.Leaks[0].Path))
	}
	var text strings.Builder
	if err := WriteText(&text, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "… 344 objects left out"); n != 3 {
		t.Errorf("the text says %d times that objects are left out:\n%.2000s", n, text.String())
	}
}

// Issue 37 #3: paths are listed for the MaxLeakPaths largest leaks only;
// every leak is still listed, with its depth; the array hops are named by
// one scan of the array for all the paths through it, not one each.
func TestLeakPathsAreCapped(t *testing.T) {
	n := MaxLeakPaths + 200
	data, arrayID, held := leakScene(t, 0, 0, n)
	h := analyseBytes(t, data)
	r := h.vals.(*hprofFile)
	before := r.scanned.Load()
	leaks := h.Leaks().Find()
	scanned := r.scanned.Load() - before
	if len(leaks) != n {
		t.Fatalf("%d leaks, want %d", len(leaks), n)
	}
	withPath := 0
	index := map[uint64]int{}
	for i, id := range held {
		index[id] = i
	}
	for _, l := range leaks {
		if l.Depth != 2 {
			t.Fatalf("depth %d", l.Depth)
		}
		if l.Path == nil {
			continue
		}
		withPath++
		if h.ID(l.Path[0].Node) != arrayID || l.Path[1].Field != fmt.Sprintf("[%d]", index[h.ID(l.Node)]) {
			t.Fatalf("path %+v", l.Path)
		}
	}
	if withPath != MaxLeakPaths {
		t.Errorf("%d leaks with a path, want %d", withPath, MaxLeakPaths)
	}
	if scanned > uint64(2*n) {
		t.Errorf("%d array elements read to name the hops of %d paths through one array of %d", scanned, withPath, n)
	}
	rep := h.Report(0)
	omitted := 0
	for _, l := range rep.Leaks {
		if l.PathOmitted {
			omitted++
			if len(l.Path) != 0 {
				t.Errorf("a leak without a path lists %d steps", len(l.Path))
			}
		}
	}
	if omitted != 200 || len(rep.Leaks) != n {
		t.Errorf("JSON: %d leaks, %d without their path", len(rep.Leaks), omitted)
	}
}

// Issue 38 #5: copies of a String that share one value array (Java's
// new String(s)) waste nothing: a value array counts once in a group's
// waste. Five copies share one char[] of "shared!", two more have arrays
// of their own with the same text: the group has 7 members and wastes two
// arrays, and the reference (testkit/hprofref) agrees.
func TestDuplicateStringsCountASharedArrayOnce(t *testing.T) {
	var arr uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		str := b.Class("java.lang.String", nil, scene.F("value", hprof.TypeObject), scene.F("count", hprof.TypeInt))
		str.Dump()
		arr = b.Chars(units("shared!"))
		var held []uint64
		for range 5 {
			held = append(held, b.Instance(str, scene.V{"value": arr, "count": 7}))
		}
		for range 2 {
			held = append(held, b.Instance(str, scene.V{"value": b.Chars(units("shared!")), "count": 7}))
		}
		objArr := b.Class("java.lang.String[]", nil)
		objArr.Dump()
		b.Root(hprof.SubRootJNIGlobal, b.ObjectArray(objArr, held...))
	})
	h := analyseBytes(t, data)
	dups := h.Strings().Duplicates()
	size := h.Shallow(node(t, h, arr))
	if len(dups) != 1 || dups[0].Count != 7 || dups[0].Wasted != 2*size || dups[0].Value != "shared!" {
		t.Fatalf("duplicates %+v, want 7 members wasting %d", dups, 2*size)
	}
	var got hprofref.Result
	viaJSON(t, h.Report(0), &got)
	want := reference(t, data).Result()
	if !slices.Equal(got.DuplicateStrings, want.DuplicateStrings) {
		t.Errorf("duplicates %v, reference %v", got.DuplicateStrings, want.DuplicateStrings)
	}
}
