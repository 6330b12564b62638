package heapgraph

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// vector is a trace of one heap graph packet, laid out by hand from
// spec/perfetto-heapgraph.md (API 31 encoding): pid 7, timestamp 1000,
// sequence 1; a JNI global root 0x10; type 1 "A" (16 bytes, NORMAL, own
// reference field iid 1); object 0x10 (APP heap) -> 0x20; object 0x20 by
// id_delta, its field null; field name 1 "java.lang.Object A.next" at the
// end.
var vector = []byte{
	0x0A, 0x52, // Trace.packet, 82 bytes
	0x40, 0xE8, 0x07, // timestamp 1000
	0x50, 0x01, // trusted_packet_sequence_id 1
	0xC2, 0x03, 0x4A, // heap_graph (56), 74 bytes
	0x08, 0x07, // pid 7
	0x30, 0x00, // index 0
	0x3A, 0x05, 0x0A, 0x01, 0x10, 0x10, 0x01, // roots: object_ids [0x10], root_type JNI_GLOBAL
	0x4A, 0x0C, 0x08, 0x01, 0x1A, 0x01, 'A', 0x20, 0x10, 0x32, 0x01, 0x01, 0x38, 0x01, // types
	0x12, 0x09, 0x08, 0x10, 0x10, 0x01, 0x48, 0x01, 0x2A, 0x01, 0x20, // object 0x10
	0x12, 0x07, 0x38, 0x10, 0x10, 0x01, 0x2A, 0x01, 0x00, // object by id_delta 0x10
	0x22, 0x1B, 0x08, 0x01, 0x12, 0x17, // field_names: iid 1, 23 bytes
	'j', 'a', 'v', 'a', '.', 'l', 'a', 'n', 'g', '.', 'O', 'b', 'j', 'e', 'c', 't', ' ', 'A', '.', 'n', 'e', 'x', 't',
}

