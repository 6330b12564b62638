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
