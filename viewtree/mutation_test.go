package viewtree

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// layersOf is a capture-layers stream of n views with empty pictures, ended
// by the end marker when end is set.
func layersOf(n int, end bool) []byte {
	l := &Layers{Width: 1, Height: 1, Views: make([]Layer, n)}
	for i := range l.Views {
		l.Views[i].Name = "V@1"
	}
	b := EncodeLayers(l)
	if !end {
		b = b[:len(b)-1]
	}
	return b
}

func TestLayersBounds(t *testing.T) {
	if l, err := DecodeLayers(layersOf(MaxLayers, true)); err != nil || len(l.Views) != MaxLayers || l.Truncated {
		t.Fatalf("MaxLayers views: %v", err)
	}
	_, err := DecodeLayers(layersOf(MaxLayers+1, true))
	if want := "capture layers: more than 20000 views"; err == nil || err.Error() != want {
		t.Errorf("MaxLayers+1 views: %v, want %q", err, want)
	}
	// A bad marker's offset is the marker's own.
	_, err = DecodeLayers(append(append([]byte{}, layersVector[:8]...), 7))
	var fe *wire.FormatError
	if !errors.As(err, &fe) || fe.Offset != 8 || fe.What != "marker" {
		t.Errorf("bad marker: %v", err)
	}
	// A stream that ends right after a whole picture keeps that view.
	cut := layersVector[:len(layersVector)-1]
	l, err := DecodeLayers(cut)
	if err != nil || !l.Truncated || len(l.Views) != 2 {
		t.Errorf("cut after the last picture: %v %+v", err, l)
	}
	cut = layersVector[:32] // the first view's 3-byte picture and nothing more
	if l, err := DecodeLayers(cut); err != nil || !l.Truncated || len(l.Views) != 1 || len(l.Views[0].PNG) != 3 {
		t.Errorf("cut after the first picture: %v %+v", err, l)
	}
}

