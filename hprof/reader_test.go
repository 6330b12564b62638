package hprof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// The reader sees exactly what Synth generated: every record and
// sub-record, field for field, in order.
func TestSynthRoundTrip(t *testing.T) {
	for _, s := range []Synth{
		{Seed: 1},
		{Seed: 2, IDSize: 8, NoData: true},
		{Seed: 3, Classes: 40, Instances: 3000, Arrays: 900, MaxArrayLength: 300},
		{Seed: 4, Heap: []ClassCount{{"com.example.Foo", 10}, {"java.lang.String", 3}, {"int[]", 4}, {"com.example.Bar[]", 2}, {"com.example.Empty", 0}}},
		{Seed: 5, Heap: []ClassCount{{"java.lang.String", 0}}}, // empty app heap
	} {
		t.Run(fmt.Sprintf("seed%d", s.Seed), func(t *testing.T) {
			want := emitted(t, s)
			b := synthBytes(t, s)
			h, got, err := readAll(b)
			if err != nil {
				t.Fatal(err)
			}
			if h != s.Header() || h.Version != VersionAndroid {
				t.Errorf("header %+v, want %+v", h, s.Header())
			}
			if len(got) != len(want) {
				t.Fatalf("read %d records, generated %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("record %d: read %#v, generated %#v", i, got[i], want[i])
				}
			}
			// The same Synth gives the same bytes.
			if again := synthBytes(t, s); !bytes.Equal(again, b) {
				t.Error("Synth is not deterministic")
			}
		})
	}
}

// Synth's file has what the simulator needs: every sub-record kind
// (NODATA when asked), HEAP DUMP INFO for the three heaps, segments within
// ART's limits, and a HEAP DUMP END last.
func TestSynthContents(t *testing.T) {
	s := Synth{Seed: 9, NoData: true}
	recs := emitted(t, s)
	subs := map[SubTag]int{}
	heaps := map[uint32]bool{}
	segments, segObjects := 0, 0
	for _, r := range recs {
		switch v := r.(type) {
		case *HeapDump:
			if !v.Segment {
				t.Error("HEAP DUMP instead of a segment")
			}
			segments++
			segObjects = 0
		case *Root:
			subs[v.Kind]++
			segObjects++
		case *HeapDumpInfo:
			subs[SubHeapDumpInfo]++
			heaps[v.Heap] = true
		case *ClassDump:
			subs[SubClassDump]++
			segObjects++
			if len(v.Statics) > 0 && len(v.Fields) > 0 {
				subs[0] = 1 // a class with both static and instance fields
			}
		case *InstanceDump:
			subs[SubInstanceDump]++
			segObjects++
		case *ObjectArrayDump:
			subs[SubObjectArrayDump]++
			segObjects++
		case *PrimitiveArrayDump:
			if v.NoData {
				subs[SubPrimitiveArrayNoData]++
			} else {
				subs[SubPrimitiveArray]++
			}
			segObjects++
		}
		if segObjects > segmentObjects {
			t.Fatalf("segment %d has more than %d objects", segments, segmentObjects)
		}
	}
	for tag := range subTagNames {
		if subs[tag] == 0 {
			t.Errorf("no %v", tag)
		}
	}
	if subs[0] == 0 {
		t.Error("no class with both static and instance fields")
	}
	for _, h := range []uint32{HeapApp, HeapImage, HeapZygote} {
		if !heaps[h] {
			t.Errorf("no HEAP DUMP INFO for heap %c", rune(h))
		}
	}
	if _, ok := recs[len(recs)-1].(*HeapDumpEnd); !ok {
		t.Errorf("last record %T, want *HeapDumpEnd", recs[len(recs)-1])
	}
	if segments < 3 {
		t.Errorf("%d segments", segments)
	}
}

