package viewtree

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// Smaller behaviours the decoders' callers rely on, pinned one by one.

func TestJSONShape(t *testing.T) {
	tr, err := DecodeText([]byte(textVector))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tr.JSON())
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	if root["id"] != nil || root["text"] != nil || root["hash"] != "68f0cbc" || root["visibility"] != "VISIBLE" {
		t.Errorf("root %v", root)
	}
	kids := root["children"].([]any)
	if len(kids) != 2 {
		t.Fatalf("children %v", kids)
	}
	tv := kids[0].(map[string]any)
	if tv["id"] != "id/title" || tv["text"] != "Hi\nthere" || tv["visibility"] != "GONE" || tv["width"] != 200.0 ||
		tv["padding"].([]any)[0] != 8.0 || len(tv["children"].([]any)) != 0 {
		t.Errorf("text view %v", tv)
	}
	w := JSONWindowOf("w", tr, nil)
	if w.ViewCount != 3 || w.Format != FormatText || w.Tree == nil || w.Error != "" {
		t.Errorf("%+v", w)
	}
	if e := JSONWindowOf("w", nil, ErrNoSuchWindow); e.Tree != nil || e.Error != ErrNoSuchWindow.Error() || e.ViewCount != 0 {
		t.Errorf("%+v", e)
	}
	if (&Tree{}).JSON() != nil {
		t.Error("empty tree has JSON")
	}
}

func TestTextDumpErrorsTellApart(t *testing.T) {
	if _, err := DecodeText([]byte("hello")); !errors.Is(err, ErrNotADump) {
		t.Errorf("hello: %v", err)
	}
	if _, err := DecodeText([]byte("DONE.\n")); !errors.Is(err, ErrEmptyDump) {
		t.Errorf("DONE.: %v", err)
	}
	if _, err := DecodeText([]byte(" \n")); !errors.Is(err, ErrEmptyDump) {
		t.Errorf("blank: %v", err)
	}
	var te *TextError
	if _, err := DecodeText([]byte("a.V@1\nb.W@zz\nDONE.\n")); !errors.As(err, &te) || te.Line != 2 {
		t.Errorf("line of the error: %v", err)
	}
}

