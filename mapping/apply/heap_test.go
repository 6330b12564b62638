package apply

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/mapping"
)

const heapMapping = `com.example.shop.Base -> a.a:
    java.lang.Object owner -> a
com.example.shop.Cart -> a.b:
    com.example.shop.Item[] items -> a
    com.example.shop.Cart INSTANCE -> b
com.example.shop.Item -> a.c:
    java.lang.String label -> a
`

// cartDump writes a heap of a minified shop: a Cart (static INSTANCE, its
// items array, an owner field declared by its superclass) holding two Items.
func cartDump(t *testing.T) []byte {
	var buf bytes.Buffer
	b, err := scene.NewBuilder(&buf, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	obj := b.Class("java.lang.Object", nil)
	obj.Dump()
	base := b.Class("a.a", obj, scene.Field{Name: "a", Type: hprof.TypeObject})
	base.Dump()
	item := b.Class("a.c", obj, scene.Field{Name: "a", Type: hprof.TypeObject})
	item.Dump()
	arr := b.Class("a.c[]", obj)
	arr.Dump()
	cart := b.Class("a.b", base, scene.Field{Name: "a", Type: hprof.TypeObject}, scene.Field{Name: "n", Type: hprof.TypeInt})
	i1 := b.Instance(item, nil)
	i2 := b.Instance(item, nil)
	items := b.ObjectArray(arr, i1, i2)
	c := b.Instance(cart, scene.V{"a.b.a": items, "a.a.a": i1, "n": 2})
	cart.Statics = []scene.Static{{Name: "b", Type: hprof.TypeObject, Value: c}}
	cart.Dump()
	b.Root(hprof.SubRootStickyClass, cart.ID)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestHeap(t *testing.T) {
	m, err := mapping.Parse([]byte(heapMapping))
	if err != nil {
		t.Fatal(err)
	}
	data := cartDump(t)
	plain, err := heapdump.Analyze(data, heapdump.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := heapdump.Analyze(data, heapdump.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := Heap(m, h)
	if c := m.Coverage(before); c.Known != 3 || c.Seen != 3 { // a.a, a.b, a.c (a.c[] counts as a.c)
		t.Errorf("coverage of %v: %+v", before, c)
	}
	// The numbers are the same, the names the source's.
	want := map[string]string{"a.a": "com.example.shop.Base", "a.b": "com.example.shop.Cart",
		"a.c": "com.example.shop.Item", "a.c[]": "com.example.shop.Item[]"}
	rows := h.Histogram()
	for i, r := range plain.Histogram() {
		if n, ok := want[r.Name]; ok {
			r.Name = n
		}
		if !reflect.DeepEqual(rows[i], r) {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], r)
		}
	}
	var cart, items heapdump.Node = -1, -1
	for n := range heapdump.Node(h.NumNodes()) {
		switch {
		case h.ClassName(n) == "com.example.shop.Cart":
			cart = n
		case h.ClassName(n) == "com.example.shop.Item[]":
			items = n
		}
	}
	if cart < 0 || items < 0 {
		t.Fatal("no Cart or Item[] by its source name")
	}
	var names []string
	for _, f := range h.Fields(cart) {
		names = append(names, f.Declarer+"."+f.Name)
	}
	if w := []string{"com.example.shop.Cart.items", "com.example.shop.Cart.n", "com.example.shop.Base.owner"}; !reflect.DeepEqual(names, w) {
		t.Errorf("fields: %q, want %q", names, w)
	}
	class, _ := h.Dominator(cart)
	if h.ClassObjectName(class) != "com.example.shop.Cart" {
		t.Fatalf("Cart's dominator is %s", h.ClassName(class))
	}
	if fs := h.Fields(class); len(fs) != 1 || fs[0].Name != "INSTANCE" || !fs[0].Static {
		t.Errorf("statics: %+v", fs)
	}
	if got := h.Paths().RefName(class, cart); got != "INSTANCE" {
		t.Errorf("static hop %q", got)
	}
	if got := h.Paths().RefName(cart, items); got != "items" {
		t.Errorf("instance hop %q", got)
	}
	if Heap(nil, h) != nil {
		t.Error("nil mapping")
	}
}
