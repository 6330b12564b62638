package heapdump

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// units spells an ASCII string as UTF-16 code units.
func units(s string) []uint16 {
	u := make([]uint16, len(s))
	for i := range s {
		u[i] = uint16(s[i])
	}
	return u
}

// D13's offset and count rules at each of their boundaries, on a String
// class laid out value, count, offset (value at data offset 0, offset
// ending exactly at the data's end) that is the dump's first class, over a
// char[] that is node 0; and instances cut inside each of the three fields.
func TestStringContentBounds(t *testing.T) {
	ids := map[string]uint64{}
	var plain, abcd uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		str := b.Class("java.lang.String", nil, scene.F("value", hprof.TypeObject),
			scene.F("count", hprof.TypeInt), scene.F("offset", hprof.TypeInt))
		obj := b.Class("java.lang.Object[]", nil)
		ghost := b.Class("com.example.Ghost", nil, scene.F("value", hprof.TypeObject))
		ghost.Skip()
		abcd = b.Chars(units("abcd")) // node 0
		str.Dump()                    // class index 0
		obj.Dump()
		add := func(name string, off, count uint64) {
			ids[name] = b.Instance(str, scene.V{"value": abcd, "offset": off, "count": count})
		}
		add("1,2", 1, 2)
		add("0,2", 0, 2)
		add("1,3", 1, 3)           // count exactly up to the end
		add("2,3", 2, 3)           // one past the end: the whole array
		add("4,0", 4, 0)           // offset at the end, nothing counted
		add("1,0", 1, 0)           // an empty string inside the array
		add("-1,2", 0xffffffff, 2) // a negative offset: the whole array
		add("1,-1", 1, 0xffffffff) // a negative count: the whole array
		add("5,0", 5, 0)           // an offset past the end: the whole array
		be := binary.BigEndian
		cut := func(name string, n int) { // the instance's data cut to n bytes
			full := be.AppendUint32(be.AppendUint32(be.AppendUint32(nil, uint32(abcd)), 2), 1)
			ids[name] = b.ID()
			b.InstanceData(ids[name], str, full[:n])
		}
		cut("cut in value", 3)
		cut("cut in count", 6)
		cut("cut in offset", 10)
		cut("cut after offset", 12)
		plain = b.Instance(ghost, scene.V{"value": abcd})
		var all []uint64
		for _, id := range ids {
			all = append(all, id)
		}
		slices.Sort(all)
		b.Root(hprof.SubRootJNIGlobal, b.ObjectArray(obj, append(all, plain)...))
	})
	h := analyseBytes(t, data)
	want := map[string]string{
		"1,2": "bc", "0,2": "ab", "1,3": "bcd", "2,3": "abcd", "4,0": "", "1,0": "",
		"-1,2": "abcd", "1,-1": "abcd", "5,0": "abcd",
		"cut in count": "abcd", "cut in offset": "ab", "cut after offset": "bc",
	}
	for name, id := range ids {
		got, ok := h.Strings().Value(node(t, h, id))
		if w, has := want[name]; !has {
			if ok {
				t.Errorf("%s: content %q, want none", name, got)
			}
		} else if !ok || got != w {
			t.Errorf("%s: content %q %v, want %q", name, got, ok, w)
		}
	}
	if s, ok := h.Strings().Value(node(t, h, plain)); ok {
		t.Errorf("an instance of a class without CLASS DUMP has content %q", s)
	}
	if n := node(t, h, abcd); n != 0 {
		t.Fatalf("test setup: the char[] is node %d", n)
	}
	// The duplicates among them, member for member.
	got := map[string][]Node{}
	for _, d := range h.Strings().Duplicates() {
		got[d.Value] = d.Members
		if d.Wasted != 0 { // they share one array: it counts once (issue 38 #5)
			t.Errorf("%q: %d wasted by %d strings over one char[4]", d.Value, d.Wasted, d.Count)
		}
	}
	members := func(names ...string) []Node {
		var out []Node
		for _, n := range names {
			out = append(out, node(t, h, ids[n]))
		}
		slices.Sort(out)
		return out
	}
	for value, m := range map[string][]Node{
		"abcd": members("2,3", "-1,2", "1,-1", "5,0", "cut in count"),
		"ab":   members("0,2", "cut in offset"),
		"bc":   members("1,2", "cut after offset"),
		"":     members("4,0", "1,0"),
	} {
		if !slices.Equal(got[value], m) {
			t.Errorf("duplicates of %q: %v, want %v", value, got[value], m)
		}
		delete(got, value)
	}
	if len(got) != 0 {
		t.Errorf("more duplicate groups: %v", got)
	}
}

