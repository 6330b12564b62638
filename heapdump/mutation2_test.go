package heapdump

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

func fieldsText(h *Heap, fs []Field) string {
	var b strings.Builder
	for _, f := range fs {
		ref := "-"
		if f.Ref >= 0 {
			ref = fmt.Sprintf("%#x", h.ID(f.Ref))
		}
		fmt.Fprintf(&b, "%s %s %s static=%v bits=%#x ref=%s strong=%v\n", f.Declarer, f.Type, f.Name, f.Static, f.Bits, ref, f.Strong)
	}
	return b.String()
}

// The inspector's view of a small heap: an instance's fields over its
// class chain (Reference.referent not strong), a class object's statics,
// array elements from the middle, and referrers (each once).
func TestInspectorViews(t *testing.T) {
	var p, x, w, hh, arr, ints uint64
	var hc *scene.ClassDecl
	data := dump(t, 4, "", func(b *scene.Builder) {
		first := b.Class("First", nil, scene.F("v", hprof.TypeInt))
		first.Dump() // classes[0]
		p = b.Instance(first, scene.V{"v": 3})
		b.Root(hprof.SubRootJNIGlobal, p)
		obj := b.Class("java.lang.Object", nil)
		ref := b.Class("java.lang.ref.Reference", obj, scene.F("referent", hprof.TypeObject))
		weak := b.Class("W", ref, scene.F("n", hprof.TypeInt), scene.F("c", hprof.TypeChar))
		hc = b.Class("H", obj, scene.F("a", hprof.TypeObject), scene.F("b", hprof.TypeObject))
		oa := b.Class("java.lang.Object[]", obj)
		x = b.Instance(obj, nil)
		hc.Statics = []scene.Static{{Name: "S", Type: hprof.TypeObject, Value: x}, {Name: "K", Type: hprof.TypeInt, Value: 5}}
		w = b.Instance(weak, scene.V{"n": 7, "c": 'z', "referent": x})
		hh = b.Instance(hc, scene.V{"a": x, "b": x})
		arr = b.ObjectArray(oa, x, 0, hh)
		ints = b.Ints(10, -2, 30, 40)
		for _, r := range []uint64{w, hh, arr, ints} {
			b.Root(hprof.SubRootJNIGlobal, r)
		}
	})
	h := analyseBytes(t, data)
	got := fieldsText(h, h.Fields(node(t, h, p)))
	got += fieldsText(h, h.Fields(node(t, h, w)))
	got += fieldsText(h, h.Fields(node(t, h, hc.ID)))
	got += fieldsText(h, h.ArrayElements(node(t, h, arr), 1, 5))
	got += fieldsText(h, h.ArrayElements(node(t, h, ints), 1, 2))
	for _, r := range h.Referrers(node(t, h, x)) {
		got += fmt.Sprintf("referrer %#x\n", h.ID(r))
	}
	want := fmt.Sprintf(`First int v static=false bits=0x3 ref=- strong=false
W int n static=false bits=0x7 ref=- strong=false
W char c static=false bits=0x7a ref=- strong=false
java.lang.ref.Reference object referent static=false bits=%#[1]x ref=%#[1]x strong=false
H object S static=true bits=%#[1]x ref=%#[1]x strong=true
H int K static=true bits=0x5 ref=- strong=false
 object [1] static=false bits=0x0 ref=- strong=true
 object [2] static=false bits=%#[2]x ref=%#[2]x strong=true
 int [1] static=false bits=0xfffffffe ref=- strong=false
 int [2] static=false bits=0x1e ref=- strong=false
referrer %#[2]x
referrer %#[3]x
referrer %#[4]x
`, x, hh, arr, hc.ID)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if h.Fields(node(t, h, arr)) != nil || h.ArrayElements(node(t, h, ints), 4, 1) != nil || h.ArrayElements(node(t, h, ints), -1, 1) != nil {
		t.Error("fields of an array, or elements outside it")
	}
	if n, ok := h.ArrayLength(node(t, h, ints)); !ok || n != 4 {
		t.Errorf("ArrayLength %d %v", n, ok)
	}
}

// Object ids exactly 2^32 apart (8-byte ids): the index keeps whole ids, not
// 32-bit offsets from the smallest, and finds both.
func TestIDSpanOf4G(t *testing.T) {
	var lo, hi uint64
	data := dump(t, 8, "", func(b *scene.Builder) {
		obj := b.Class("java.lang.Object", nil)
		obj.Dump()
		lo = b.ID()
		hi = obj.ID + 1<<32 // the class object has the smallest id
		b.InstanceWithID(lo, obj, nil)
		b.InstanceWithID(hi, obj, nil)
		b.Root(hprof.SubRootJNIGlobal, lo)
		b.Root(hprof.SubRootJNIGlobal, hi)
	})
	h := analyseBytes(t, data)
	for _, id := range []uint64{lo, hi} {
		if n, ok := h.Lookup(id); !ok || h.ID(n) != id {
			t.Errorf("Lookup(%#x) = %d, %v", id, n, ok)
		}
	}
	// Ids outside the range are not found.
	for _, id := range []uint64{1, hi + 8} {
		if n, ok := h.Lookup(id); ok {
			t.Errorf("Lookup(%#x) = %d", id, n)
		}
	}
}

// Small helpers at their edges: appPackage's three parts, SourceName of
// only brackets and of a name starting with '/', Paths' reachable flag,
// an absent id between two present ones.
func TestNamesAndPathsEdges(t *testing.T) {
	for in, want := range map[string]string{"com.example.app.ui.Main": "com.example.app", "a.b.C": "a.b", "Main": ""} {
		if got := appPackage(in); got != want {
			t.Errorf("appPackage(%q) = %q, want %q", in, got, want)
		}
	}
	if SourceName("/x") != ".x" || SourceName("[[") != "[[" {
		t.Errorf("SourceName: %q %q", SourceName("/x"), SourceName("[["))
	}
	var kept, lost uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		obj := b.Class("java.lang.Object", nil)
		kept = b.Instance(obj, nil)
		lost = b.Instance(obj, nil)
		b.Root(hprof.SubRootJNIGlobal, kept)
	})
	h := analyseBytes(t, data)
	ps, err := h.Paths().Of([]uint64{kept, lost})
	if err != nil || len(ps.Paths) != 2 || !ps.Paths[0].Reachable || ps.Paths[1].Reachable {
		t.Errorf("paths: %+v %v", ps, err)
	}
	if n, ok := h.Lookup(kept + 1); ok {
		t.Errorf("Lookup of an absent id between two: %d", n)
	}
}

// The header's errors name the offset after the version's NUL; a header of
// exactly its 12 bytes after the NUL is read.
func TestHeaderErrorOffsets(t *testing.T) {
	v := "JAVA PROFILE 1.0.3\x00"
	for _, tc := range []struct {
		in   string
		what string
		ok   bool
	}{
		{v + "\x00\x00\x00\x04\x00\x00\x00", "header", false},
		{v + "\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00", "header", false},
		{v + "\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00", "identifier size", false},
		{v + "\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00", "", true},
	} {
		_, err := Analyze([]byte(tc.in), Options{})
		var fe *FormatError
		if tc.ok {
			if errors.As(err, &fe) && fe.What == "header" {
				t.Errorf("a whole header refused: %v", err)
			}
			continue
		}
		if !errors.As(err, &fe) || fe.What != tc.what || fe.Offset != len(v) {
			t.Errorf("%q: %v, want %s at %d", tc.in, err, tc.what, len(v))
		}
	}
}
