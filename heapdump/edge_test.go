package heapdump

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// If an id is dumped twice only the first dump counts (D1): its class,
// size and edges; what only the second names is garbage.
func TestDuplicateIDsFirstWins(t *testing.T) {
	var first, second, keep, lose, arr uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		a := b.Class("A", nil, scene.F("p", hprof.TypeObject))
		c := b.Class("B", nil, scene.F("q", hprof.TypeObject), scene.F("n", hprof.TypeLong))
		first, keep, lose = b.ID(), b.ID(), b.ID()
		b.InstanceWithID(first, a, scene.V{"p": keep})
		b.Root(hprof.SubRootStickyClass, first)
		b.InstanceWithID(keep, a, nil)
		b.InstanceWithID(lose, a, nil)
		b.InstanceWithID(first, c, scene.V{"q": lose}) // second dump of first
		arr = b.Ints(1, 2, 3)
		b.InstanceWithID(arr, c, nil) // an instance with an array's id
		second = first
	})
	h := analyseBytes(t, data)
	if h.NumNodes() != 2+4 { // two classes, first, keep, lose, arr
		t.Fatalf("%d nodes", h.NumNodes())
	}
	x := node(t, h, second)
	if h.ClassName(x) != "A" || h.Shallow(x) != 4 || h.Retained(x) != 8 {
		t.Errorf("first dump: %s shallow %d retained %d", h.ClassName(x), h.Shallow(x), h.Retained(x))
	}
	if h.Reachable(node(t, h, lose)) || !h.Reachable(node(t, h, keep)) {
		t.Error("edges of the second dump were used")
	}
	if a := node(t, h, arr); h.ClassName(a) != "int[]" || h.Shallow(a) != 12 {
		t.Errorf("array: %s %d", h.ClassName(a), h.Shallow(a))
	}
	if r := row(t, h, "A"); r.Instances != 3 {
		t.Errorf("A row %+v", r)
	}
	for _, r := range h.Histogram() {
		if r.Name == "B" {
			t.Errorf("B has nodes: %+v", r)
		}
	}
}

