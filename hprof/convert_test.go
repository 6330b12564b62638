package hprof

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func convert(t *testing.T, in []byte, opts ConvertOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := Convert(&out, bytes.NewReader(in), opts); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// id4 is a 4-byte id.
func id4(v uint32) []byte { return newRaw().u4(v).bytes() }

// convertVector is a hand-built input and the output hprof-conv writes for
// it; peer_test.go checks every want against Debian's hprof-conv.
type convertVector struct {
	name string
	opts ConvertOptions
	in   []byte
	want []byte
	// notHprofConv marks the one vector whose want is not hprof-conv's
	// output: NODATA arrays zero-filled (hprof-conv leaves the elements
	// out).
	notHprofConv bool
}

// convertVectors covers each Android-only sub-record, -z and the NODATA
// modes, written out by hand from what hprof-conv 29.0.6 does.
func convertVectors() []convertVector {
	info := func(heap uint32) []byte { return newRaw().u1(0xFE).u4(heap).u4(0x400001).bytes() }
	inst := newRaw().u1(0x21).u4(0x100).u4(1).u4(0x200).u4(2).b(0xAB, 0xCD).bytes()
	objArr := newRaw().u1(0x22).u4(0x101).u4(1).u4(1).u4(0x200).u4(0x100).bytes()
	primArr := newRaw().u1(0x23).u4(0x102).u4(1).u4(2).u1(5).b(0, 'A', 0, 'B').bytes()
	class := newRaw().u1(0x20).u4(0x200).u4(1).u4(0x300).u4(0).u4(0).u4(0).u4(0).u4(0).u4(8).
		u2(1).u2(5).u1(2).u4(0x400).                             // constant pool: one object constant
		u2(2).u4(0x500).u1(11).id8(1).u4(0x501).u1(2).u4(0x502). // statics: long, object
		u2(2).u4(0x600).u1(10).u4(0x601).u1(4).bytes()           // fields: int, boolean
	noData := func(count uint32, typ uint8) []byte {
		return newRaw().u1(0xC3).u4(0x103).u4(0x11223344).u4(count).u1(typ).bytes()
	}
	noDataOut := func(count uint32, typ uint8, zeros int) []byte {
		return newRaw().u1(0x23).u4(0x103).u4(0).u4(count).u1(typ).b(make([]byte, zeros)...).bytes()
	}
	str := rec(TagString, 5, id4(0x400001), []byte("app"))
	stdHeader := func(records ...[]byte) []byte { return fileBytes(VersionStandard, 4, records...) }
	andHeader := func(records ...[]byte) []byte { return fileBytes(VersionAndroid, 4, records...) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

	return []convertVector{
		{
			name: "header only",
			in:   andHeader(),
			want: stdHeader(),
		},
		{
			name: "android roots",
			in: andHeader(str, rec(TagHeapDumpSegment, 3, cat(
				info(HeapApp),
				newRaw().u1(0x89).u4(0x11).bytes(),
				newRaw().u1(0x8A).u4(0x12).bytes(),
				newRaw().u1(0x8B).u4(0x13).bytes(),
				newRaw().u1(0x8C).u4(0x14).bytes(),
				newRaw().u1(0x8D).u4(0x15).bytes(),
				newRaw().u1(0x8E).u4(0x16).u4(7).u4(9).bytes(),
				newRaw().u1(0x90).u4(0x17).bytes(),
				newRaw().u1(0x01).u4(0x18).u4(0x19).bytes(),
			)), rec(TagHeapDumpEnd, 9)),
			want: stdHeader(str, rec(TagHeapDumpSegment, 3, cat(
				newRaw().u1(0xFF).u4(0x11).bytes(),
				newRaw().u1(0xFF).u4(0x12).bytes(),
				newRaw().u1(0xFF).u4(0x13).bytes(),
				newRaw().u1(0xFF).u4(0x14).bytes(),
				newRaw().u1(0xFF).u4(0x15).bytes(),
				newRaw().u1(0xFF).u4(0x16).bytes(),
				newRaw().u1(0xFF).u4(0x17).bytes(),
				newRaw().u1(0x01).u4(0x18).u4(0x19).bytes(),
			)), rec(TagHeapDumpEnd, 9)),
		},
		{
			name: "standard sub-records copied, HEAP DUMP too",
			in:   andHeader(rec(TagHeapDump, 1, info(HeapZygote), class, inst, objArr, primArr)),
			want: stdHeader(rec(TagHeapDump, 1, class, inst, objArr, primArr)),
		},
		{
			name: "other records copied unchecked",
			in:   andHeader(rec(0x77, 0xFFFFFFFF, []byte("abc")), rec(TagLoadClass, 2, []byte{1}), rec(TagHeapDumpEnd, 77, []byte("xyz"))),
			want: stdHeader(rec(0x77, 0xFFFFFFFF, []byte("abc")), rec(TagLoadClass, 2, []byte{1}), rec(TagHeapDumpEnd, 77, []byte("xyz"))),
		},
		{
			name: "empty segments",
			in:   andHeader(rec(TagHeapDumpSegment, 0), rec(TagHeapDumpSegment, 0, info(HeapApp))),
			want: stdHeader(rec(TagHeapDumpSegment, 0), rec(TagHeapDumpSegment, 0)),
		},
		{
			name:         "nodata zero fill",
			notHprofConv: true,
			in:           andHeader(rec(TagHeapDumpSegment, 0, noData(3, 10), noData(0, 4), noData(2, 11))),
			want:         stdHeader(rec(TagHeapDumpSegment, 0, noDataOut(3, 10, 12), noDataOut(0, 4, 0), noDataOut(2, 11, 16))),
		},
		{
			name: "nodata as hprof-conv",
			opts: ConvertOptions{NoData: NoDataAsHprofConv},
			in:   andHeader(rec(TagHeapDumpSegment, 0, noData(3, 10), noData(2, 11))),
			want: stdHeader(rec(TagHeapDumpSegment, 0, noDataOut(3, 10, 0), noDataOut(2, 11, 0))),
		},
		{
			name: "-z drops zygote and image objects, keeps classes, roots, nodata",
			opts: ConvertOptions{ExcludeZygote: true},
			in: andHeader(
				rec(TagHeapDumpSegment, 0, info(HeapZygote), class, inst, objArr, primArr, noData(0, 5), newRaw().u1(0x8D).u4(1).bytes()),
				rec(TagHeapDumpSegment, 0, info(HeapImage), inst, info(HeapApp), inst, info(HeapDefault), primArr, info('z'), objArr),
			),
			want: stdHeader(
				rec(TagHeapDumpSegment, 0, class, noDataOut(0, 5, 0), newRaw().u1(0xFF).u4(1).bytes()),
				rec(TagHeapDumpSegment, 0, inst, primArr, objArr),
			),
		},
		{
			// The heap resets at every record: objects before any HEAP
			// DUMP INFO are kept even after a zygote segment.
			name: "-z heap resets per record",
			opts: ConvertOptions{ExcludeZygote: true},
			in: andHeader(
				rec(TagHeapDumpSegment, 0, info(HeapZygote), inst),
				rec(TagString, 0, id4(1)),
				rec(TagHeapDumpSegment, 0, inst),
			),
			want: stdHeader(rec(TagHeapDumpSegment, 0), rec(TagString, 0, id4(1)), rec(TagHeapDumpSegment, 0, inst)),
		},
		{
			name: "without -z nothing is dropped",
			in:   andHeader(rec(TagHeapDumpSegment, 0, info(HeapZygote), inst, info(HeapImage), primArr)),
			want: stdHeader(rec(TagHeapDumpSegment, 0, inst, primArr)),
		},
	}
}

func TestConvertVectors(t *testing.T) {
	for _, tc := range convertVectors() {
		t.Run(tc.name, func(t *testing.T) {
			got := convert(t, tc.in, tc.opts)
			if !bytes.Equal(got, tc.want) {
				t.Errorf("converted\n got %x\nwant %x", got, tc.want)
			}
		})
	}
}

func TestConvertRefusesNonAndroid(t *testing.T) {
	for _, v := range []string{VersionStandard, Version101} {
		in := fileBytes(v, 4, rec(TagHeapDumpSegment, 0, newRaw().u1(0xFF).u4(1).bytes()))
		var out bytes.Buffer
		err := Convert(&out, bytes.NewReader(in), ConvertOptions{})
		if !errors.Is(err, ErrNotAndroid) {
			t.Errorf("%s: %v, want ErrNotAndroid", v, err)
		}
		if out.Len() != 0 {
			t.Errorf("%s: wrote %d bytes", v, out.Len())
		}
	}
	err := Convert(&bytes.Buffer{}, bytes.NewReader(fileBytes("JAVA PROFILE 1.0.3x", 4)), ConvertOptions{})
	if !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("unknown version: %v", err)
	}
}

// expectConverted applies Convert's rules to decoded records: the semantic
// statement of what Convert does, independent of bytes.
func expectConverted(recs []Record, opts ConvertOptions, idSize int) []Record {
	var out []Record
	ignore := false
	for _, r := range recs {
		switch v := r.(type) {
		case *HeapDump:
			ignore = false
		case *HeapDumpInfo:
			ignore = opts.ExcludeZygote && (v.Heap == HeapZygote || v.Heap == HeapImage)
			continue
		case *Root:
			if v.Kind.Android() {
				r = &Root{Kind: SubRootUnknown, Object: v.Object}
			}
		case *InstanceDump, *ObjectArrayDump:
			if ignore {
				continue
			}
		case *PrimitiveArrayDump:
			if v.NoData {
				r = canon(&PrimitiveArrayDump{Array: v.Array, Type: v.Type, Count: v.Count,
					Data: make([]byte, int(v.Count)*v.Type.Size(idSize))})
			} else if ignore {
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// Converted Synth files are 1.0.2 files without Android-only sub-records,
// holding exactly the original records rewritten by Convert's rules.
func TestConvertSemantics(t *testing.T) {
	for _, s := range []Synth{{Seed: 1, NoData: true}, {Seed: 2, IDSize: 8, NoData: true, Instances: 2000}} {
		for _, opts := range []ConvertOptions{{}, {ExcludeZygote: true}} {
			t.Run(fmt.Sprintf("seed%d-id%d-z%v", s.Seed, s.IDSize, opts.ExcludeZygote), func(t *testing.T) {
				in := synthBytes(t, s)
				h, got, err := readAll(convert(t, in, opts))
				if err != nil {
					t.Fatal(err)
				}
				if h.Version != VersionStandard || h.IDSize != s.Header().IDSize || h.Timestamp != s.Header().Timestamp {
					t.Errorf("header %+v", h)
				}
				for _, r := range got {
					switch v := r.(type) {
					case *HeapDumpInfo:
						t.Fatal("HEAP DUMP INFO left")
					case *Root:
						if v.Kind.Android() {
							t.Fatalf("%v left", v.Kind)
						}
					case *PrimitiveArrayDump:
						if v.NoData {
							t.Fatal("NODATA left")
						}
					}
				}
				want := expectConverted(emitted(t, s), opts, s.Header().IDSize)
				if len(got) != len(want) {
					t.Fatalf("%d records, want %d", len(got), len(want))
				}
				for i := range want {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("record %d: %#v, want %#v", i, got[i], want[i])
					}
				}
			})
		}
	}
}

func TestConvertErrors(t *testing.T) {
	seg := func(subs ...[]byte) []byte {
		return fileBytes(VersionAndroid, 4, rec(TagString, 0, id4(1)), rec(TagHeapDumpSegment, 0, subs...))
	}
	// The segment's body starts at 31 (header) + 13 (string record) + 9.
	const body = 31 + 13 + 9
	for _, tc := range []struct {
		name string
		in   []byte
		off  int
	}{
		{"unknown sub-record", seg(newRaw().u1(0xFF).u4(1).bytes(), []byte{0x55, 0, 0, 0, 1}), body + 5},
		{"root past the record", seg([]byte{0x8E, 0, 0, 0, 1, 0, 0, 0, 2}), body},
		{"instance data past the record", seg(newRaw().u1(0x21).u4(1).u4(0).u4(2).u4(100).b(1, 2).bytes()), body + 17},
		{"invalid static type", seg(newRaw().u1(0x20).b(make([]byte, 36)...).u2(0).u2(1).u4(1).u1(3).bytes()), body + 1 + 36 + 2 + 2 + 4},
		{"object primitive array", seg(newRaw().u1(0x23).u4(1).u4(0).u4(1).u1(2).u4(7).bytes()), body + 13},
		{"truncated record", seg(newRaw().u1(0xFF).u4(1).bytes())[:body+3], body + 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Convert(&out, bytes.NewReader(tc.in), ConvertOptions{})
			formatErr(t, err, tc.off)
			// The records before the bad one were written.
			want := fileBytes(VersionStandard, 4, rec(TagString, 0, id4(1)))
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("output %x, want %x", out.Bytes(), want)
			}
		})
	}
}

func TestToStandardEqualsConvert(t *testing.T) {
	android, err := Synth{Seed: 5}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := Convert(&want, bytes.NewReader(android), ConvertOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := ToStandard(android)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("ToStandard differs from Convert (err %v)", err)
	}
	if _, err := ToStandard(want.Bytes()); err == nil {
		t.Fatal("a standard file converted again without an error")
	}
}
