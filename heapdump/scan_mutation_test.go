package heapdump

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// A file whose first byte is the NUL has an empty version: unknown, not
// missing.
func TestHeaderEmptyVersion(t *testing.T) {
	_, err := Analyze([]byte("\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00"), Options{})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 0 || fe.What != "header" || !strings.Contains(err.Error(), `unknown version ""`) {
		t.Errorf("error %v", err)
	}
}

// A STRING record holding only its id is the empty string: a class may be
// named so.
func TestEmptyStringRecord(t *testing.T) {
	var x uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		x = b.Instance(b.Class("", nil), nil)
		b.Root(hprof.SubRootJNIGlobal, x)
	})
	h := analyseBytes(t, data)
	if name := h.ClassName(node(t, h, x)); name != "" {
		t.Errorf("class name %q, want the empty string", name)
	}
}

// A LOAD CLASS record too short to hold the name's id (the file's last
// record) names nothing.
func TestShortLoadClass(t *testing.T) {
	var x, cid uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		z := b.Class("Z", nil)
		cid = b.ID()
		z.ID = cid // the CLASS DUMP and the instance name an id no whole LOAD CLASS names
		z.Dump()
		x = b.Instance(z, nil)
		b.Root(hprof.SubRootJNIGlobal, x)
	})
	be := binary.BigEndian
	body := be.AppendUint32(be.AppendUint32(be.AppendUint32(nil, 9), uint32(cid)), 1) // serial, class, stack serial
	rec := be.AppendUint32(be.AppendUint32([]byte{tagLoadClass}, 0), uint32(len(body)))
	data = append(append(slices.Clip(data), rec...), body...)
	h := analyseBytes(t, data)
	if name, want := h.ClassName(node(t, h, x)), fmt.Sprintf(unknownClassFmt, cid); name != want {
		t.Errorf("class name %q, want %q", name, want)
	}
	if trunc, _ := h.Truncated(); trunc {
		t.Error("a whole file taken for a cut one")
	}
}

// A file cut inside a sub-record stops at that sub-record; cut between two
// sub-records of a heap dump segment, at the segment itself.
func TestTruncatedAt(t *testing.T) {
	var last, before uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		before = b.Bytes([]byte("0123456789"))
		last = b.Bytes(make([]byte, 100))
		b.Root(hprof.SubRootJNIGlobal, before)
	})
	seg := 31 // the header of JAVA PROFILE 1.0.3
	for data[seg] != tagHeapSegment {
		seg += 9 + int(binary.BigEndian.Uint32(data[seg+5:]))
	}
	const end = 9                           // HEAP DUMP END
	const lastLen = 1 + 4 + 4 + 4 + 1 + 100 // the last byte[]
	rootLen := int(binary.BigEndian.Uint32(data[seg+5:])) - (1 + 4 + 4 + 4 + 1 + 10) - lastLen
	if seg+9+int(binary.BigEndian.Uint32(data[seg+5:])) != len(data)-end || rootLen != 1+2*4 {
		t.Fatalf("test setup: segment at %d, root of %d bytes", seg, rootLen)
	}
	for _, c := range []struct {
		cut  int
		at   int64
		objs int
	}{
		{len(data) - end - rootLen - 50, int64(len(data) - end - rootLen - lastLen), 1}, // inside the last byte[]
		{len(data) - end - rootLen, int64(seg), 2},                                      // after it, before the root
		{len(data) - end - 4, int64(len(data) - end - rootLen), 2},                      // inside the root
	} {
		h, err := Analyze(data[:c.cut], Options{})
		if err != nil {
			t.Fatal(err)
		}
		trunc, at := h.Truncated()
		if !trunc || at != c.at || h.NumNodes() != c.objs {
			t.Errorf("cut at %d: truncated %v at %d with %d nodes, want at %d with %d", c.cut, trunc, at, h.NumNodes(), c.at, c.objs)
		}
		_, ok := h.Lookup(last)
		if ok != (c.objs == 2) {
			t.Errorf("cut at %d: the last byte[] found %v", c.cut, ok)
		}
	}
}

