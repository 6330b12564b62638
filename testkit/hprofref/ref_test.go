package hprofref

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
)

// tinyDump is a dump small enough to work out by hand:
//
//	Thing.sRoot -> T0 {a: T1, b: T2}; T1.a -> B; T2.a -> B (byte[10]): a diamond
//	JNI global -> W (WeakReference) {referent: X (byte[100]), queue: Q (Thing)}
//	ROOT UNKNOWN -> H (Holder, not a Reference) {referent: A (Object[] {null, T0})}
//	C (char[3]) named only by ROOT UNREACHABLE; 0xdead names no node
//	B dumped again (ignored) as an Object[] naming X
//
// Everything from H on is in heap "app", the rest in "default".
const (
	cObject, cRef, cWeak, cHolder, cThing, cObjArr = 0x100, 0x110, 0x120, 0x130, 0x140, 0x150
	oT0, oT1, oT2, oB, oW, oX, oQ, oH, oA, oC      = 0x1000, 0x1010, 0x1020, 0x1030, 0x1040, 0x1050, 0x1060, 0x1070, 0x1080, 0x1090
)

func tinyDump(t testing.TB) []byte {
	var buf bytes.Buffer
	w, err := hprof.NewWriter(&buf, hprof.Header{Version: hprof.VersionAndroid, IDSize: 4, Timestamp: 1})
	if err != nil {
		t.Fatal(err)
	}
	strs := []string{"java.lang.Object", "java.lang.ref.Reference", "java.lang.ref.WeakReference", "Holder", "Thing",
		"java.lang.Object[]", "referent", "queue", "a", "b", "n", "sRoot", "app"}
	sid := map[string]hprof.ID{}
	for i, s := range strs {
		sid[s] = hprof.ID(i + 1)
	}
	id4 := func(ids ...uint32) []byte {
		var b []byte
		for _, v := range ids {
			b = append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
		}
		return b
	}
	obj := func(n string) hprof.Field { return hprof.Field{Name: sid[n], Type: hprof.TypeObject} }
	recs := []hprof.Record{}
	for _, s := range strs {
		recs = append(recs, &hprof.UTF8{ID: sid[s], Text: s})
	}
	for i, c := range []struct {
		id   hprof.ID
		name string
	}{{cObject, "java.lang.Object"}, {cRef, "java.lang.ref.Reference"}, {cWeak, "java.lang.ref.WeakReference"},
		{cHolder, "Holder"}, {cThing, "Thing"}, {cObjArr, "java.lang.Object[]"}} {
		recs = append(recs, &hprof.LoadClass{Serial: uint32(i + 1), Class: c.id, Name: sid[c.name]})
	}
	recs = append(recs, &hprof.HeapDump{Segment: true},
		&hprof.Root{Kind: hprof.SubRootJNIGlobal, Object: oW},
		&hprof.Root{Kind: hprof.SubRootUnknown, Object: oH},
		&hprof.Root{Kind: hprof.SubRootUnreachable, Object: oC},
		&hprof.Root{Kind: hprof.SubRootDebugger, Object: 0xdead},
		&hprof.ClassDump{Class: cObject},
		&hprof.ClassDump{Class: cRef, Super: cObject, InstanceSize: 16, Fields: []hprof.Field{obj("referent"), obj("queue")}},
		&hprof.ClassDump{Class: cWeak, Super: cRef, InstanceSize: 16},
		&hprof.ClassDump{Class: cHolder, Super: cObject, InstanceSize: 20, Fields: []hprof.Field{obj("referent")}},
		&hprof.ClassDump{Class: cThing, Super: cObject, InstanceSize: 16,
			Statics: []hprof.StaticField{{Name: sid["sRoot"], Type: hprof.TypeObject, Value: oT0}},
			Fields:  []hprof.Field{obj("a"), obj("b"), {Name: sid["n"], Type: hprof.TypeInt}}},
		&hprof.ClassDump{Class: cObjArr, Super: cObject},
		&hprof.InstanceDump{Object: oT0, Class: cThing, Data: id4(oT1, oT2, 7)},
		&hprof.InstanceDump{Object: oT1, Class: cThing, Data: id4(oB, 0, 7)},
		&hprof.InstanceDump{Object: oT2, Class: cThing, Data: id4(oB, 0, 7)},
		&hprof.PrimitiveArrayDump{Array: oB, Type: hprof.TypeByte, Count: 10, Data: make([]byte, 10)},
		&hprof.InstanceDump{Object: oW, Class: cWeak, Data: id4(oX, oQ)},
		&hprof.PrimitiveArrayDump{Array: oX, Type: hprof.TypeByte, Count: 100, Data: make([]byte, 100)},
		&hprof.InstanceDump{Object: oQ, Class: cThing, Data: id4(0, 0, 0)},
		&hprof.HeapDumpInfo{Heap: hprof.HeapApp, Name: sid["app"]},
		&hprof.InstanceDump{Object: oH, Class: cHolder, Data: id4(oA)},
		&hprof.ObjectArrayDump{Array: oA, Class: cObjArr, Elements: []hprof.ID{0, oT0}},
		&hprof.PrimitiveArrayDump{Array: oC, Type: hprof.TypeChar, Count: 3, Data: make([]byte, 6)},
		&hprof.ObjectArrayDump{Array: oB, Class: cObjArr, Elements: []hprof.ID{oX}},
		&hprof.HeapDumpEnd{})
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every answer for tinyDump, worked out by hand.
func TestTinyDumpByHand(t *testing.T) {
	d, err := Read(bytes.NewReader(tinyDump(t)))
	if err != nil {
		t.Fatal(err)
	}
	a := d.Analyze()
	if len(d.Order) != 16 {
		t.Errorf("%d nodes, want 6 classes + 10 objects", len(d.Order))
	}
	for id, want := range map[uint64]uint64{oT0: 58, oT1: 16, oB: 10, oW: 32, oQ: 16, oH: 28, oA: 8, cThing: 4, cObject: 0} {
		if got, ok := a.Retained[id]; !ok || got != want {
			t.Errorf("retained(%#x) = %d, %v; want %d", id, got, ok, want)
		}
	}
	for id, want := range map[uint64]int{cThing: 1, oW: 1, oH: 1, oT0: 2, oT1: 3, oT2: 3, oB: 4, oQ: 2, oA: 2} {
		if a.Depth[id] != want {
			t.Errorf("depth(%#x) = %d, want %d", id, a.Depth[id], want)
		}
	}
	for _, id := range []uint64{oX, oC} {
		if a.Reachable(id) {
			t.Errorf("%#x is reachable", id)
		}
	}
	for id, want := range map[uint64]uint64{oT0: superRoot, oT1: oT0, oB: oT0, oQ: oW, oA: oH, oW: superRoot} {
		if a.Idom[id] != want {
			t.Errorf("idom(%#x) = %#x, want %#x", id, a.Idom[id], want)
		}
	}
	r := a.Result()
	wantHeaps := []Heap{{Name: "app", Objects: 3, Bytes: 20 + 8 + 6}, {Name: "default", Objects: 13, Bytes: 4 + 3*16 + 10 + 16 + 100 + 16}}
	if !reflect.DeepEqual(r.Heaps, wantHeaps) {
		t.Errorf("heaps %+v, want %+v", r.Heaps, wantHeaps)
	}
	rows := map[string]Class{}
	for _, c := range r.Classes {
		rows[c.Name] = c
	}
	if got, want := rows["Thing"], (Class{Name: "Thing", Instances: 4, Shallow: 64, Retained: 58 + 16, ReachableInstances: 4, ReachableShallow: 64}); got != want {
		t.Errorf("Thing row %+v, want %+v", got, want)
	}
	if got, want := rows["byte[]"], (Class{Name: "byte[]", Instances: 2, Shallow: 110, Retained: 10, ReachableInstances: 1, ReachableShallow: 10}); got != want {
		t.Errorf("byte[] row %+v, want %+v", got, want)
	}
	if got := rows["java.lang.Class"]; got.Instances != 6 || got.Shallow != 4 || got.Retained != 4 {
		t.Errorf("Class row %+v", got)
	}
	var top []uint64
	for _, dm := range r.Dominators {
		top = append(top, uint64(dm.ID))
	}
	if want := []uint64{oT0, oW, oH, cThing, cObject, cRef, cWeak, cHolder, cObjArr}; !reflect.DeepEqual(top, want) {
		t.Errorf("top dominators %#x, want %#x", top, want)
	}
	path := a.Path(oB)
	if len(path) != 4 || uint64(path[0].ID) != cThing || path[0].Field != nil || *path[1].Field != "sRoot" || *path[3].Field != "a" {
		t.Errorf("path to B: %s", hopsString(path))
	}
	if err := a.ValidPath(path); err != nil {
		t.Error(err)
	}
	if a.Path(oX) != nil {
		t.Error("a path to an unreachable node")
	}
}

// ValidPath refuses every way a claimed path can be wrong.
func TestValidPathRefuses(t *testing.T) {
	d, err := Read(bytes.NewReader(tinyDump(t)))
	if err != nil {
		t.Fatal(err)
	}
	a := d.Analyze()
	s := func(v string) *string { return &v }
	good := []Hop{{Class: "java.lang.Class", ID: cThing}, {Class: "Thing", ID: oT0, Field: s("sRoot")}, {Class: "Thing", ID: oT2, Field: s("b")}}
	if err := a.ValidPath(good); err != nil {
		t.Fatalf("the other shortest path: %v", err)
	}
	for name, p := range map[string][]Hop{
		"empty":        nil,
		"not a root":   {{Class: "Thing", ID: oT0}, {Class: "Thing", ID: oT1, Field: s("a")}},
		"first field":  {{Class: "java.lang.Class", ID: cThing, Field: s("x")}, {Class: "Thing", ID: oT0, Field: s("sRoot")}},
		"wrong field":  {{Class: "java.lang.Class", ID: cThing}, {Class: "Thing", ID: oT0, Field: s("sRoot")}, {Class: "Thing", ID: oT2, Field: s("a")}},
		"wrong class":  {{Class: "java.lang.Class", ID: cThing}, {Class: "Holder", ID: oT0, Field: s("sRoot")}},
		"too long":     {{Class: "Holder", ID: oH}, {Class: "java.lang.Object[]", ID: oA, Field: s("referent")}, {Class: "Thing", ID: oT0, Field: s("[1]")}},
		"weak edge":    {{Class: "java.lang.ref.WeakReference", ID: oW}, {Class: "byte[]", ID: oX, Field: s("referent")}},
		"no node":      {{Class: "java.lang.Class", ID: cThing}, {Class: "Thing", ID: 0x9999, Field: s("sRoot")}},
		"missing name": {{Class: "java.lang.Class", ID: cThing}, {Class: "Thing", ID: oT0}},
	} {
		if err := a.ValidPath(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSourceName(t *testing.T) {
	for in, want := range map[string]string{"java/util/HashMap": "java.util.HashMap", "[Ljava/lang/String;": "java.lang.String[]",
		"[[I": "int[][]", "[B": "byte[]", "java.lang.String[]": "java.lang.String[]", "a.B$C": "a.B$C", "[X": "[X", "[Lx": "[Lx"} {
		if got := SourceName(in); got != want {
			t.Errorf("SourceName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The JSON has the spec's keys, ids as lower-case hex strings and a null
// field on a path's first element.
func TestJSONShape(t *testing.T) {
	a, _, _ := analyzeScene(t, sceneVariants[0])
	r := a.Result()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, k := range []string{`"heaps":[{"name":"app","objects":`, `"classes":[{"name":`, `"reachable_instances":`, `"reachable_shallow":`,
		`"dominators":[{"id":"0x`, `"leaks":[{"id":"0x13`, `"kind":"activity"`, `"reason":"destroyed"`, `"path":[{"class":"`,
		`"field":null},{"class":`, `"duplicate_strings":[{"value":"Привет ✉","count":3,"wasted":32}`, `"bitmaps":[{"id":"0x`, `"pixel_bytes":`,
		`"pixels_in_dump":false`} {
		if !strings.Contains(s, k) {
			t.Errorf("no %s in %.300s", k, s)
		}
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(&back, r) {
		t.Errorf("round trip: %v", err)
	}
	p, _ := json.Marshal(Paths{Paths: []PathEntry{{ID: 0x12c0a1b0, Path: a.Path(uint64(r.Leaks[0].ID))}}})
	if !strings.HasPrefix(string(p), `{"paths":[{"id":"0x12c0a1b0","path":[{"class":`) {
		t.Errorf("paths JSON %s", p)
	}
	df, _ := json.Marshal(DiffResult{Diff: []DiffRow{{Name: "x", InstancesDelta: -1, ShallowDelta: 2, RetainedDelta: 3}}})
	if string(df) != `{"diff":[{"name":"x","instances_delta":-1,"shallow_delta":2,"retained_delta":3}]}` {
		t.Errorf("diff JSON %s", df)
	}
}

// Bad input: Read returns the hprof Reader's error, never panics, and
// Analyze copes with whatever parsed.
func FuzzAnalyze(f *testing.F) {
	f.Add(tinyDump(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return // the reference is quadratic
		}
		d, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		a := d.Analyze()
		r := a.Result()
		for _, l := range r.Leaks {
			if err := a.ValidPath(l.Path); err != nil {
				t.Fatalf("own path invalid: %v", err)
			}
		}
	})
}

func TestTruncatedScene(t *testing.T) {
	_, _, data := analyzeScene(t, sceneVariants[0])
	if _, err := Read(bytes.NewReader(data[:len(data)/2])); err == nil {
		t.Error("a truncated dump read without error")
	}
}

// Check finds nothing wrong with the reference's own answer, cut by --top,
// with another valid path, and finds each kind of difference.
func TestCheck(t *testing.T) {
	a, _, _ := analyzeScene(t, sceneVariants[4])
	own := a.Result()
	if diffs := a.Check(own); diffs != nil {
		t.Fatalf("own result: %q", diffs)
	}
	top := a.Result()
	top.Dominators, top.DuplicateStrings = top.Dominators[:3], top.DuplicateStrings[:2]
	top.Leaks[0], top.Leaks[1] = top.Leaks[1], top.Leaks[0]
	if diffs := a.Check(top); diffs != nil {
		t.Fatalf("--top 3 result: %q", diffs)
	}
	for name, spoil := range map[string]func(r *Result){
		"heap bytes":      func(r *Result) { r.Heaps[0].Bytes++ },
		"heap missing":    func(r *Result) { r.Heaps = r.Heaps[1:] },
		"class retained":  func(r *Result) { r.Classes[3].Retained-- },
		"class missing":   func(r *Result) { r.Classes = r.Classes[1:] },
		"dominator order": func(r *Result) { r.Dominators[0], r.Dominators[1] = r.Dominators[1], r.Dominators[0] },
		"leak reason":     func(r *Result) { r.Leaks[0].Reason = "finished" },
		"leak missing":    func(r *Result) { r.Leaks = r.Leaks[1:] },
		"leak path":       func(r *Result) { r.Leaks[0].Path = r.Leaks[0].Path[1:] },
		"extra leak":      func(r *Result) { r.Leaks = append(r.Leaks, Leak{ID: r.Bitmaps[0].ID}) },
		"duplicate":       func(r *Result) { r.DuplicateStrings[1].Wasted++ },
		"bitmap pixels":   func(r *Result) { r.Bitmaps[0].PixelBytes = 0 },
		"bitmap missing":  func(r *Result) { r.Bitmaps = r.Bitmaps[:1] },
	} {
		r := a.Result()
		spoil(r)
		if diffs := a.Check(r); len(diffs) == 0 {
			t.Errorf("%s: not found", name)
		}
	}
}