// An offset field at data offset 0 is read.
func TestStringOffsetFirst(t *testing.T) {
	var s uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		str := b.Class("java.lang.String", nil, scene.F("offset", hprof.TypeInt),
			scene.F("count", hprof.TypeInt), scene.F("value", hprof.TypeObject))
		s = b.Instance(str, scene.V{"value": b.Chars(units("abcd")), "offset": 1, "count": 2})
		b.Root(hprof.SubRootJNIGlobal, s)
	})
	h := analyseBytes(t, data)
	if got, ok := h.Strings().Value(node(t, h, s)); !ok || got != "bc" {
		t.Errorf("content %q %v, want \"bc\"", got, ok)
	}
}

// A cyclic superclass chain (A extends B extends A) ends where it loops:
// the fields are read over each class of the loop once (A, B), the leak
// and bitmap searches finish, and no class is taken for an Activity.
func TestCyclicSuperclasses(t *testing.T) {
	var x uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		a := b.Class("com.example.A", nil, scene.F("a", hprof.TypeInt))
		c := b.Class("com.example.B", a, scene.F("b", hprof.TypeInt))
		a.Super = c
		a.InstanceSize, c.InstanceSize = 16, 16
		a.Dump()
		c.Dump()
		x = b.ID()
		b.InstanceData(x, a, []byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4})
		b.Root(hprof.SubRootJNIGlobal, x)
	})
	h := analyseBytes(t, data)
	var got []string
	for _, f := range h.Fields(node(t, h, x)) {
		got = append(got, f.Declarer+"."+f.Name+"="+string(rune('0'+f.Bits)))
	}
	if want := []string{"com.example.A.a=1", "com.example.B.b=2"}; !slices.Equal(got, want) {
		t.Errorf("fields %v, want %v", got, want)
	}
	if l := h.Leaks().Find(); len(l) != 0 {
		t.Errorf("leaks %+v", l)
	}
	if bm := h.Bitmaps().List(); len(bm) != 0 {
		t.Errorf("bitmaps %+v", bm)
	}
}

// A path whose GC root is itself a container (an Object[] held by a JNI
// global) blames the root's reference, never the root itself.
func TestBlameStepContainerRoot(t *testing.T) {
	var arr, leaked uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		obj := b.Class("java.lang.Object[]", nil)
		app := b.Class("com.example.app.Leaked", nil)
		leaked = b.Instance(app, nil)
		arr = b.ObjectArray(obj, leaked)
		b.Root(hprof.SubRootJNIGlobal, arr)
	})
	h := analyseBytes(t, data)
	path := []PathStep{{Node: node(t, h, arr)}, {Node: node(t, h, leaked), Field: "[0]"}}
	if !isContainer(h, path[0].Node) {
		t.Fatal("test setup: the root is not a container")
	}
	if got := h.Leaks().BlameStep(path); got != 1 {
		t.Errorf("blame step %d, want 1", got)
	}
}

// The sequential walk's window: pages are given back once the walk is more
// than 2 MiB past the last release, up to 1 MiB behind it; a step back of
// more than 1 MiB behind the released edge starts over there.
func TestSequentialWindow(t *testing.T) {
	const m = 1 << 20
	s := &sequential{m: &mapping{}}
	for _, c := range []struct{ off, released int }{
		{2 * m, 0},         // exactly 2 MiB ahead: not yet
		{2*m + 1, m + 1},   // past it: released to 1 MiB behind
		{1, m + 1},         // exactly 1 MiB behind the edge: kept
		{0, 0},             // further back: start over at 0
		{10 * m, 9 * m},    //
		{5 * m, 4 * m},     // back: 1 MiB behind the new place
		{6 * m, 4 * m},     // exactly 2 MiB ahead of 4 MiB: not yet
		{6*m + 1, 5*m + 1}, // past it
		{4*m + 1, 5*m + 1}, // exactly 1 MiB behind: kept
		{4 * m, 3 * m},     // further back
	} {
		s.at(c.off)
		if s.released != c.released {
			t.Fatalf("at(%d): released %d, want %d", c.off, s.released, c.released)
		}
	}
	(&sequential{}).at(5 * m) // no heap: nothing to give back, no panic
}