// The scan reports progress (and gives pages back) each time it is more
// than 8 MiB past the last report: a segment ending exactly 8 MiB into the
// file is not reported, the record after it is.
func TestScanProgressEvery8MiB(t *testing.T) {
	build := func(n int) []byte {
		return dump(t, 4, "", func(b *scene.Builder) {
			b.Bytes(make([]byte, n))
			b.Str("after") // ends the segment: no HEAP DUMP END
		})
	}
	after := 9 + 4 + len("after")
	base := len(build(0)) - after
	data := build(8<<20 - base)
	if len(data)-after != 8<<20 {
		t.Fatalf("test setup: the segment ends at %d", len(data)-after)
	}
	var got []float64
	_, err := Analyze(data, Options{Progress: func(phase string, f float64) {
		if phase == "scan" {
			got = append(got, f)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []float64{1}) {
		t.Errorf("scan progress %v, want [1]", got)
	}
	// One byte more: the segment's end is reported, then nothing.
	data = build(8<<20 - base + 1)
	got = nil
	if _, err := Analyze(data, Options{Progress: func(phase string, f float64) {
		if phase == "scan" {
			got = append(got, f)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	if want := float64(8<<20+1) / float64(len(data)); !slices.Equal(got, []float64{want}) {
		t.Errorf("scan progress %v, want [%v]", got, want)
	}
}

// rawDump is a JAVA PROFILE 1.0.3 file with 4-byte ids holding one HEAP
// DUMP SEGMENT whose body is body; the body starts at offset 40.
func rawDump(body []byte) []byte {
	d := append([]byte(hprof.VersionStandard+"\x00"), 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0)
	d = append(d, tagHeapSegment, 0, 0, 0, 0)
	d = binary.BigEndian.AppendUint32(d, uint32(len(body)))
	return append(d, body...)
}

// The errors of sub-records too short for what they declare, by offset and
// field, in whole records (a cut file would stop there instead).
func TestSubRecordLengthErrors(t *testing.T) {
	be := binary.BigEndian
	head := func(tag byte, n uint32) []byte { // tag, id 1, stack serial 0, count n
		return be.AppendUint32(be.AppendUint32(be.AppendUint32([]byte{tag}, 1), 0), n)
	}
	for _, c := range []struct {
		name string
		body []byte
		what string
		off  int
	}{
		{"object array of 5 holding 1", append(be.AppendUint32(head(subObjectArray, 5), 7), 0, 0, 0, 9), "object array length", 49},
		{"byte[5] holding 2", append(head(subPrimitiveArray, 5), typeByte, 1, 2), "primitive array length", 49},
		// A class dump exactly as long as its fixed part and constant pool
		// count: the static field count is what is missing.
		{"class dump without its counts", append([]byte{subClassDump}, make([]byte, 7*4+10)...), "static field count", 40 + 1 + 7*4 + 10},
		{"class dump one byte shorter", append([]byte{subClassDump}, make([]byte, 7*4+9)...), "class dump", 41},
	} {
		_, err := Analyze(rawDump(c.body), Options{})
		var fe *FormatError
		if !errors.As(err, &fe) || fe.What != c.what || fe.Offset != c.off {
			t.Errorf("%s: %v, want %q at %d", c.name, err, c.what, c.off)
		}
	}
}

// A class dump with one constant, one int static and one int field, its
// segment ended after each of its bytes in turn: every cut names the
// field it falls in and where that field starts.
func TestClassDumpCutEverywhere(t *testing.T) {
	be := binary.BigEndian
	body := append([]byte{subClassDump}, make([]byte, 7*4+8)...) // id, stack serial, super … reserved, size
	body[4] = 1                                                  // class id 1
	body = be.AppendUint16(body, 1)                              // one constant (from offset 79)
	body = append(be.AppendUint16(body, 3), typeInt, 0, 0, 0, 5) // index 3: int 5
	body = be.AppendUint16(body, 1)                              // one static (86)
	body = append(be.AppendUint32(body, 0x77), typeInt, 0, 0, 0, 6)
	body = be.AppendUint16(body, 1) // one field (97)
	body = append(be.AppendUint32(body, 0x78), typeInt)
	if 40+len(body) != 104 {
		t.Fatalf("test setup: %d bytes", len(body))
	}
	field := func(end int) (string, int) {
		switch {
		case end < 81:
			return "constant pool index", 79
		case end < 82:
			return "constant type", 81
		case end < 86:
			return "constant value", 82
		case end < 88:
			return "static field count", 86
		case end < 92:
			return "static field name id", 88
		case end < 93:
			return "static field type", 92
		case end < 97:
			return "static field value", 93
		case end < 99:
			return "instance field count", 97
		case end < 103:
			return "instance field name id", 99
		case end < 104:
			return "instance field type", 103
		}
		return "", 0
	}
	for end := 79; end <= 104; end++ {
		h, err := Analyze(rawDump(body[:end-40]), Options{})
		what, off := field(end)
		if what == "" {
			if err != nil || h.NumNodes() != 1 {
				t.Fatalf("the whole class dump: %v", err)
			}
			continue
		}
		var fe *FormatError
		if !errors.As(err, &fe) || fe.What != what || fe.Offset != off {
			t.Errorf("ended at %d: %v, want %q at %d", end, err, what, off)
		}
	}
}

// The first build worker reports the graph phase each time it is more
// than 8 MiB past its last report: after a 9 MiB byte[], at the node after
// it (the second of three).
func TestGraphProgress(t *testing.T) {
	data := dump(t, 4, "", func(b *scene.Builder) {
		b.Bytes(make([]byte, 9<<20))
		b.Bytes([]byte{1})
		b.Bytes([]byte{2})
	})
	var got []float64
	if _, err := Analyze(data, Options{Progress: func(phase string, f float64) {
		if phase == "graph" {
			got = append(got, f)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	if want := []float64{1.0 / 3}; !slices.Equal(got, want) {
		t.Errorf("graph progress %v, want %v", got, want)
	}
}

// A node exactly 8 MiB past the first is not reported; the next one is.
func TestGraphProgressAtExactly8MiB(t *testing.T) {
	const head = 1 + 4 + 4 + 4 + 1 // a byte[]'s sub-record before its bytes, 4-byte ids
	data := dump(t, 4, "", func(b *scene.Builder) {
		b.Bytes(make([]byte, 8<<20-head))
		b.Bytes([]byte{1})
		b.Bytes([]byte{2})
	})
	var got []float64
	h, err := Analyze(data, Options{Progress: func(phase string, f float64) {
		if phase == "graph" {
			got = append(got, f)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if d := h.vals.(*hprofFile).offs.at(1) - h.vals.(*hprofFile).offs.at(0); d != 8<<20 {
		t.Fatalf("test setup: the second node is %d bytes after the first", d)
	}
	if want := []float64{2.0 / 3}; !slices.Equal(got, want) {
		t.Errorf("graph progress %v, want %v", got, want)
	}
}

// Top with max 0 or below lists them all, as Children of
// the super-root does; with max at their count too.
func TestTopDominatorsAll(t *testing.T) {
	data := dump(t, 4, "", func(b *scene.Builder) {
		for i := range 5 {
			b.Root(hprof.SubRootJNIGlobal, b.Bytes(make([]byte, 10*i)))
		}
	})
	h := analyseBytes(t, data)
	all := h.Dominators().Children(SuperRoot)
	if len(all) != 5 {
		t.Fatalf("%d top dominators", len(all))
	}
	for _, max := range []int{0, -1, 5, 6} {
		if got := h.Dominators().Top(max); !slices.Equal(got, all) {
			t.Errorf("Top(%d) = %v, want %v", max, got, all)
		}
	}
	if got := h.Dominators().Top(2); !slices.Equal(got, all[:2]) || h.Shallow(got[0]) != 40 {
		t.Errorf("Top(2) = %v, want %v", got, all[:2])
	}
}
