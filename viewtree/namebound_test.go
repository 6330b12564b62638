package viewtree

import (
	"fmt"
	"github.com/ddmtui/ddmtui/testkit/alloccount"
	"strings"
	"testing"
	"unsafe"
)

// Issue 37 #7: a v2 dump whose nested maps name their properties per
// (map, property) pair out of 32 KiB names: 60 maps × 60 properties over
// 120 names (a 4 MB reply) made 3,600 names of 64 KiB (225 MiB). The names
// a tree keeps are bounded by MaxNameBytes; the properties past it are
// counted and named NamesCutName.
func TestV2NestedNamesBounded(t *testing.T) {
	const k = 60
	long := func(p string, i int) string { return fmt.Sprintf("%s%03d:", p, i) + strings.Repeat("x", 32760) }
	e := NewEncoder()
	e.BeginObject("a.Root", 1)
	for o := range k {
		e.Key(long("outer", o))
		e.BeginObject("a.Params", uint32(o))
		for i := range k {
			e.Int(long("inner", i), int32(i))
		}
		e.EndObject()
	}
	e.EndObject()
	data := e.EndStream()
	var tr *Tree
	var err error
	got := alloccount.Bytes(func() { tr, err = DecodeV2(data) })
	if err != nil {
		t.Fatal(err)
	}
	if tr.NamesCut == 0 || tr.nameBytes > MaxNameBytes {
		t.Errorf("%d names cut, %d bytes of names kept", tr.NamesCut, tr.nameBytes)
	}
	if limit := uint64(3*len(data) + MaxNameBytes + 8<<20); got > limit {
		t.Errorf("decoding a %d-byte dump allocated %d MiB (bound %d MiB)", len(data), got>>20, limit>>20)
	}
	cut := 0
	for _, p := range tr.Props {
		if tr.Name(p) == NamesCutName {
			cut++
		}
	}
	if cut != tr.NamesCut {
		t.Errorf("%d properties named %q, %d counted", cut, NamesCutName, tr.NamesCut)
	}
}

// The text dump: every view with names of its own (120,000 views × 2 new
// names of 40 bytes: 9.6 MB of names) keeps MaxNameBytes of them.
func TestTextNamesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("a.Root@1 mID=5,NO_ID \n")
	for i := range 120_000 {
		fmt.Fprintf(&b, " a.V@%x mID=5,NO_ID custom:aPropertyOfItsOwnNumber%010d=1,1 other:aSecondPropertyNamed%010d=1,2 \n", i+2, i, i)
	}
	b.WriteString("DONE.\n")
	data := []byte(b.String())
	var tr *Tree
	var err error
	got := alloccount.Bytes(func() { tr, err = DecodeText(data) })
	if err != nil {
		t.Fatal(err)
	}
	if tr.NamesCut == 0 || tr.nameBytes > MaxNameBytes || len(tr.Nodes) != 120_001 {
		t.Errorf("%d names cut, %d bytes kept, %d views", tr.NamesCut, tr.nameBytes, len(tr.Nodes))
	}
	t.Logf("%d-byte text dump: %d MiB allocated", len(data), got>>20)
}

// Bytes, what the model charges a tree to the memory budget, counts at
// least the dump, every node at its size and the names; the sizes it
// assumes are the types' own.
func TestTreeBytesCountsWhatItHolds(t *testing.T) {
	if unsafe.Sizeof(Node{}) > nodeBytes || unsafe.Sizeof(Property{}) > propertyBytes {
		t.Fatalf("Node is %d bytes, Property %d: Bytes counts %d and %d", unsafe.Sizeof(Node{}), unsafe.Sizeof(Property{}), nodeBytes, propertyBytes)
	}
	var b strings.Builder
	b.WriteString("a.Root@1 mID=5,NO_ID \n")
	for i := range 1000 {
		fmt.Fprintf(&b, " a.V@%x mID=5,NO_ID layout:mLeft=2,%02d \n", i+2, i%100)
	}
	data := []byte(b.String())
	tr, err := DecodeText(data)
	if err != nil {
		t.Fatal(err)
	}
	if min := int64(len(data)+tr.nameBytes) + nodeBytes*int64(len(tr.Nodes)) + propertyBytes*int64(len(tr.Props)); tr.Bytes() < min || len(tr.Nodes) < 1000 {
		t.Fatalf("Bytes %d for a %d-byte dump of %d nodes (at least %d)", tr.Bytes(), len(data), len(tr.Nodes), min)
	}
	if (*Tree)(nil).Bytes() != 0 {
		t.Fatal("a nil tree holds bytes")
	}
}