func writeVector(api int) []byte {
	var b bytes.Buffer
	w := NewWriter(&b, WriterOptions{API: api, PID: 7, Timestamp: 1000})
	next := w.FieldID("java.lang.Object A.next")
	w.Roots(RootJNIGlobal, 0x10)
	w.Type(TypeSpec{ID: 1, Name: "A", ObjectSize: 16, Kind: KindNormal, RefFields: []uint32{next}})
	w.Object(ObjectSpec{ID: 0x10, TypeID: 1, Size: 16, TypeSize: 16, Heap: HeapApp, Kind: KindNormal, Refs: []uint64{0x20}, Fields: []uint32{next}})
	w.Object(ObjectSpec{ID: 0x20, TypeID: 1, Size: 16, TypeSize: 16, Heap: HeapApp, Kind: KindNormal, Refs: []uint64{0}, Fields: []uint32{next}})
	if err := w.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func TestVectorWritten(t *testing.T) {
	if got := writeVector(31); !bytes.Equal(got, vector) {
		t.Fatalf("Writer wrote\n% x\nwant\n% x", got, vector)
	}
}

func checkVectorGraph(t *testing.T, g *Graph, nullKept bool) {
	t.Helper()
	if g.PID != 7 || g.Timestamp != 1000 || g.Packets != 1 {
		t.Errorf("header %v", g)
	}
	if len(g.ID) != 2 || g.ID[0] != 0x10 || g.ID[1] != 0x20 || g.Size[0] != 16 || g.Size[1] != 16 || g.Heap[1] != HeapApp {
		t.Errorf("objects %v %v %v", g.ID, g.Size, g.Heap)
	}
	if len(g.Types) != 1 || g.Types[0].Name != "A" || g.Types[0].Kind != KindNormal || g.Types[0].Super != -1 {
		t.Errorf("types %+v", g.Types)
	}
	if len(g.Roots) != 1 || g.Roots[0] != (Root{ID: 0x10, Type: RootJNIGlobal}) {
		t.Errorf("roots %+v", g.Roots)
	}
	from, to := g.RefRange(0)
	if to-from != 1 || g.Refs[from] != 0x20 || g.FieldName(g.FieldOf[from]) != "java.lang.Object A.next" {
		t.Errorf("refs of 0x10: %v %v", g.Refs[from:to], g.FieldOf[from:to])
	}
	from, to = g.RefRange(1)
	if nullKept && (to-from != 1 || g.Refs[from] != 0) || !nullKept && to != from {
		t.Errorf("refs of 0x20: %v", g.Refs[from:to])
	}
	var edges []Edge
	if err := g.EachNode(func(n *Node) error {
		if n.ID == 0x10 {
			edges = append(edges, n.Edges...)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(edges) != 1 || edges[0] != (Edge{Field: "next", Decl: "A", To: 0x20}) {
		t.Errorf("edges %+v", edges)
	}
}

func TestVectorRead(t *testing.T) {
	checkVectorGraph(t, readOne(t, vector), true)
}

// TestVectorEncodings reads the same heap written as API 30 (absolute ids,
// per-object field ids, nulls left out) and 34 (reference base).
func TestVectorEncodings(t *testing.T) {
	v30, v34 := writeVector(30), writeVector(34)
	if bytes.Equal(v30, vector) || bytes.Equal(v34, vector) {
		t.Fatal("the encodings are the same")
	}
	// API 30: object 0x10 carries its field id (4<<3|2 = 0x22, 1 byte, iid 1).
	if !bytes.Contains(v30, []byte{0x22, 0x01, 0x01, 0x2A, 0x01, 0x20}) {
		t.Errorf("API 30 vector lacks the per-object field id: % x", v30)
	}
	// API 34: base 0x1F (6<<3 = 0x30), value 0x20-0x1F = 1.
	if !bytes.Contains(v34, []byte{0x30, 0x1F, 0x2A, 0x01, 0x01}) {
		t.Errorf("API 34 vector lacks the reference base: % x", v34)
	}
	checkVectorGraph(t, readOne(t, v30), false)
	checkVectorGraph(t, readOne(t, v34), true)
}

// graphPacket frames HeapGraph fields as a trace packet.
func graphPacket(seq uint64, fields ...[]byte) []byte {
	var b bytes.Buffer
	if err := WritePacket(&b, 1000, seq, fPacketHeapGraph, bytes.Join(fields, nil)); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func v(num protowire.Number, x uint64) []byte { return appendVarint(nil, num, x) }

func msg(num protowire.Number, fields ...[]byte) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(b, bytes.Join(fields, nil))
}

func str(num protowire.Number, s string) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

var (
	okType   = msg(fGraphTypes, v(fTypeID, 1), str(fTypeClassName, "A"), v(fTypeObjectSize, 8))
	okObject = msg(fGraphObjects, v(fObjID, 0x10), v(fObjTypeID, 1))
)

func TestBadInput(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, c := range []struct {
		name string
		in   []byte
		want string // in the error
		is   error
		off  int // FormatError offset (-1: not a FormatError)
	}{
		{"empty", nil, "no Java heap graph", ErrNoHeapGraph, -1},
		{"bad varint", []byte{0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, "bad varint", nil, 1},
		{"length past the end", []byte{0x0A, 0x7F, 0x00}, "trace packet", wire.ErrShort, 2},
		{"absurd length", []byte{0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, "at most", wire.ErrTooLong, 6},
		{"inner length past the end", cat([]byte{0x0A, 0x04}, []byte{0xC2, 0x03, 0x7F, 0x00}), "length 127", wire.ErrTooLong, 2},
		{"absurd packed count", graphPacket(1, v(fGraphPID, 1), []byte{0x12, 0x03, 0x2A, 0xFF, 0x7F}), "length 16383", wire.ErrTooLong, 14},
		{"truncated varint in packed", graphPacket(1, v(fGraphPID, 1), msg(fGraphObjects, v(fObjID, 0x10), v(fObjTypeID, 1), []byte{0x2A, 0x01, 0x80}), okType), "reference_object_id", nil, 20},
		{"missing index", cat(graphPacket(1, v(fGraphPID, 1), v(fGraphIndex, 0), v(fGraphContinued, 1), okType),
			graphPacket(1, v(fGraphPID, 1), v(fGraphIndex, 2), okObject)), "index 2 where 1 was expected", ErrIncomplete, 35},
		{"starts late", graphPacket(1, v(fGraphPID, 1), v(fGraphIndex, 3), okObject), "packets 0–2 are missing", ErrIncomplete, 10},
		{"ends continued", graphPacket(1, v(fGraphPID, 1), v(fGraphContinued, 1), okType, okObject), "after packet index 0", ErrIncomplete, -1},
		{"undefined type", graphPacket(1, v(fGraphPID, 1), okObject), "has type 1, which the dump does not define", nil, -1},
		{"undefined superclass", graphPacket(1, v(fGraphPID, 1), msg(fGraphTypes, v(fTypeID, 1), str(fTypeClassName, "A"), v(fTypeSuperclass, 5))), "superclass 5", nil, -1},
		{"superclass cycle", graphPacket(1, v(fGraphPID, 1), msg(fGraphTypes, v(fTypeID, 1), str(fTypeClassName, "A"), v(fTypeSuperclass, 2)),
			msg(fGraphTypes, v(fTypeID, 2), str(fTypeClassName, "B"), v(fTypeSuperclass, 1))), "is a cycle", nil, -1},
		{"type twice", graphPacket(1, v(fGraphPID, 1), okType, okType), "type id 1 is defined twice", nil, 23},
		{"undefined field name", graphPacket(1, v(fGraphPID, 1), okType, msg(fGraphObjects, v(fObjID, 0x10), v(fObjTypeID, 1),
			v(fObjRefFieldID, 4), v(fObjRefObjectID, 0x20))), "names field 4", nil, -1},
		{"undefined location", graphPacket(1, v(fGraphPID, 1), msg(fGraphTypes, v(fTypeID, 1), str(fTypeClassName, "A"), v(fTypeLocationID, 3))), "location 3", nil, -1},
		{"name twice", graphPacket(1, v(fGraphPID, 1), okType, msg(fGraphFieldNames, v(fInternedIID, 1), str(fInternedStr, "a")),
			msg(fGraphFieldNames, v(fInternedIID, 1), str(fInternedStr, "b"))), "iid 1 is defined twice", nil, 30},
		{"fields and values disagree", graphPacket(1, v(fGraphPID, 1), okType, msg(fGraphObjects, v(fObjID, 0x10), v(fObjTypeID, 1),
			v(fObjRefFieldID, 1), v(fObjRefFieldID, 1), v(fObjRefObjectID, 0x20))), "1 reference values but 2 field ids", nil, 23},
		{"chain shorter than the values", graphPacket(1, v(fGraphPID, 1), okType, msg(fGraphObjects, v(fObjID, 0x10), v(fObjTypeID, 1),
			v(fObjRefObjectID, 0x20))), "its class chain lists 0", nil, -1},
		{"object without id", graphPacket(1, v(fGraphPID, 1), okType, msg(fGraphObjects, v(fObjTypeID, 1))), "no object id", nil, 23},
		{"compressed", cat([]byte{0x0A, 0x04}, msg(fPacketCompressed, []byte{0x00})), "compressed", ErrCompressed, 2},
		{"bad wire type", []byte{0x0F}, "wire type 7", nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(c.in), Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %q is not %v", err, c.is)
			}
			var fe *FormatError
			switch {
			case c.off >= 0 && !errors.As(err, &fe):
				t.Errorf("error %q has no offset", err)
			case c.off >= 0 && fe.Offset != c.off:
				t.Errorf("error %q: offset %d, want %d", err, fe.Offset, c.off)
			}
		})
	}
}

// TestTruncated reads every prefix of a real trace: an error each time
// (a clean end between packets is ErrIncomplete or ErrNoHeapGraph).
func TestTruncated(t *testing.T) {
	b := writeSmall(t)
	for n := 0; n < len(b); n++ {
		if _, err := Read(bytes.NewReader(b[:n]), Options{}); err == nil {
			t.Fatalf("prefix of %d bytes read without error", n)
		}
	}
}

func writeSmall(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b, WriterOptions{API: 34, PID: 3, Timestamp: 5, PacketBytes: 16})
	f := w.FieldID("java.lang.Object B.x")
	w.Roots(RootJavaFrame, 0x100, 0x108)
	w.Object(ObjectSpec{ID: 0x100, TypeID: 2, Size: 12, TypeSize: 12, Heap: HeapApp, Kind: KindNormal, Refs: []uint64{0x108}})
	w.Object(ObjectSpec{ID: 0x108, TypeID: 2, Size: 12, TypeSize: 12, Heap: HeapApp, Kind: KindNormal, Refs: []uint64{0x100}})
	w.Type(TypeSpec{ID: 1, Name: "A", ObjectSize: 8, Kind: KindNormal})
	w.Type(TypeSpec{ID: 2, Name: "B", ObjectSize: 12, SuperID: 1, Kind: KindNormal, RefFields: []uint32{f}, Location: "base.apk"})
	w.Object(ObjectSpec{ID: 0x200, TypeID: 1, Size: 8, TypeSize: 8, Heap: HeapZygote, Kind: KindNormal})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSplitLate reads a dump split over many packets whose types and
// names come after the objects that use them, with a superclass, a cycle
// of references and a zygote object, between packets of other data
// sources and another process.
func TestSplitLate(t *testing.T) {
	var b bytes.Buffer
	other := func() {
		// A ftrace-like packet (field 1) and a process tree (field 2), unknown here.
		b.Write([]byte{0x0A, 0x06, 0x0A, 0x02, 0x08, 0x01, 0x10, 0x05})
	}
	other()
	b.Write(writeSmall(t))
	other()
	w := NewWriter(&b, WriterOptions{API: 30, PID: 9, Timestamp: 6})
	w.Type(TypeSpec{ID: 1, Name: "C", ObjectSize: 4})
	w.Object(ObjectSpec{ID: 0x40, TypeID: 1, Size: 4, Heap: HeapApp})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(bytes.NewReader(b.Bytes()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Dumps) != 2 || tr.Dumps[0].PID != 3 || tr.Dumps[1].PID != 9 || tr.Skipped != 2 {
		t.Fatalf("dumps %v, skipped %d", tr.Dumps, tr.Skipped)
	}
	g := tr.Dumps[0]
	if g.Packets < 3 {
		t.Errorf("%d packets", g.Packets)
	}
	if g.Types[1].Super != 0 || g.Types[1].Location != "base.apk" {
		t.Errorf("type B: %+v", g.Types[1])
	}
	from, to := g.RefRange(1)
	if to-from != 1 || g.Refs[from] != 0x100 || g.FieldName(g.FieldOf[from]) != "java.lang.Object B.x" {
		t.Errorf("0x108's references: %v %v", g.Refs[from:to], g.FieldOf[from:to])
	}
	m := g.Model()
	if len(m.Roots) != 3 || m.Roots[2] != (ModelRoot{ID: 0x200, Type: RootVMInternal}) {
		t.Errorf("roots %+v", m.Roots)
	}
	// Choosing by pid skips the other process's packets undecoded.
	tr, err = Read(bytes.NewReader(b.Bytes()), Options{PID: 9})
	if err != nil || len(tr.Dumps) != 1 || tr.Dumps[0].PID != 9 {
		t.Fatalf("pid 9: %v, %v", tr, err)
	}
	if _, err := Read(bytes.NewReader(b.Bytes()), Options{PID: 10}); !errors.Is(err, ErrNoHeapGraph) || !strings.Contains(err.Error(), "pid 10") {
		t.Errorf("pid 10: %v", err)
	}
}

// TestRepeatedID: an id dumped twice counts once, the first (D1).
func TestRepeatedID(t *testing.T) {
	in := graphPacket(1, v(fGraphPID, 1), okType, msg(fGraphObjects, v(fObjID, 0x10), v(fObjTypeID, 1), v(fObjHeapType, 1)),
		msg(fGraphObjects, v(fObjID, 0x10), v(fObjTypeID, 1), v(fObjSelfSize, 99), v(fObjHeapType, 2)))
	g := readOne(t, in)
	var n []Node
	_ = g.EachNode(func(x *Node) error { n = append(n, *x); return nil })
	if g.NumObjects() != 2 || len(n) != 1 || n[0].Shallow != 8 || n[0].Heap != "app" {
		t.Errorf("nodes %+v", n)
	}
	if m := g.Model(); len(m.Roots) != 0 {
		t.Errorf("the second (zygote) copy made a root: %+v", m.Roots)
	}
}

func TestSplitFieldName(t *testing.T) {
	for _, c := range [][4]string{
		{"java.lang.Object com.example.Foo.bar", "java.lang.Object", "com.example.Foo", "bar"},
		{"int[] A$B.x", "int[]", "A$B", "x"},
		{"plain", "", "", "plain"},
		{"T Decl.", "T", "Decl", ""},
	} {
		typ, decl, name := SplitFieldName(c[0])
		if typ != c[1] || decl != c[2] || name != c[3] {
			t.Errorf("%q: %q %q %q", c[0], typ, decl, name)
		}
	}
}

// TestSeveralDumps: two dumps of one process in a row, and two processes
// whose packets interleave (each on its own sequence), are told apart and
// listed in the order they end.
func TestSeveralDumps(t *testing.T) {
	var b bytes.Buffer
	dump := func(pid int32, seq, ts uint64, id uint64) *Writer {
		w := NewWriter(&b, WriterOptions{API: 31, PID: pid, Timestamp: ts, Sequence: seq, PacketBytes: 1})
		w.Type(TypeSpec{ID: 1, Name: "A", ObjectSize: 8})
		w.Object(ObjectSpec{ID: id, TypeID: 1, Size: 8, TypeSize: 8, Heap: HeapApp, Kind: KindNormal})
		return w
	}
	// Interleaved: each Writer flushes a packet per message (PacketBytes 1).
	w1 := dump(10, 1, 100, 0x10)
	w2 := dump(20, 2, 100, 0x20)
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := dump(10, 1, 200, 0x30).Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(bytes.NewReader(b.Bytes()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range tr.Dumps {
		got = append(got, g.String())
	}
	want := []string{
		"pid 20 at 100: 1 objects, 1 types, 0 roots (3 packets)",
		"pid 10 at 100: 1 objects, 1 types, 0 roots (3 packets)",
		"pid 10 at 200: 1 objects, 1 types, 0 roots (3 packets)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("dumps:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tr, err = Read(bytes.NewReader(b.Bytes()), Options{PID: 10})
	if err != nil || len(tr.Dumps) != 2 || tr.Dumps[1].ID[0] != 0x30 {
		t.Errorf("pid 10: %v %v", tr, err)
	}
}