// Every record type goes through Writer and back, including those Synth
// does not use, with time deltas kept.
func TestWriterRoundTrip(t *testing.T) {
	for _, idSize := range []int{4, 8} {
		t.Run(fmt.Sprint(idSize), func(t *testing.T) {
			big := ID(0x1234)
			if idSize == 8 {
				big = 0x1122334455667788
			}
			recs := []Record{
				&UTF8{ID: 1, Text: "héllo"},
				&UTF8{ID: big, Text: ""},
				&LoadClass{Serial: 7, Class: big, StackSerial: 3, Name: 1},
				&UnloadClass{Serial: 7},
				&StackFrame{Frame: 9, Method: 1, Signature: 2, Source: 3, ClassSerial: 7, Line: -3},
				&StackTrace{Serial: 3, Thread: 1, Frames: []ID{9, big}},
				&StackTrace{Serial: 4, Thread: 2},
				&HeapSummary{LiveBytes: 1, LiveInstances: 2, AllocBytes: 3 << 40, AllocInstances: 4},
				&StartThread{Thread: 1, Object: big, StackSerial: 3, Name: 1, Group: 2, Parent: 3},
				&EndThread{Thread: 1},
				&RawRecord{Tag: TagCPUSamples, Body: []byte{0, 0, 0, 1}},
				&RawRecord{Tag: 0x77},
				&HeapDump{},
				&Root{Kind: SubRootJNIGlobal, Object: big, JNIRef: 5},
				&Root{Kind: SubRootThreadObject, Object: 6, Thread: 1, StackSerial: 3},
				&Root{Kind: SubRootJNIMonitor, Object: 6, Thread: 1, Frame: 4},
				&HeapDumpInfo{Heap: HeapZygote, Name: 1},
				&ClassDump{Class: big, StackSerial: 1, Super: 2, Loader: 3, Signers: 4, ProtectionDomain: 5, Reserved1: 6, Reserved2: 7, InstanceSize: 24,
					Constants: []Constant{{Index: 1, Type: TypeDouble, Value: 1 << 62}, {Index: 2, Type: TypeObject, Value: uint64(big)}},
					Statics:   []StaticField{{Name: 1, Type: TypeBoolean, Value: 1}, {Name: 2, Type: TypeChar, Value: 'x'}},
					Fields:    []Field{{Name: 1, Type: TypeObject}, {Name: 2, Type: TypeShort}}},
				&InstanceDump{Object: 8, StackSerial: 1, Class: big, Data: []byte{1, 2, 3}},
				&ObjectArrayDump{Array: 9, Class: big, Elements: []ID{0, big}},
				&PrimitiveArrayDump{Array: 10, Type: TypeLong, Count: 1, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
				&PrimitiveArrayDump{Array: 11, Type: TypeChar, Count: 1000, NoData: true},
				&HeapDump{Segment: true},
				&HeapDump{Segment: true},
				&Root{Kind: SubRootUnknown, Object: 1},
				&HeapDumpEnd{},
			}
			var buf bytes.Buffer
			w, err := NewWriter(&buf, Header{Version: VersionStandard, IDSize: idSize, Timestamp: 5})
			if err != nil {
				t.Fatal(err)
			}
			var times []uint32
			for i, r := range recs {
				w.Time = uint32(i * 1000)
				if err := w.Write(r); err != nil {
					t.Fatalf("write %T: %v", r, err)
				}
				times = append(times, w.Time)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if h := r.Header(); h != (Header{VersionStandard, idSize, 5}) {
				t.Errorf("header %+v", h)
			}
			var dumpTime uint32
			for i, want := range recs {
				got, err := r.Next()
				if err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				if !reflect.DeepEqual(canon(got), canon(want)) {
					t.Errorf("record %d: read %#v, wrote %#v", i, got, want)
				}
				info := r.RecordInfo()
				if _, ok := want.(*HeapDump); ok {
					dumpTime = times[i]
				}
				switch want.(type) {
				case *Root, *HeapDumpInfo, *ClassDump, *InstanceDump, *ObjectArrayDump, *PrimitiveArrayDump:
					if info.Time != dumpTime {
						t.Errorf("record %d: time %d, want its heap dump's %d", i, info.Time, dumpTime)
					}
				default:
					if info.Time != times[i] {
						t.Errorf("record %d: time %d, want %d", i, info.Time, times[i])
					}
				}
			}
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("after the last record: %v, want io.EOF", err)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("EOF is not sticky: %v", err)
			}
		})
	}
}

// Offsets reported by the reader point at each record's tag byte.
func TestReaderOffsets(t *testing.T) {
	b := synthBytes(t, Synth{Seed: 3, Instances: 50})
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		off, info := r.Offset(), r.RecordInfo()
		tag := b[off]
		switch v := rec.(type) {
		case *Root:
			if SubTag(tag) != v.Kind {
				t.Fatalf("root at offset %d has tag %#x", off, tag)
			}
		case *InstanceDump:
			if SubTag(tag) != SubInstanceDump {
				t.Fatalf("instance at offset %d has tag %#x", off, tag)
			}
		case *HeapDump:
			if Tag(tag) != TagHeapDumpSegment || info.Offset != off {
				t.Fatalf("segment at offset %d has tag %#x, info %+v", off, tag, info)
			}
		}
		if Tag(b[info.Offset]) != info.Tag {
			t.Fatalf("record info %+v: byte %#x", info, b[info.Offset])
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d records", n)
	}
}

// The sizing walks Convert uses (fastEnd, then skipSub) and the decoding
// walk Reader uses agree on where every sub-record ends.
func TestSkipAgreesWithParse(t *testing.T) {
	for _, s := range []Synth{{Seed: 1, NoData: true}, {Seed: 2, IDSize: 8, NoData: true}} {
		b := synthBytes(t, s)
		src := newSource(bytes.NewReader(b))
		h, err := src.header()
		if err != nil {
			t.Fatal(err)
		}
		lay := layouts[h.IDSize]
		subs := 0
		for {
			rh, err := src.record()
			if err == io.EOF {
				break
			}
			body, err := src.body(rh)
			if err != nil {
				t.Fatal(err)
			}
			if !rh.Tag.isHeapDump() {
				continue
			}
			skip, parse := wire.NewReader(body, 0), wire.NewReader(body, 0)
			for skip.Len() > 0 {
				fast := lay.fastEnd(body, skip.Offset())
				tag := lay.skipSub(skip, body)
				lay.parseSub(parse, body)
				if skip.Err() != nil || parse.Err() != nil {
					t.Fatal(skip.Err(), parse.Err())
				}
				if skip.Offset() != parse.Offset() {
					t.Fatalf("skip ends at %d, parse at %d", skip.Offset(), parse.Offset())
				}
				if fast != skip.Offset() && (fast != -1 || tag != SubClassDump) {
					t.Fatalf("%v: fastEnd %d, skip ends at %d", tag, fast, skip.Offset())
				}
				subs++
			}
			if parse.Len() != 0 {
				t.Fatal("parse did not reach the end")
			}
		}
		if subs < 500 {
			t.Fatalf("only %d sub-records", subs)
		}
	}
}

func TestWriterRejects(t *testing.T) {
	if _, err := NewWriter(io.Discard, Header{IDSize: 2}); err == nil {
		t.Error("id size 2 accepted")
	}
	if _, err := NewWriter(io.Discard, Header{Version: "JAVA PROFILE 9"}); err == nil {
		t.Error("unknown version accepted")
	}
	for _, tc := range []struct {
		name string
		rec  Record
	}{
		{"id too big", &UTF8{ID: 1 << 32}},
		{"root kind", &Root{Kind: SubClassDump}},
		{"field type", &ClassDump{Fields: []Field{{Type: 3}}}},
		{"static type", &ClassDump{Statics: []StaticField{{Type: 12}}}},
		{"static value", &ClassDump{Statics: []StaticField{{Type: TypeByte, Value: 256}}}},
		{"array type", &PrimitiveArrayDump{Type: TypeObject}},
		{"array data", &PrimitiveArrayDump{Type: TypeInt, Count: 2, Data: make([]byte, 4)}},
		{"nodata data", &PrimitiveArrayDump{Type: TypeInt, Count: 1, Data: make([]byte, 4), NoData: true}},
		{"nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, Header{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&HeapDump{Segment: true}); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(tc.rec); err == nil {
				t.Fatalf("%#v accepted", tc.rec)
			}
			// Nothing of the bad record was written, and the writer goes on.
			if err := w.Write(&Root{Kind: SubRootUnknown, Object: 1}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			_, recs, err := readAll(buf.Bytes())
			if err != nil || len(recs) != 2 {
				t.Fatalf("read back %d records, %v", len(recs), err)
			}
		})
	}
	w, _ := NewWriter(io.Discard, Header{})
	if err := w.Write(&Root{Kind: SubRootUnknown}); !errors.Is(err, ErrSubOutsideDump) {
		t.Errorf("sub-record outside a dump: %v", err)
	}
}
