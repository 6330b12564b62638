package heapdump

import (
	"reflect"
	"testing"
)

// Rename on a heap fed through a Builder (a heap graph's): the type chain's
// fields and an object's own named references are renamed through their
// declaring classes; the numbers stay.
func TestRenameBuilderHeap(t *testing.T) {
	b := NewBuilder("test graph", Options{})
	b.Type(Type{ID: 1, Name: "java.lang.Object"})
	b.Type(Type{ID: 2, Name: "a.a", Super: 1, InstanceSize: 8, RefFields: []string{"a"}})
	b.Type(Type{ID: 3, Name: "a.b", Super: 2, InstanceSize: 16, RefFields: []string{"a"}})
	b.Type(Type{ID: 4, Name: "java.lang.Class"})
	b.Object(Object{ID: 0x100, Type: 4, Kind: KindClass, Size: 8, ClassOf: 3, Refs: []uint64{0x200}, RefFields: []string{"a.b.b"}})
	b.Object(Object{ID: 0x200, Type: 3, Kind: KindInstance, Size: SizeOfType, Refs: []uint64{0x300, 0x300}})
	b.Object(Object{ID: 0x300, Type: 2, Kind: KindInstance, Size: SizeOfType, Refs: []uint64{0}})
	h, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	hist := h.Histogram()
	classes := map[string]string{"a.a": "com.shop.Base", "a.b": "com.shop.Cart"}
	fields := map[string]string{"a.a.a": "owner", "a.b.a": "items", "a.b.b": "INSTANCE"}
	before := h.Rename(Renamer{
		Class: func(n string) string {
			if s, ok := classes[n]; ok {
				return s
			}
			return n
		},
		Field: func(holders []string, n string) string {
			for _, hd := range holders {
				if s, ok := fields[hd+"."+n]; ok {
					return s
				}
			}
			return n
		},
	})
	if !reflect.DeepEqual(before, []string{"java.lang.Object", "a.a", "a.b", "java.lang.Class"}) {
		t.Errorf("before: %q", before)
	}
	for i, r := range h.Histogram() {
		if s, ok := classes[hist[i].Name]; ok {
			hist[i].Name = s
		}
		if r != hist[i] {
			t.Errorf("row %d: %+v, want %+v", i, r, hist[i])
		}
	}
	cart, _ := h.Lookup(0x200)
	class, _ := h.Lookup(0x100)
	var got []string
	for _, f := range h.Fields(cart) {
		got = append(got, f.Declarer+"."+f.Name)
	}
	for _, f := range h.Fields(class) {
		got = append(got, f.Declarer+"."+f.Name)
	}
	if want := []string{"com.shop.Cart.items", "com.shop.Base.owner", "com.shop.Cart.INSTANCE"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fields %q, want %q", got, want)
	}
	if h.ClassName(cart) != "com.shop.Cart" || h.ClassObjectName(class) != "com.shop.Cart" || h.Paths().RefName(class, cart) != "INSTANCE" {
		t.Errorf("names: %s, %s, %s", h.ClassName(cart), h.ClassObjectName(class), h.Paths().RefName(class, cart))
	}
}