// A cycle of garbage, zero-length arrays, NODATA arrays, an instance whose
// class was never dumped (its shallow size is its data length), empty
// strings and Dalvik strings with an offset.
func TestOddShapes(t *testing.T) {
	var cyc1, cyc2, emptyObj, emptyBytes, nodata, undumped, holder uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		obj := b.Class("java.lang.Object[]", nil)
		str := b.Class("java.lang.String", nil, scene.F("count", hprof.TypeInt), scene.F("offset", hprof.TypeInt),
			scene.F("hash", hprof.TypeInt), scene.F("value", hprof.TypeObject))
		node := b.Class("N", nil, scene.F("next", hprof.TypeObject))
		ghost := b.Class("com.example.Ghost", nil, scene.F("a", hprof.TypeLong), scene.F("b", hprof.TypeObject))
		ghost.Skip()
		cyc1, cyc2 = b.ID(), b.ID()
		b.InstanceWithID(cyc1, node, scene.V{"next": cyc2})
		b.InstanceWithID(cyc2, node, scene.V{"next": cyc1})
		emptyObj = b.ObjectArray(obj)
		emptyBytes = b.Bytes(nil)
		nodata = b.NoDataArray(hprof.TypeLong, 5)
		undumped = b.Instance(ghost, scene.V{"b": emptyBytes})
		chars := func(s string) uint64 {
			u := make([]uint16, len(s))
			for i := range s {
				u[i] = uint16(s[i])
			}
			return b.Chars(u)
		}
		s1 := b.Instance(str, scene.V{"count": 5, "offset": 1, "value": chars("xINBOXy")})
		s2 := b.Instance(str, scene.V{"count": 5, "value": chars("INBOX")})
		s3 := b.Instance(str, scene.V{"count": 5, "offset": 10, "value": chars("xINBOXy")}) // does not fit: whole array
		s4 := b.Instance(str, scene.V{"count": 7, "value": chars("xINBOXy")})
		e1 := b.Instance(str, scene.V{"value": chars("")})
		e2 := b.Instance(str, scene.V{"value": chars("")})
		holder = b.ObjectArray(obj, emptyObj, nodata, undumped, s1, s2, s3, s4, e1, e2, 0)
		b.Root(hprof.SubRootJNIGlobal, holder)
	})
	h := analyseBytes(t, data)
	for _, id := range []uint64{cyc1, cyc2} {
		if h.Reachable(node(t, h, id)) {
			t.Errorf("%#x of the garbage cycle is reachable", id)
		}
	}
	check := func(id uint64, class string, shallow uint64) {
		t.Helper()
		x := node(t, h, id)
		if h.ClassName(x) != class || h.Shallow(x) != shallow || !h.Reachable(x) {
			t.Errorf("%#x: %s %d %v, want %s %d", id, h.ClassName(x), h.Shallow(x), h.Reachable(x), class, shallow)
		}
	}
	check(emptyObj, "java.lang.Object[]", 0)
	check(nodata, "long[]", 40)
	check(undumped, "com.example.Ghost", 12)
	// The undumped class's instance has no known fields, hence no edges:
	// the byte[] only it names is garbage.
	if x := node(t, h, emptyBytes); h.Reachable(x) || h.ClassName(x) != "byte[]" || h.Shallow(x) != 0 {
		t.Errorf("empty byte[]: reachable %v", h.Reachable(x))
	}
	if got := h.Paths().RefName(node(t, h, holder), node(t, h, undumped)); got != "[2]" {
		t.Errorf("RefName = %q", got)
	}
	dups := h.Strings().Duplicates()
	// "INBOX": s1 (offset 1 in char[7]) and s2 (char[5]): 14 + 10 − 10.
	// "xINBOXy": s3 (offset past the end: whole array) and s4: 14 + 14 − 14.
	// "": two char[0]: wasted 0. Equal waste and count: by content.
	if len(dups) != 3 || dups[1].Value != "xINBOXy" || dups[0].Wasted != 14 || dups[0].Value != "INBOX" ||
		dups[1].Wasted != 14 || dups[1].Count != 2 || dups[2].Value != "" || dups[2].Wasted != 0 || dups[2].Count != 2 {
		t.Errorf("duplicates %+v", dups)
	}
}

// A sub-record with an unknown tag is an error at its offset; so is a
// length that overruns its record.
func TestMalformed(t *testing.T) {
	header := append([]byte(hprof.VersionAndroid), 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0)
	record := func(body []byte) []byte {
		out := append([]byte(nil), header...)
		out = append(out, 0x1C, 0, 0, 0, 0)
		out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
		return append(out, body...)
	}
	base := len(header) + 9
	cases := []struct {
		name string
		body []byte
		off  int
		what string
	}{
		{"unknown tag", []byte{0x8D, 0, 0, 0, 1, 0x77, 1, 2, 3}, base + 5, "heap dump sub-record"},
		{"instance overrun", []byte{0x21, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 9, 1, 2}, base + 13, "instance data length"},
		{"array overrun", []byte{0x23, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 10, 0, 0}, base + 9, "primitive array length"},
		{"bad type", []byte{0x23, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 2}, base + 13, "primitive array type"},
	}
	for _, c := range cases {
		_, err := Analyze(record(c.body), Options{})
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Offset != c.off || fe.What != c.what {
			t.Errorf("%s: %v (want %s at %d)", c.name, err, c.what, c.off)
		}
	}
	if _, err := Analyze([]byte("JAVA PROFILE 9.9\x00...."), Options{}); err == nil {
		t.Error("unknown version accepted")
	}
	if _, err := Analyze(append([]byte(hprof.VersionAndroid), 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0), Options{}); err == nil {
		t.Error("identifier size 5 accepted")
	}
}