func TestVisibilityAndEffective(t *testing.T) {
	for v, s := range map[Visibility]string{Visible: "VISIBLE", Invisible: "INVISIBLE", Gone: "GONE", 3: "3"} {
		if v.String() != s {
			t.Errorf("%d: %q", v, v.String())
		}
		if p, ok := ParseVisibility(s); !ok || p != v {
			t.Errorf("parse %q: %v %v", s, p, ok)
		}
	}
	for _, s := range []string{"128", "-129", "x", ""} {
		if _, ok := ParseVisibility(s); ok {
			t.Errorf("parse %q accepted", s)
		}
	}
	if v, ok := ParseVisibility("-128"); !ok || v != -128 {
		t.Error("-128")
	}
	tr, err := DecodeText([]byte("a.V@1 getVisibility()=9,INVISIBLE \n b.W@2 \n  c.X@3 getVisibility()=4,GONE \n   d.Y@4 \n b.Z@5 getVisibility()=7,VISIBLE \n"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Effective(1) != Invisible || tr.Effective(3) != Gone || tr.Effective(0) != Invisible || tr.Effective(4) != Invisible {
		t.Errorf("effective %v %v %v %v", tr.Effective(0), tr.Effective(1), tr.Effective(3), tr.Effective(4))
	}
	if tr.Subtree(1) != 4 || tr.Subtree(4) != 5 || tr.Subtree(0) != 5 {
		t.Errorf("subtrees %d %d %d", tr.Subtree(1), tr.Subtree(4), tr.Subtree(0))
	}
	visible, _ := DecodeText([]byte("a.V@1 \n b.W@2 \nDONE.\n"))
	if visible.Effective(1) != Visible {
		t.Error("a visible chain")
	}
}

func TestTreeText(t *testing.T) {
	tr, err := DecodeText([]byte("a.V@1 layout:getWidth()=3,100 layout:getHeight()=3,200 \n b.W@2f mID=3,x/y layout:mLeft=1,1 layout:mTop=2,-2 layout:getWidth()=1,3 layout:getHeight()=1,4 getVisibility()=4,GONE text:mText=1,\" \nDONE.\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := "a.V@1 [0,0 100x200]\n  b.W@2f x/y [1,-2 3x4] GONE \"\\\"\"\n"
	if got := tr.String(); got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	if n := tr.Nodes[1]; n.ScreenLeft != 1 || n.ScreenTop != -2 {
		t.Errorf("screen %d,%d", n.ScreenLeft, n.ScreenTop)
	}
}

func TestNamesAndValues(t *testing.T) {
	for name, want := range map[string][2]string{
		"layout:left":               {"layout", "left"},
		"mID":                       {"misc", "mID"},
		"layoutParams/layout_width": {"misc", "layoutParams/layout_width"},
		"layout:lp/text:size":       {"layout", "lp/text:size"},
		"a/b:c":                     {"misc", "a/b:c"},
	} {
		if c, s := Category(name), Short(name); c != want[0] || s != want[1] {
			t.Errorf("%s: %q %q", name, c, s)
		}
	}
	e := NewEncoder()
	e.Int("window:left", 0)
	e.BeginObject("a.V", 1)
	e.key("b")
	e.w.U1('B')
	e.w.U1(0xfe)
	e.Short("s", -3)
	e.Long("j", -4)
	e.key("d")
	e.w.U1('D')
	e.w.U8(0x4004000000000000)
	e.Bool("z", true)
	e.Float("f", 0.25)
	e.EndObject()
	tr, err := DecodeV2(e.EndStream())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range tr.Properties(0) {
		got[tr.Name(p)] = tr.Value(p)
	}
	for k, v := range map[string]string{"b": "-2", "s": "-3", "j": "-4", "d": "2.5", "z": "true", "f": "0.25", "meta:__hash__": "1"} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if (Property{Kind: 'Q'}).value(nil) != "" {
		t.Error("unknown kind")
	}
}

func TestTextHelpers(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "-5": -5, "123456789": 123456789} {
		if n, ok := atoi([]byte(in)); !ok || n != want {
			t.Errorf("atoi(%q) = %d %v", in, n, ok)
		}
	}
	for _, in := range []string{"", "-", "1234567890", "12a", "+1"} {
		if _, ok := atoi([]byte(in)); ok {
			t.Errorf("atoi(%q) accepted", in)
		}
	}
	s := []byte("é😀x")
	for units, want := range map[int]int{0: 0, 1: 2, 3: 6, 4: 7} {
		if n, ok := utf16Span(s, units); !ok || n != want {
			t.Errorf("span %d: %d %v", units, n, ok)
		}
	}
	if _, ok := utf16Span(s, 2); ok {
		t.Error("half a surrogate pair accepted")
	}
	if _, ok := utf16Span(s, 5); ok {
		t.Error("past the end accepted")
	}
	if utf16Len("é😀x") != 4 {
		t.Error("utf16Len")
	}
	long := bytes.Repeat([]byte("a"), 41)
	if got := clip(long); got != string(long[:40])+"…" || clip(long[:40]) != string(long[:40]) {
		t.Errorf("clip %q", got)
	}
	if unescapeText(`a\nb`) != "a\nb" || unescapeText("plain") != "plain" || escapeText("a\nb") != `a\nb` {
		t.Error("escapes")
	}
}

func TestLayersEdges(t *testing.T) {
	l, err := DecodeLayers([]byte{0, 0, 0, 0, 0, 0, 0, 0, 2})
	if err != nil || l.Width != 0 || l.Truncated {
		t.Errorf("an empty window: %v %+v", err, l)
	}
	if _, err := DecodeLayers([]byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 2}); err == nil {
		t.Error("negative height accepted")
	}
}

func TestV2IndexEdges(t *testing.T) {
	v := v2Vector()
	at := bytes.LastIndex(v, indexMarker) - 5
	body, index := v[:at], v[at:]
	// The index's tags are checked.
	bad := append([]byte{}, index...)
	bad[len(bad)-3] = 'I' // the end key's tag
	if _, err := DecodeV2(cat(body, bad)); err == nil {
		t.Error("bad end tag in the index")
	}
	badValue := cat([]byte{'M'}, s(19), r("propertyIndex"), s(1), i4(0), s(0))
	if _, err := DecodeV2(cat(body, badValue)); err == nil {
		t.Error("an index value that is not a string")
	}
	// The marker at the very start is no index.
	if _, err := DecodeV2(indexMarker); !errors.Is(err, ErrNoIndex) {
		t.Errorf("marker alone: %v", err)
	}
	// An id one past the highest the index names is unnamed, as is a
	// negative one; a key that is not 'S' inside a view is an error.
	e := cat(s(1), i4(0), []byte{'M'}, s(3), r("a.V"), s(20), i4(5), s(-4), i4(6), s(0))
	tr, err := DecodeV2(cat(e, index))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, p := range tr.Properties(0) {
		names[tr.Name(p)] = true
	}
	if !names["#20"] || !names["#-4"] || tr.Unnamed != 2 {
		t.Errorf("names %v, unnamed %d", names, tr.Unnamed)
	}
	if _, err := DecodeV2(cat(s(1), i4(0), []byte{'M'}, []byte{'I', 0, 0, 0, 1}, index)); err == nil {
		t.Error("a key that is not 'S'")
	}
	// Top-level pairs after the root are refused.
	if _, err := DecodeV2(cat(s(1), i4(0), []byte{'M'}, s(3), r("a.V"), s(0), s(2), i4(1), index)); err == nil {
		t.Error("a pair after the root")
	}
}