func TestProfileAndThemeBounds(t *testing.T) {
	prof := bytes.Repeat([]byte("1 2 3\n"), MaxNodes)
	if ts, err := ParseProfile(prof); err != nil || len(ts) != MaxNodes {
		t.Fatalf("MaxNodes timings: %v", err)
	}
	if _, err := ParseProfile(append(prof, "1 2 3\n"...)); !errors.Is(err, ErrTooMany) {
		t.Errorf("MaxNodes+1 timings: %v", err)
	}
	theme := append(bytes.Repeat([]byte("a\nb\n"), MaxNodes), "DONE.\n"...)
	if as, err := ParseTheme(theme); err != nil || len(as) != MaxNodes {
		t.Fatalf("MaxNodes attributes: %v", err)
	}
	if _, err := ParseTheme(append([]byte("a\nb\n"), theme...)); !errors.Is(err, ErrTooMany) {
		t.Errorf("MaxNodes+1 attributes: %v", err)
	}
	for _, tc := range []struct{ in, want string }{
		{"1 2 3\n4 5\n", "profile: line 2: 2 fields, want 3"},
		{"1 2 3\n4 5 x\n", `profile: line 2: "x" is not a time`},
	} {
		if _, err := ParseProfile([]byte(tc.in)); err == nil || err.Error() != tc.want {
			t.Errorf("ParseProfile(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
	// A line that starts with a newline is still read.
	if ts, err := ParseProfile([]byte("\n1 2 3\n")); err != nil || len(ts) != 1 || ts[0] != (Timing{1, 2, 3}) {
		t.Errorf("a leading blank line: %v %v", ts, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"a\nb\nc\n", `theme: attribute "c" has no value`},
		{"", "theme: no DONE. after 0 attributes"},
		{"a\nb\n", "theme: no DONE. after 1 attributes"},
	} {
		if _, err := ParseTheme([]byte(tc.in)); err == nil || err.Error() != tc.want {
			t.Errorf("ParseTheme(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestArgEdges(t *testing.T) {
	if a, err := ParseArg("C:\uffff"); err != nil || a.Type != 'C' || a.Value != 0xffff {
		t.Errorf("C:U+FFFF: %+v %v", a, err)
	}
	if _, err := ParseArg("C:\U00010000"); err == nil {
		t.Error("a char past U+FFFF accepted")
	}
	// "I:" names its type, with no value: the number's error, not "give
	// its type".
	if _, err := ParseArg("I:"); err == nil || !strings.Contains(err.Error(), `argument "I:": strconv.ParseInt`) {
		t.Errorf("I: gives %v", err)
	}
	if r, err := DecodeReturn(EncodeReturn('F', 0x3fa00000)); err != nil || r.Value != "1.25" {
		t.Errorf("float return: %+v %v", r, err)
	}
}

func TestTextEdges(t *testing.T) {
	tr, err := DecodeText([]byte("\nA@1 x=1,a\n\n B@2 :mLeft=2,10 y=0, z=1,b\nDONE.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Nodes) != 2 || tr.Nodes[1].Left != 10 || tr.Truncated {
		t.Errorf("blank lines, a prefixed name, an empty value, a value at the line's end: %+v", tr.Nodes)
	}
	if ps := tr.Properties(1); len(ps) != 3 || tr.Value(ps[1]) != "" || tr.Value(ps[2]) != "b" {
		t.Errorf("B's properties: %+v", ps)
	}
	many := "A@1\n" + strings.Repeat(" B@2\n", MaxNodes-1)
	if tr, err := DecodeText([]byte(many)); err != nil || len(tr.Nodes) != MaxNodes {
		t.Fatalf("MaxNodes views: %v", err)
	}
	if _, err := DecodeText([]byte(many + " B@2\n")); !errors.Is(err, ErrTooMany) {
		t.Errorf("MaxNodes+1 views: %v", err)
	}
	for _, tc := range []struct{ in, want string }{
		{"A@1\n   B@2\n", "line 2: depth 3 under a view of depth 0"},
		{"@1f\n", `line 1: not a view hierarchy dump: "@1f" is not class@hash`},
		{"A@1 xyz\n", `line 1: not a view hierarchy dump: property at column 5 has no '='`},
		{"A@1 =3,abc\n", `line 1: not a view hierarchy dump: property at column 5 has no '='`},
		{"A@1 x=,abc\n", `line 1: not a view hierarchy dump: property "x" has no length`},
	} {
		if _, err := DecodeText([]byte(tc.in)); err == nil || err.Error() != tc.want {
			t.Errorf("DecodeText(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// A view's place on the screen: the window's place plus the offsets of its
// ancestors, less their scroll.
func TestScreenPlace(t *testing.T) {
	e := NewEncoder()
	e.Int("window:left", 100)
	e.Int("window:top", 200)
	e.BeginObject("Root", 1)
	e.Int("layout:left", 5)
	e.Int("layout:top", 6)
	e.Int("scrolling:scrollX", 3)
	e.Int("scrolling:scrollY", 4)
	e.Short("meta:__childCount__", 1)
	e.Key("meta:__child__0")
	e.BeginObject("Child", 2)
	e.Int("layout:left", 10)
	e.Int("layout:top", 20)
	e.EndObject()
	e.EndObject()
	tr, err := DecodeV2(e.EndStream())
	if err != nil {
		t.Fatal(err)
	}
	root, kid := tr.Nodes[0], tr.Nodes[1]
	if root.ScreenLeft != 105 || root.ScreenTop != 206 || kid.ScreenLeft != 112 || kid.ScreenTop != 222 {
		t.Errorf("root at %d,%d, child at %d,%d; want 105,206 and 112,222", root.ScreenLeft, root.ScreenTop, kid.ScreenLeft, kid.ScreenTop)
	}
}

func TestNameAndVisibilityEdges(t *testing.T) {
	for s, want := range map[string]Visibility{"-128": -128, "127": 127} {
		if v, ok := ParseVisibility(s); !ok || v != want {
			t.Errorf("ParseVisibility(%q) = %d, %v", s, v, ok)
		}
	}
	for _, s := range []string{"-129", "128"} {
		if _, ok := ParseVisibility(s); ok {
			t.Errorf("ParseVisibility(%q) accepted", s)
		}
	}
	for name, want := range map[string][2]string{
		"/a:b": {"misc", "/a:b"}, ":x": {"", "x"}, "layout:left": {"layout", "left"}, "lp/width": {"misc", "lp/width"},
	} {
		if c, s := Category(name), Short(name); c != want[0] || s != want[1] {
			t.Errorf("%q: category %q, short %q; want %q", name, c, s, want)
		}
	}
}

func TestV2Edges(t *testing.T) {
	if !IsV2([]byte{'S', 0, 1}) || IsV2([]byte{'S', 0}) {
		t.Error("IsV2 at 3 bytes")
	}
	v := v2Vector()
	at := bytes.LastIndex(v, indexMarker) - 5
	index := v[at:]
	// The index alone: found at its earliest place, and no view before it.
	if _, err := DecodeV2(index); !errors.Is(err, ErrEmptyDump) {
		t.Errorf("the index alone: %v", err)
	}
	// An index value that is not a string, with a length and name after it.
	bad := cat([]byte{'M'}, s(19), r("propertyIndex"), s(1), []byte{'X', 0, 1, 'a'}, s(0))
	var fe *wire.FormatError
	if _, err := DecodeV2(cat(v[:at], bad)); !errors.As(err, &fe) || fe.What != "index value tag" {
		t.Errorf("an index value tagged X: %v", err)
	}
	// Cut one and two bytes into a key: the views before it are kept.
	key := bytes.Index(v, s(18))
	for _, n := range []int{1, 2} {
		tr, err := DecodeV2(cat(v[:key+n], index))
		if err != nil || !tr.Truncated || len(tr.Nodes) != 2 {
			t.Errorf("cut %d bytes into a key: %v", n, err)
		}
	}
}

// U+10000, the first code point outside the BMP, is two UTF-16 units both
// ways: in a text dump's length and in utf16Len.
func TestUTF16AtTheBMPEdge(t *testing.T) {
	if utf16Len("\U00010000") != 2 || utf16Len("\uffff") != 1 {
		t.Error("utf16Len at U+FFFF and U+10000")
	}
	tr, err := DecodeText([]byte("A@1 x=2,\U00010000 y=1,\uffff\nDONE.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ps := tr.Properties(0); len(ps) != 2 || tr.Value(ps[0]) != "\U00010000" || tr.Value(ps[1]) != "\uffff" {
		t.Errorf("values %+v", ps)
	}
}

// The v2 decoder's bounds at their exact values: MaxNodes views, property
// maps nested maxMapDepth deep, and a body that ends right after an empty
// string's length.
func TestV2Bounds(t *testing.T) {
	views := func(n int) []byte {
		e := NewEncoder()
		e.BeginObject("Root", 1)
		for range n - 1 {
			e.Key("meta:__child__0")
			e.BeginObject("V", 2)
			e.EndObject()
		}
		e.EndObject()
		return e.EndStream()
	}
	if tr, err := DecodeV2(views(MaxNodes)); err != nil || len(tr.Nodes) != MaxNodes {
		t.Fatalf("MaxNodes views: %v", err)
	}
	if _, err := DecodeV2(views(MaxNodes + 1)); !errors.Is(err, ErrTooMany) {
		t.Errorf("MaxNodes+1 views: %v", err)
	}
	maps := func(levels int) []byte {
		e := NewEncoder()
		e.BeginObject("Root", 1)
		for range levels {
			e.Key("lp")
			e.BeginObject("P", 3)
		}
		for range levels {
			e.EndObject()
		}
		e.EndObject()
		return e.EndStream()
	}
	if _, err := DecodeV2(maps(maxMapDepth)); err != nil {
		t.Errorf("maps %d deep: %v", maxMapDepth, err)
	}
	if _, err := DecodeV2(maps(maxMapDepth + 1)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("maps %d deep: %v", maxMapDepth+1, err)
	}
	v := v2Vector()
	at := bytes.LastIndex(v, indexMarker) - 5
	body := cat(s(1), i4(0), []byte{'M'}, s(3), r("a.V"), s(14), []byte{'R', 0, 0})
	tr, err := DecodeV2(cat(body, v[at:]))
	if err != nil || !tr.Truncated || len(tr.Nodes) != 1 {
		t.Fatalf("cut after an empty string: %v", err)
	}
	if ps := tr.Properties(0); len(ps) != 2 || tr.Name(ps[1]) != "text:text" || tr.Value(ps[1]) != "" {
		t.Errorf("the empty string is kept: %+v", ps)
	}
}

// More v2 bounds: views nested exactly MaxDepth deep, a string of exactly
// maxV2String bytes, values and keys that end exactly where the body
// ends, and the offset of an unknown value tag.
func TestV2ValueEdges(t *testing.T) {
	chain := func(n int) []byte {
		e := NewEncoder()
		for range n {
			e.BeginObject("V", 1)
			e.Key("meta:__child__0")
		}
		e.BeginObject("Leaf", 2)
		e.EndObject()
		for range n {
			e.EndObject()
		}
		return e.EndStream()
	}
	if tr, err := DecodeV2(chain(MaxDepth - 1)); err != nil || len(tr.Nodes) != MaxDepth {
		t.Fatalf("views %d deep: %v", MaxDepth, err)
	}
	if _, err := DecodeV2(chain(MaxDepth)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("views %d deep: %v", MaxDepth+1, err)
	}
	v := v2Vector()
	index := v[bytes.LastIndex(v, indexMarker)-5:]
	head := cat(s(1), i4(0), []byte{'M'}, s(3), r("a.V"))
	long := strings.Repeat("x", maxV2String)
	for name, tc := range map[string]struct {
		body  []byte
		props int
	}{
		"a string of maxV2String bytes, then the end": {cat(head, s(14), r(long), s(0)), 2},
		"a string ending the body":                    {cat(head, s(14), r("abc")), 2},
		"an int ending the body":                      {cat(head, s(6), i4(7)), 2},
		"a key ending the body":                       {cat(head, s(6)), 1},
		"a string tag ending the body":                {cat(head, s(14), []byte{'R'}), 1},
		"one byte of a string's length":               {cat(head, s(14), []byte{'R', 0}), 1},
		"a string cut short":                          {cat(head, s(14), []byte{'R', 0, 5, 'a', 'b'}), 1},
		"an int cut short":                            {cat(head, s(6), []byte{'I', 0, 0}), 1},
	} {
		tr, err := DecodeV2(cat(tc.body, index))
		if err != nil || len(tr.Nodes) != 1 || len(tr.Properties(0)) != tc.props {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if tc.props == 2 && tr.Value(tr.Properties(0)[1]) == "" {
			t.Errorf("%s: the last value is empty", name)
		}
	}
	_, err := DecodeV2(cat(head, s(6), []byte{'Q', 0}, index))
	var fe *wire.FormatError
	if !errors.As(err, &fe) || fe.What != "value tag" || fe.Offset != len(head)+3 {
		t.Errorf("an unknown value tag: %v", err)
	}
}
