package scene

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
)

// records reads a whole file with the hprof package's Reader and returns
// the strings, class names by id and every record.
func records(t *testing.T, data []byte) (hprof.Header, map[hprof.ID]string, []hprof.Record) {
	t.Helper()
	r, err := hprof.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	strs := map[hprof.ID]string{}
	var recs []hprof.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch x := rec.(type) {
		case *hprof.UTF8:
			strs[x.ID] = x.Text
		case *hprof.InstanceDump:
			x.Data = append([]byte(nil), x.Data...)
		case *hprof.PrimitiveArrayDump:
			x.Data = append([]byte(nil), x.Data...)
		}
		recs = append(recs, rec)
	}
	return r.Header(), strs, recs
}

func TestDeterministic(t *testing.T) {
	a, _, err := Android(Options{Seed: 3, Filler: []hprof.ClassCount{{Name: "com.example.mail.data.Item", Instances: 20}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := Android(Options{Seed: 3, Filler: []hprof.ClassCount{{Name: "com.example.mail.data.Item", Instances: 20}}})
	c, _, _ := Android(Options{Seed: 4, Filler: []hprof.ClassCount{{Name: "com.example.mail.data.Item", Instances: 20}}})
	if !bytes.Equal(a, b) {
		t.Error("the same options gave different bytes")
	}
	if bytes.Equal(a, c) {
		t.Error("another seed gave the same bytes")
	}
}

func TestOptionErrors(t *testing.T) {
	for _, o := range []Options{
		{BitmapFormat: "png", API: 34},
		{BitmapFormat: "gif", API: 35},
		{Filler: []hprof.ClassCount{{Name: "com.example.mail.MainActivity", Instances: 1}}},
		{Filler: []hprof.ClassCount{{Name: "com.example.mail.data.Item", Instances: -1}}},
		{Filler: []hprof.ClassCount{{Name: "[]", Instances: 1}}},
	} {
		if _, _, err := Build(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// The ART form has what ART writes: 1.0.3 with 4-byte ids, HEAP DUMP INFO
// for each heap at the start of segments, VM INTERNAL roots for every
// zygote and image object, the Android root kinds, $classOverhead arrays
// with id class|1 and $class$ statics, Java source names.
func TestAndroidForm(t *testing.T) {
	data, want, err := Android(Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	h, strs, recs := records(t, data)
	if h.Version != hprof.VersionAndroid || h.IDSize != 4 || want.IDSize != 4 {
		t.Fatalf("header %+v", h)
	}
	heapInfos := map[uint32]string{}
	rootKinds := map[hprof.SubTag]int{}
	vmInternal := map[hprof.ID]bool{}
	names := map[string]bool{}
	overheads := 0
	heap := ""
	zygoteOrImage := map[hprof.ID]bool{}
	for _, rec := range recs {
		switch r := rec.(type) {
		case *hprof.HeapDumpInfo:
			heapInfos[r.Heap] = strs[r.Name]
			heap = strs[r.Name]
		case *hprof.Root:
			rootKinds[r.Kind]++
			if r.Kind == hprof.SubRootVMInternal {
				vmInternal[r.Object] = true
			}
		case *hprof.LoadClass:
			names[strs[r.Name]] = true
		case *hprof.ClassDump:
			if heap == "zygote" || heap == "image" {
				zygoteOrImage[r.Class] = true
			}
			for _, s := range r.Statics {
				if strs[s.Name] == "$classOverhead" && hprof.ID(s.Value) == r.Class|1 {
					overheads++
				}
			}
		case *hprof.InstanceDump:
			if heap == "zygote" || heap == "image" {
				zygoteOrImage[r.Object] = true
			}
		}
	}
	if heapInfos[hprof.HeapApp] != "app" || heapInfos[hprof.HeapZygote] != "zygote" || heapInfos[hprof.HeapImage] != "image" {
		t.Errorf("heap infos %v", heapInfos)
	}
	for _, k := range []hprof.SubTag{hprof.SubRootInternedString, hprof.SubRootFinalizing, hprof.SubRootDebugger,
		hprof.SubRootReferenceCleanup, hprof.SubRootVMInternal, hprof.SubRootJNIMonitor, hprof.SubRootUnreachable,
		hprof.SubRootJNIGlobal, hprof.SubRootThreadObject, hprof.SubRootJavaFrame, hprof.SubRootStickyClass} {
		if rootKinds[k] == 0 {
			t.Errorf("no %v record", k)
		}
	}
	for id := range zygoteOrImage {
		if !vmInternal[id] {
			t.Errorf("zygote/image object %#x has no VM INTERNAL root", uint64(id))
		}
	}
	if overheads < 40 {
		t.Errorf("%d classes with a $classOverhead static naming class|1", overheads)
	}
	for _, n := range []string{"java.util.ArrayList", "java.lang.Object[]", "byte[][]", "com.example.mail.InboxActivity$1"} {
		if !names[n] {
			t.Errorf("no class %s", n)
		}
	}
}

// The standard form: 1.0.2, 8-byte ids above 32 bits, internal names, no
// Android records.
func TestStandardForm(t *testing.T) {
	data, want, err := Standard(Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	h, strs, recs := records(t, data)
	if h.Version != hprof.VersionStandard || h.IDSize != 8 || want.IDSize != 8 {
		t.Fatalf("header %+v", h)
	}
	names := map[string]bool{}
	for _, rec := range recs {
		switch r := rec.(type) {
		case *hprof.HeapDumpInfo:
			t.Fatal("HEAP DUMP INFO in a standard dump")
		case *hprof.Root:
			if r.Kind.Android() {
				t.Fatalf("Android root %v in a standard dump", r.Kind)
			}
		case *hprof.LoadClass:
			names[strs[r.Name]] = true
			if r.Class>>32 == 0 {
				t.Errorf("class id %#x fits 32 bits", uint64(r.Class))
			}
		}
	}
	for _, n := range []string{"java/util/ArrayList", "[Ljava/lang/Object;", "[[B", "[J", "com/example/mail/InboxActivity$1"} {
		if !names[n] {
			t.Errorf("no class %s", n)
		}
	}
	if len(want.Heaps) != 1 || want.Heaps[0].Name != "default" {
		t.Errorf("heaps %+v", want.Heaps)
	}
}

func TestInternalName(t *testing.T) {
	for in, want := range map[string]string{"java.util.HashMap": "java/util/HashMap", "java.lang.String[]": "[Ljava/lang/String;",
		"int[][]": "[[I", "byte[]": "[B", "a.B$C[]": "[La/B$C;"} {
		if got := internalName(in); got != want {
			t.Errorf("internalName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The answers are self-consistent: paths end at their leak, every leak's
// depth is its path's length, bitmaps and leaks are sorted by id.
func TestExpectShape(t *testing.T) {
	_, e, err := Android(Options{API: 35, BitmapFormat: "png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Leaks) != 5 || len(e.Duplicates) != 5 || len(e.Bitmaps) != 2 || e.PNG == nil {
		t.Fatalf("%d leaks, %d duplicates, %d bitmaps", len(e.Leaks), len(e.Duplicates), len(e.Bitmaps))
	}
	for i, l := range e.Leaks {
		if last := l.Path[len(l.Path)-1]; last.ID != l.ID || last.Class != l.Class || l.Path[0].Field != "" {
			t.Errorf("leak %s", l)
		}
		if i > 0 && e.Leaks[i-1].ID >= l.ID {
			t.Error("leaks not sorted by id")
		}
		if !strings.HasPrefix(l.Class, "com.example.mail.") || l.Retained == 0 {
			t.Errorf("leak %+v", l)
		}
	}
	want := []Duplicate{{"Привет ✉", 3, 32}, {"INBOX", 4, 15}, {"Sent", 3, 12}, {"draft", 2, 5}, {"", 2, 0}}
	for i, d := range want {
		if e.Duplicates[i] != d {
			t.Errorf("duplicate %d: %+v, want %+v", i, e.Duplicates[i], d)
		}
	}
}

// Below API 21 the dump is Dalvik's: no image heap, no $class statics, no
// VM INTERNAL roots, Strings with offset and a char[] value.
func TestDalvikForm(t *testing.T) {
	data, want, err := Android(Options{API: 19})
	if err != nil {
		t.Fatal(err)
	}
	_, strs, recs := records(t, data)
	offset := false
	for _, rec := range recs {
		switch r := rec.(type) {
		case *hprof.HeapDumpInfo:
			if r.Heap == hprof.HeapImage {
				t.Error("an image heap in a Dalvik dump")
			}
		case *hprof.Root:
			if r.Kind == hprof.SubRootVMInternal {
				t.Error("a VM INTERNAL root in a Dalvik dump")
			}
		case *hprof.ClassDump:
			for _, s := range r.Statics {
				if strings.HasPrefix(strs[s.Name], "$class") {
					t.Errorf("static %s in a Dalvik dump", strs[s.Name])
				}
			}
			for _, f := range r.Fields {
				offset = offset || strs[f.Name] == "offset"
			}
		}
	}
	if !offset {
		t.Error("no String.offset field")
	}
	if len(want.Heaps) != 2 || want.Heaps[0].Name != "app" || want.Heaps[1].Name != "zygote" {
		t.Errorf("heaps %+v", want.Heaps)
	}
	if e := want.ClassRow("byte[]"); e.Instances == 0 {
		t.Error("no byte[]: the bitmap's mBuffer is one")
	}
	if e := want.ClassRow("char[]"); e.Instances < 15 {
		t.Errorf("%d char[]: every string's value is one", e.Instances)
	}
}
