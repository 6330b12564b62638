package hprof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A hand-built file with known contents gives exactly the expected
// summary.
func TestSummarize(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Timestamp: 1_700_000_000_000})
	if err != nil {
		t.Fatal(err)
	}
	const (
		sApp, sZygote, sFoo, sBar, sBarArr, sX = 1, 2, 3, 4, 5, 6
		cFoo, cBar, cBarArr, cLost             = 0x100, 0x200, 0x300, 0x400
	)
	recs := []Record{
		&UTF8{ID: sApp, Text: "app"}, &UTF8{ID: sZygote, Text: "zygote"},
		&UTF8{ID: sFoo, Text: "com.example.Foo"}, &UTF8{ID: sBar, Text: "com.example.Bar"},
		&UTF8{ID: sBarArr, Text: "com.example.Bar[]"}, &UTF8{ID: sX, Text: "x"},
		&LoadClass{Serial: 1, Class: cFoo, Name: sFoo},
		&LoadClass{Serial: 2, Class: cBar, Name: sBar},
		&LoadClass{Serial: 3, Class: cBarArr, Name: sBarArr},
		&StackTrace{Serial: 1},
		&HeapDump{Segment: true},
		&Root{Kind: SubRootVMInternal, Object: 1},
		&Root{Kind: SubRootUnknown, Object: 2},
		// Default heap (no HEAP DUMP INFO yet): one Bar with 3 data bytes
		// and no CLASS DUMP for Bar anywhere, so 3 shallow bytes.
		&InstanceDump{Object: 10, Class: cBar, Data: []byte{1, 2, 3}},
		&HeapDumpInfo{Heap: HeapZygote, Name: sZygote},
		&ClassDump{Class: cFoo, InstanceSize: 24, Fields: []Field{{Name: sX, Type: TypeInt}}},
		&InstanceDump{Object: 11, Class: cFoo, Data: make([]byte, 4)},
		&PrimitiveArrayDump{Array: 12, Type: TypeChar, Count: 5, Data: make([]byte, 10)},
		&HeapDump{Segment: true}, // the heap resets to default
		&InstanceDump{Object: 13, Class: cBar, Data: []byte{4, 5, 6}},
		&HeapDumpInfo{Heap: HeapApp, Name: sApp},
		&InstanceDump{Object: 14, Class: cFoo, Data: make([]byte, 4)},
		&InstanceDump{Object: 15, Class: cFoo, Data: make([]byte, 4)},
		&InstanceDump{Object: 16, Class: cLost, Data: []byte{9}},
		&ObjectArrayDump{Array: 17, Class: cBarArr, Elements: []ID{10, 13, 0}},
		&PrimitiveArrayDump{Array: 18, Type: TypeChar, Count: 2, NoData: true},
		&PrimitiveArrayDump{Array: 19, Type: TypeLong, Count: 1, Data: make([]byte, 8)},
		&HeapDumpInfo{Heap: 'X'}, // unnamed: name string 0 does not exist
		&InstanceDump{Object: 20, Class: cBar},
		&HeapDumpEnd{},
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	want := &Summary{
		Header:  Header{VersionAndroid, 4, 1_700_000_000_000},
		Size:    int64(buf.Len()),
		Records: map[Tag]int64{TagString: 6, TagLoadClass: 3, TagStackTrace: 1, TagHeapDumpSegment: 2, TagHeapDumpEnd: 1},
		SubRecords: map[SubTag]int64{SubRootVMInternal: 1, SubRootUnknown: 1, SubInstanceDump: 7, SubHeapDumpInfo: 3,
			SubClassDump: 1, SubPrimitiveArray: 2, SubObjectArrayDump: 1, SubPrimitiveArrayNoData: 1},
		Strings: 6,
		Heaps: []HeapStats{
			{ID: HeapDefault, Name: "default", Instances: 2, Bytes: 6},
			{ID: HeapZygote, Name: "zygote", Instances: 1, Arrays: 1, Bytes: 24 + 10},
			{ID: HeapApp, Name: "app", Instances: 3, Arrays: 3, Bytes: 2*24 + 1 + 3*4 + 4 + 8},
			{ID: 'X', Name: "heap 0x58", Instances: 1},
		},
		Classes: []ClassStats{
			{Class: cFoo, Name: "com.example.Foo", Instances: 3, Bytes: 72},
			{Class: cBar, Name: "com.example.Bar", Instances: 3, Bytes: 6},
			{Class: 0, Name: "char[]", Instances: 2, Bytes: 14},
			{Class: cBarArr, Name: "com.example.Bar[]", Instances: 1, Bytes: 12},
			{Class: 0, Name: "long[]", Instances: 1, Bytes: 8},
			{Class: cLost, Name: "class@0x400", Instances: 1, Bytes: 1},
		},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("summary\n got %+v\nwant %+v", s, want)
	}
	if top := s.TopBySize(2); len(top) != 2 || top[0].Name != "com.example.Foo" || top[1].Name != "char[]" {
		t.Errorf("top by size: %+v", top)
	}
	if top := s.TopByCount(100); len(top) != len(s.Classes) {
		t.Errorf("top 100 by count: %d classes", len(top))
	}

	var text bytes.Buffer
	if err := s.WriteText(&text, 3); err != nil {
		t.Fatal(err)
	}
	// Compare lines with their column padding collapsed to one space.
	var lines []string
	for _, l := range strings.Split(text.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	for _, line := range []string{
		"JAVA PROFILE 1.0.3 id size 4 2023-11-14 22:13:20.000 UTC " + fmt.Sprint(buf.Len()) + " bytes",
		"HEAP DUMP SEGMENT 2", "ROOT VM INTERNAL 1", "heap instances arrays shallow bytes", "zygote 1 1 34",
		"top classes by count objects bytes", "com.example.Foo 3 72", "top classes by shallow size objects bytes", "char[] 2 14",
	} {
		if !slices.Contains(lines, line) {
			t.Errorf("text summary lacks %q:\n%s", line, text.String())
		}
	}
	if strings.Contains(text.String(), "class@0x400") {
		t.Error("top 3 lists the 6th class")
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte(`"STRING":6`)) || !bytes.Contains(js, []byte(`"ROOT VM INTERNAL":1`)) {
		t.Errorf("JSON keys are not tag names: %s", js)
	}
}

// A simulator's heap list comes back from Summarize class for class.
func TestSummarizeSynthHeap(t *testing.T) {
	heap := []ClassCount{{"com.example.Foo", 120}, {"com.example.Bar", 7}, {"short[]", 30}, {"com.example.Foo[]", 4}, {"java.util.HashMap", 11}}
	s, err := Summarize(bytes.NewReader(synthBytes(t, Synth{Seed: 8, Heap: heap})))
	if err != nil {
		t.Fatal(err)
	}
	var app *HeapStats
	for i := range s.Heaps {
		if s.Heaps[i].Name == "app" {
			app = &s.Heaps[i]
		}
	}
	if app == nil || app.Instances != 120+7+11 || app.Arrays != 30+4 {
		t.Fatalf("app heap %+v", app)
	}
	got := map[string]int64{}
	for _, c := range s.Classes {
		got[c.Name] = c.Instances
	}
	for _, cc := range heap {
		if got[cc.Name] != int64(cc.Instances) {
			t.Errorf("%s: %d objects, want %d", cc.Name, got[cc.Name], cc.Instances)
		}
	}
	names := []string{}
	for _, h := range s.Heaps {
		names = append(names, h.Name)
	}
	if strings.Join(names, ",") != "image,zygote,app" {
		t.Errorf("heaps %v", names)
	}
}

// Names from the file cannot reach the terminal as control sequences.
func TestWriteTextEscapes(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{})
	for _, r := range []Record{
		&UTF8{ID: 1, Text: "evil\x1b[2J\u202e"}, &LoadClass{Class: 9, Name: 1},
		&HeapDump{}, &InstanceDump{Object: 1, Class: 9},
	} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	s, err := Summarize(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	s.WriteText(&text, 5)
	if strings.ContainsAny(text.String(), "\x1b\u202e") || !strings.Contains(text.String(), `evil\x1b[2J\u202e`) {
		t.Errorf("not escaped:\n%q", text.String())
	}
}
