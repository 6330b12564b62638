package viewtree

import (
	"bytes"
	"errors"
	"testing"
)

// s is a key: 'S' and a big-endian property id.
func s(id int16) []byte { return []byte{'S', byte(uint16(id) >> 8), byte(id)} }

func i4(v int32) []byte {
	return []byte{'I', byte(uint32(v) >> 24), byte(uint32(v) >> 16), byte(uint32(v) >> 8), byte(v)}
}

func r(v string) []byte { return append([]byte{'R', byte(len(v) >> 8), byte(len(v))}, v...) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// v2Vector is a dump as ViewHierarchyEncoder writes it, byte by byte: the
// window's place, a DecorView-like root with one TextView child (layout
// params nested), then the index in first-use order.
func v2Vector() []byte {
	body := cat(
		s(1), i4(0), // window:left
		s(2), i4(63), // window:top
		[]byte{'M'},
		s(3), r("com.android.internal.policy.DecorView"), // meta:__name__
		s(4), i4(0x068f0cbc), // meta:__hash__
		s(5), i4(-1), // id: NO_ID
		s(6), i4(0), s(7), i4(0), // layout:left, layout:top
		s(8), i4(1080), s(9), i4(2400), // layout:width, layout:height
		s(10), i4(0), // misc:visibility
		s(11), []byte{'F', 0x3f, 0x80, 0, 0}, // drawing:alpha 1.0
		s(12), []byte{'S', 0, 1}, // meta:__childCount__
		s(13), []byte{'M'}, // meta:__child__0
		s(3), r("android.widget.TextView"),
		s(4), i4(0x1f),
		s(5), r("id/title"),
		s(6), i4(32), s(7), i4(48),
		s(8), i4(200), s(9), i4(60),
		s(10), i4(4), // INVISIBLE
		s(11), []byte{'F', 0x3f, 0, 0, 0}, // 0.5
		s(14), r("Hi\nthere"), // text:text
		s(15), []byte{'M'}, // layoutParams
		s(3), r("android.widget.FrameLayout$LayoutParams"),
		s(4), i4(0x2a),
		s(16), i4(-1), // layout_width MATCH_PARENT
		s(0),
		s(17), []byte{'Z', 1}, // misc:enabled
		s(0),                  // end of the TextView
		s(18), []byte{'Z', 0}, // drawing:clipChildren, after the children as ViewGroup writes it
		s(0), // end of the root
	)
	names := []string{"window:left", "window:top", "meta:__name__", "meta:__hash__", "id", "layout:left", "layout:top",
		"layout:width", "layout:height", "misc:visibility", "drawing:alpha", "meta:__childCount__", "meta:__child__0",
		"text:text", "layoutParams", "layout_width", "misc:enabled", "drawing:clipChildren", "__name__"}
	index := cat([]byte{'M'}, s(19), r("propertyIndex"))
	for i, n := range names {
		index = cat(index, s(int16(i+1)), r(n))
	}
	return cat(body, index, s(0))
}

func TestDecodeV2Vector(t *testing.T) {
	tr, err := DecodeV2(v2Vector())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != FormatV2 || tr.Truncated || tr.Unnamed != 0 || tr.WindowTop != 63 {
		t.Fatalf("tree %+v", tr)
	}
	if len(tr.Nodes) != 2 {
		t.Fatalf("%d nodes", len(tr.Nodes))
	}
	root, tv := tr.Nodes[0], tr.Nodes[1]
	if root.Name() != "com.android.internal.policy.DecorView@68f0cbc" || root.ID != "" || root.Width != 1080 ||
		root.Height != 2400 || root.Alpha != 1 || root.ScreenTop != 63 || root.Parent != -1 {
		t.Errorf("root %+v", root)
	}
	if tv.Name() != "android.widget.TextView@1f" || tv.ID != "id/title" || tv.Left != 32 || tv.Top != 48 ||
		tv.Width != 200 || tv.Height != 60 || tv.Visibility != Invisible || tv.Alpha != 0.5 ||
		!tv.HasText || tv.Text != "Hi\nthere" || tv.Parent != 0 || tv.Depth != 1 || tv.ScreenLeft != 32 || tv.ScreenTop != 111 {
		t.Errorf("text view %+v", tv)
	}
	if got := tr.Children(0); len(got) != 1 || got[0] != 1 {
		t.Errorf("children %v", got)
	}
	want := map[string]string{"meta:__name__": "android.widget.TextView", "layoutParams/meta:__name__": "android.widget.FrameLayout$LayoutParams",
		"layoutParams/layout_width": "-1", "misc:enabled": "true", "text:text": "Hi\nthere", "drawing:alpha": "0.5"}
	got := map[string]string{}
	for _, p := range tr.Properties(1) {
		got[tr.Name(p)] = tr.Value(p)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// The root's properties after its children stay its own.
	var clip bool
	for _, p := range tr.Properties(0) {
		if tr.Name(p) == "drawing:clipChildren" {
			clip = true
			if Category(tr.Name(p)) != "drawing" || Short(tr.Name(p)) != "clipChildren" || tr.Value(p) != "false" {
				t.Errorf("clipChildren %+v %q", p, tr.Value(p))
			}
		}
	}
	if !clip {
		t.Error("root lost the property written after its children")
	}
}

// The encoder writes the vector byte for byte.
func TestEncoderWritesVector(t *testing.T) {
	e := NewEncoder()
	e.Int("window:left", 0)
	e.Int("window:top", 63)
	e.BeginObject("com.android.internal.policy.DecorView", 0x068f0cbc)
	e.Int("id", -1)
	e.Int("layout:left", 0)
	e.Int("layout:top", 0)
	e.Int("layout:width", 1080)
	e.Int("layout:height", 2400)
	e.Int("misc:visibility", 0)
	e.Float("drawing:alpha", 1)
	e.Short("meta:__childCount__", 1)
	e.Key("meta:__child__0")
	e.BeginObject("android.widget.TextView", 0x1f)
	e.String("id", "id/title")
	e.Int("layout:left", 32)
	e.Int("layout:top", 48)
	e.Int("layout:width", 200)
	e.Int("layout:height", 60)
	e.Int("misc:visibility", 4)
	e.Float("drawing:alpha", 0.5)
	e.String("text:text", "Hi\nthere")
	e.Key("layoutParams")
	e.BeginObject("android.widget.FrameLayout$LayoutParams", 0x2a)
	e.Int("layout_width", -1)
	e.EndObject()
	e.Bool("misc:enabled", true)
	e.EndObject()
	e.Bool("drawing:clipChildren", false)
	e.EndObject()
	if got, want := e.EndStream(), v2Vector(); !bytes.Equal(got, want) {
		t.Fatalf("encoder:\n%q\nwant\n%q", got, want)
	}
}

// The index may come in any order (a Java HashMap's); names a few ids
// never used, and misses one: that property is named by its id.
func TestDecodeV2IndexOrderAndGaps(t *testing.T) {
	v := v2Vector()
	at := bytes.LastIndex(v, indexMarker) - 5
	body := v[:at]
	index := cat([]byte{'M'}, s(19), r("propertyIndex"), s(300), r("never:used"))
	names := []string{"window:left", "window:top", "meta:__name__", "meta:__hash__", "id", "layout:left", "layout:top",
		"layout:width", "layout:height", "misc:visibility", "drawing:alpha", "meta:__childCount__", "meta:__child__0",
		"text:text", "layoutParams", "layout_width", "misc:enabled", "drawing:clipChildren", "__name__"}
	for i := len(names) - 1; i >= 0; i-- {
		if names[i] == "misc:enabled" {
			continue // missing
		}
		index = cat(index, s(int16(i+1)), r(names[i]))
	}
	tr, err := DecodeV2(cat(body, index, s(0)))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Unnamed != 1 || tr.Nodes[1].Text != "Hi\nthere" {
		t.Fatalf("unnamed %d, text %q", tr.Unnamed, tr.Nodes[1].Text)
	}
	found := false
	for _, p := range tr.Properties(1) {
		found = found || tr.Name(p) == "#17"
	}
	if !found {
		t.Error("the unnamed id is not shown as #17")
	}
}

// A busy app's dump cut inside the tree, the index appended after it.
func TestDecodeV2CutShort(t *testing.T) {
	v := v2Vector()
	at := bytes.LastIndex(v, indexMarker) - 5
	cut := bytes.Index(v, []byte("id/title")) + 3 // inside the child's id string
	tr, err := DecodeV2(cat(v[:cut], v[at:]))
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Truncated || len(tr.Nodes) != 2 || tr.Nodes[0].Width != 1080 {
		t.Fatalf("truncated %v, %d nodes, %+v", tr.Truncated, len(tr.Nodes), tr.Nodes[0])
	}
}

func TestDecodeV2Rejects(t *testing.T) {
	v := v2Vector()
	at := bytes.LastIndex(v, indexMarker) - 5
	index := v[at:]
	deep := cat(s(1), i4(0))
	for i := 0; i < MaxDepth+2; i++ {
		deep = cat(deep, []byte{'M'}, s(13))
	}
	bigString := cat(s(1), i4(0), []byte{'M'}, s(3), []byte{'R', 0x7f, 0xff}, []byte("x"))
	for name, tc := range map[string]struct {
		data []byte
		want error
	}{
		"no index":          {v[:at], ErrNoIndex},
		"empty":             {nil, ErrNoIndex},
		"too deep":          {cat(deep, index), ErrTooDeep},
		"no root":           {cat(s(1), i4(0), index), ErrEmptyDump},
		"bytes after index": {cat(v, []byte{0}), nil},
		"bad tag":           {cat(s(1), []byte{'Q', 0}, index), nil},
		"long string":       {cat(bigString, index), nil},
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := DecodeV2(tc.data)
			if name == "long string" {
				// a string longer than what is left of its record: the dump ends there
				if err == nil && !tr.Truncated {
					t.Fatalf("accepted %+v", tr)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %+v", tr.Nodes)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestIsV2(t *testing.T) {
	if !IsV2(v2Vector()) || IsV2([]byte("SurfaceView@1 \nDONE.\n")) || IsV2(nil) {
		t.Fatal("IsV2")
	}
}
