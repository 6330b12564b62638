package heapdump

import (
	"runtime"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Issue 37 #1: a name is held once however many classes and fields name
// its STRING record. Here one 64 KiB string names 1,000 fields of one
// class and 1,000 classes (LOAD CLASS); copied on every use it cost
// 128 MB, interned by string id it costs its own size.
func TestNamesAreInternedByStringID(t *testing.T) {
	big := strings.Repeat("n", 64<<10)
	data := dump(t, 4, "", func(b *scene.Builder) {
		fields := make([]scene.Field, 1000)
		for i := range fields {
			fields[i] = scene.Field{Name: big, Type: hprof.TypeInt}
		}
		c := b.Class("Wide", nil, fields...)
		c.Statics = []scene.Static{{Name: big, Type: hprof.TypeObject}}
		c.Dump()
		b.Root(hprof.SubRootJNIGlobal, b.Instance(c, nil))
		for range 1000 {
			k := b.Class(big, nil)
			k.Dump()
		}
	})
	var h *Heap
	got := allocated(func() { h = analyseBytes(t, data) })
	if got > 8<<20 {
		t.Errorf("the analysis of a %d-byte file allocated %d MB", len(data), got>>20)
	}
	wide, named := Node(-1), 0
	for x := range h.NumNodes() {
		switch h.ClassObjectName(Node(x)) {
		case "Wide":
			wide = Node(x)
		case big:
			named++
		}
	}
	if wide < 0 || named != 1000 {
		t.Fatalf("class objects: Wide %d, %d named by the big string", wide, named)
	}
	var statics []Field
	got = allocated(func() {
		for range 100 {
			statics = h.Fields(wide)
		}
	})
	if len(statics) != 1 || statics[0].Name != big || got > 256<<10 {
		t.Errorf("100 listings of %d statics allocated %d KB", len(statics), got>>10)
	}
}

// Issue 37 #2: a class's reference fields over its superclass chain are
// not copied into every class of the chain. 2,000 classes in one chain
// with 10 reference fields each: flattened per class they were 20 million
// offsets (80 MB); the deepest class's instance still has all 20,000 of
// its edges, in data order, and a path through its last field.
func TestLongSuperclassChain(t *testing.T) {
	const depth, perClass = 2000, 10
	var leafID, short, target uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		var c *scene.ClassDecl
		for i := range depth {
			fields := make([]scene.Field, perClass)
			for k := range fields {
				fields[k] = scene.Field{Name: "f" + string(rune('a'+k)), Type: hprof.TypeObject}
			}
			c = b.Class("C"+strings.Repeat("x", i%7)+string(rune('A'+i%26)), c, fields...)
		}
		for k := c; k != nil; k = k.Super {
			k.Dump()
		}
		target = b.Bytes([]byte{1})
		// Every field of the chain names target except the topmost class's
		// last one, which is null.
		values := make([]byte, 0, depth*perClass*4)
		for i := range depth * perClass {
			id := target
			if i == depth*perClass-1 {
				id = 0
			}
			values = append(values, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
		}
		leafID = b.ID()
		b.InstanceData(leafID, c, values)
		b.Root(hprof.SubRootJNIGlobal, leafID)
		short = b.ID()
		b.InstanceData(short, c, values[:4*100+2]) // 100 values and half of one
		b.Root(hprof.SubRootJNIGlobal, short)
	})
	var h *Heap
	got := allocated(func() { h = analyseBytes(t, data) })
	if got > 16<<20 {
		t.Errorf("a chain of %d classes (%d-byte file) allocated %d MB", depth, len(data), got>>20)
	}
	leaf := node(t, h, leafID)
	if n := len(h.Outgoing(leaf)); n != depth*perClass-1 {
		t.Errorf("%d edges, want %d", n, depth*perClass-1)
	}
	if n := len(h.Outgoing(node(t, h, short))); n != 100 {
		t.Errorf("an instance with 100 values and a half: %d edges", n)
	}
	path := h.Paths().ToRoot(node(t, h, target))
	if len(path) != 2 || path[1].Field != "fa" {
		t.Errorf("path %+v", path)
	}
	fs := h.Fields(leaf)
	if len(fs) != depth*perClass || fs[len(fs)-1].Bits != 0 || fs[len(fs)-2].Ref != node(t, h, target) {
		t.Errorf("%d fields", len(fs))
	}
}