// A file cut anywhere is analysed up to its last complete sub-record and
// says where it stopped; never an error or a panic.
func TestTruncatedEverywhere(t *testing.T) {
	_, data := scenario(t, ScenarioOptions{})
	full := analyseBytes(t, data)
	// Top-level record boundaries: a file cut there is complete.
	boundary := map[int]bool{}
	for off := 31; off < len(data); off += 9 + int(binary.BigEndian.Uint32(data[off+5:])) {
		boundary[off] = true
	}
	prev := 0
	for cut := 31; cut < len(data); cut++ {
		h, err := Analyze(data[:cut], Options{})
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		trunc, at := h.Truncated()
		if trunc == boundary[cut] || at > int64(cut) {
			t.Fatalf("cut at %d: truncated %v at %d", cut, trunc, at)
		}
		if h.NumNodes() < prev {
			t.Fatalf("cut at %d: %d nodes, fewer than %d", cut, h.NumNodes(), prev)
		}
		prev = h.NumNodes()
		_ = h.Report(5)
	}
	if trunc, _ := full.Truncated(); trunc || prev != full.NumNodes()-1 && prev != full.NumNodes() {
		t.Fatalf("full file: truncated %v; %d nodes before the end, %d in all", trunc, prev, full.NumNodes())
	}
}

func TestSourceName(t *testing.T) {
	for in, want := range map[string]string{
		"java/util/HashMap":                "java.util.HashMap",
		"[Ljava/lang/String;":              "java.lang.String[]",
		"[[I":                              "int[][]",
		"[B":                               "byte[]",
		"[[[Lcom/x/Y$Z;":                   "com.x.Y$Z[][][]",
		"java.lang.String[]":               "java.lang.String[]",
		"android.graphics.Bitmap$DumpData": "android.graphics.Bitmap$DumpData",
		"[Q":                               "[Q",
		"[J":                               "long[]",
		"[Z":                               "boolean[]",
	} {
		if got := SourceName(in); got != want {
			t.Errorf("SourceName(%q) = %q, want %q", in, got, want)
		}
	}
}

