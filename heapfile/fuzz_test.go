package heapfile

import (
	"bytes"
	"testing"

	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

// FuzzReadHeapGraph: whatever a trace holds, reading it into the model is
// a Heap or an error, never a panic; a Heap's report can be made. The
// seeds are perfetto/heapgraph's small vectors (testdata/fuzz) and one
// heap with a repeated id, so both of Feed's ways are reached.
func FuzzReadHeapGraph(f *testing.F) {
	for _, dup := range []bool{false, true} {
		f.Add(smallGraph(f, 34, dup))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ReadHeapGraph(bytes.NewReader(b), Options{})
		if err != nil {
			return
		}
		defer h.Close()
		_ = h.Report(10)
	})
}

// smallGraph writes a heap graph of a few objects: a class with a static
// holding an instance, the instance holding an array of itself; with dup,
// the array's id is written twice.
func smallGraph(tb testing.TB, api int, dup bool) []byte {
	var buf bytes.Buffer
	w := heapgraph.NewWriter(&buf, heapgraph.WriterOptions{API: api, PID: 3})
	next := w.FieldID("com.example.Foo com.example.Foo.next")
	items := w.FieldID("java.lang.Object[] com.example.Foo.items")
	static := w.FieldID("com.example.Foo com.example.Foo.sInstance")
	w.Roots(heapgraph.RootJNIGlobal, 0x100)
	w.Type(heapgraph.TypeSpec{ID: 1, Name: "java.lang.Object", ObjectSize: 8, Kind: heapgraph.KindNormal})
	w.Type(heapgraph.TypeSpec{ID: 2, Name: "com.example.Foo", SuperID: 1, ObjectSize: 16, Kind: heapgraph.KindNormal, RefFields: []uint32{next, items}})
	w.Type(heapgraph.TypeSpec{ID: 3, Name: "java.lang.Class<com.example.Foo>", ObjectSize: 0, Kind: heapgraph.KindClass})
	w.Type(heapgraph.TypeSpec{ID: 4, Name: "java.lang.Object[]", Kind: heapgraph.KindArray})
	w.Object(heapgraph.ObjectSpec{ID: 0x10, TypeID: 3, Size: 4, Heap: heapgraph.HeapApp, Kind: heapgraph.KindClass, Refs: []uint64{0x100}, Fields: []uint32{static}})
	w.Object(heapgraph.ObjectSpec{ID: 0x100, TypeID: 2, Size: 16, TypeSize: 16, Heap: heapgraph.HeapApp, Kind: heapgraph.KindNormal, Refs: []uint64{0, 0x200}, Fields: []uint32{next, items}})
	w.Object(heapgraph.ObjectSpec{ID: 0x200, TypeID: 4, Size: 12, Heap: heapgraph.HeapApp, Kind: heapgraph.KindArray, Refs: []uint64{0x100, 0x100}})
	if dup {
		w.Object(heapgraph.ObjectSpec{ID: 0x200, TypeID: 4, Size: 8, Heap: heapgraph.HeapApp, Kind: heapgraph.KindArray, Refs: []uint64{0x10}})
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// The small graph read both ways: ids that do not repeat take the column
// path, a repeated one the other (the first counts, D1); the answers are
// the same but for the repeated array's second dump.
func TestSmallGraphBothWays(t *testing.T) {
	for _, dup := range []bool{false, true} {
		h, err := ReadHeapGraph(bytes.NewReader(smallGraph(t, 34, dup)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := h.Report(10)
		arr, _ := h.Lookup(0x200)
		foo, _ := h.Lookup(0x100)
		if r.Objects != 3 || h.Shallow(arr) != 12 || h.Retained(foo) != 28 || h.ClassName(arr) != "java.lang.Object[]" {
			t.Errorf("dup %v: %d objects, array %d bytes, Foo retains %d", dup, r.Objects, h.Shallow(arr), h.Retained(foo))
		}
		if p := h.Paths().ToRoot(arr); len(p) != 2 { // the JNI global Foo, then its items
			t.Errorf("dup %v: path to the array %v", dup, p)
		}
		h.Close()
	}
}