// Pass 2 split over several workers gives the same heap as one worker.
func TestBuildPartsAgree(t *testing.T) {
	var buf bytes.Buffer
	if err := scene.Large(&buf, scene.LargeOptions{Objects: 20000, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	one, err := Analyze(buf.Bytes(), Options{buildParts: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{2, 3, 7} {
		h, err := Analyze(buf.Bytes(), Options{buildParts: parts})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(h.outOff, one.outOff) || !slices.Equal(h.outTgt, one.outTgt) || !slices.Equal(classNames(h), classNames(one)) ||
			!slices.Equal(h.shallow, one.shallow) || !slices.Equal(h.roots, one.roots) || !slices.Equal(h.retained.small, one.retained.small) {
			t.Fatalf("%d parts differ from one", parts)
		}
		a, _ := json.Marshal(h.Report(50))
		b, _ := json.Marshal(one.Report(50))
		if !bytes.Equal(a, b) {
			t.Fatalf("%d parts: reports differ", parts)
		}
	}
}

// classNames lists every node's class name, in node order (the workers
// may number the types of undumped classes in either order).
func classNames(h *Heap) []string {
	out := make([]string, h.NumNodes())
	for x := range out {
		out[x] = h.ClassName(Node(x))
	}
	return out
}

// ROOT UNREACHABLE (0x90) is not a root (D5); Bitmap.dumpData matches only
// below its count (D14); --top bounds dominators and duplicate strings.
func TestUnreachableRootAndDumpDataCount(t *testing.T) {
	var lone, bmp, held uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		obj := b.Class("java.lang.Object", nil)
		bitmap := b.Class("android.graphics.Bitmap", obj, scene.F("mWidth", hprof.TypeInt), scene.F("mHeight", hprof.TypeInt),
			scene.F("mBuffer", hprof.TypeObject), scene.F("mNativePtr", hprof.TypeLong))
		dd := b.Class("android.graphics.Bitmap$DumpData", obj, scene.F("count", hprof.TypeInt), scene.F("format", hprof.TypeInt),
			scene.F("natives", hprof.TypeObject), scene.F("buffers", hprof.TypeObject))
		arr := b.Class("byte[][]", obj)
		ddID := b.ID()
		bitmap.Statics = []scene.Static{{Name: "dumpData", Type: hprof.TypeObject, Value: ddID}}
		lone = b.Instance(obj, nil)
		b.Root(hprof.SubRootUnreachable, lone)
		bmp = b.Instance(bitmap, scene.V{"mWidth": 2, "mHeight": 2, "mNativePtr": 222})
		held = b.Instance(bitmap, scene.V{"mWidth": 3, "mHeight": 3, "mNativePtr": 111})
		b.Root(hprof.SubRootJNIGlobal, bmp)
		b.Root(hprof.SubRootJNIGlobal, held)
		bufs := b.ObjectArray(arr, b.Bytes(make([]byte, 7)), b.Bytes(make([]byte, 9)))
		// count 1: only natives[0] (111) counts, not natives[1] (222).
		b.InstanceWithID(ddID, dd, scene.V{"count": 1, "format": 2, "natives": b.Longs(111, 222), "buffers": bufs})
	})
	h := analyseBytes(t, data)
	if h.Reachable(node(t, h, lone)) {
		t.Error("an object named only by ROOT UNREACHABLE is reachable")
	}
	got := ""
	for _, b := range h.Bitmaps().List() {
		got += fmt.Sprintf("%#x:%d:%v:%s ", h.ID(b.Node), b.PixelBytes, b.PixelsInDump, b.Format)
	}
	if want := fmt.Sprintf("%#x:7:true:webp %#x:0:false: ", held, bmp); got != want {
		t.Errorf("bitmaps %q, want %q", got, want)
	}
}

func TestReportTop(t *testing.T) {
	_, data := scenario(t, ScenarioOptions{})
	h := analyseBytes(t, data)
	r := h.Report(1)
	if len(r.Dominators) != 1 || len(r.DuplicateStrings) != 1 || r.DuplicateStrings[0].Value != "INBOX" || len(r.Leaks) != 3 || len(r.Bitmaps) != 3 {
		t.Errorf("top 1: %d dominators, %d duplicates, %d leaks, %d bitmaps", len(r.Dominators), len(r.DuplicateStrings), len(r.Leaks), len(r.Bitmaps))
	}
	if r := h.Report(0); len(r.DuplicateStrings) != 2 || len(r.Dominators) != 22 { // 20 class objects, the queue and the live activity
		t.Errorf("default: %d dominators, %d duplicates", len(r.Dominators), len(r.DuplicateStrings))
	}
}

// The diff by class name (D16): missing classes count as 0, unchanged rows
// are left out, rows by shallow delta, then instances delta, then name.
func TestDiff(t *testing.T) {
	a := []ClassRow{{Name: "A", Instances: 2, Shallow: 20, Retained: 30}, {Name: "B", Instances: 1, Shallow: 8, Retained: 8},
		{Name: "Same", Instances: 5, Shallow: 5, Retained: 5}, {Name: "Gone", Instances: 1, Shallow: 100, Retained: 100}}
	b := []ClassRow{{Name: "A", Instances: 3, Shallow: 30, Retained: 40}, {Name: "B", Instances: 2, Shallow: 18, Retained: 8},
		{Name: "Same", Instances: 5, Shallow: 5, Retained: 5}, {Name: "New", Instances: 4, Shallow: 10, Retained: 12},
		{Name: "C", Instances: 1, Shallow: 10, Retained: 10}}
	got := fmt.Sprint(Diff(a, b))
	want := "[{New 4 10 12} {A 1 10 10} {B 1 10 0} {C 1 10 10} {Gone -1 -100 -100}]"
	if got != want {
		t.Errorf("diff\n got %s\nwant %s", got, want)
	}
}
