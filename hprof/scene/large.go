package scene

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/ddmtui/ddmtui/hprof"
)

// LargeOptions size the dump Large writes.
type LargeOptions struct {
	Objects int    // about this many objects (nodes)
	Seed    uint64 // the same seed gives the same file
}

// Large writes a large Android-like heap dump for benchmarks (no planted
// answers: Filler embeds a scene in a heap of any size, but its objects
// hold nothing, where these form the graph a real app's do): a few
// thousand framework classes in the zygote heap, image and zygote objects
// each under a ROOT VM INTERNAL record as ART writes them, then the app
// heap: strings with their byte[] values, instances of app classes with
// object and primitive fields, HashMap-like nodes, Object[] arrays,
// primitive arrays, long linked lists, a few Activities (some leaked) and
// bitmaps. About 80 bytes of file per object, like real dumps. References
// mostly go to nearby objects, some anywhere; a few percent is garbage.
func Large(w io.Writer, o LargeOptions) error {
	b, err := NewBuilder(w, 4, "")
	if err != nil {
		return err
	}
	b.SegmentObjects = 1 << 14
	r := rand.New(rand.NewPCG(o.Seed, 0xa11))
	obj, i32 := hprof.TypeObject, hprof.TypeInt
	object := b.Class("java.lang.Object", nil)
	str := b.Class("java.lang.String", object, F("count", i32), F("hash", i32), F("value", obj))
	str.InstanceSize = 16
	objArr := b.Class("java.lang.Object[]", object)
	activity := b.Class("android.app.Activity", object, F("mDestroyed", hprof.TypeBoolean), F("mFinished", hprof.TypeBoolean), F("mWindow", obj))
	mapNode := b.Class("java.util.HashMap$Node", object, F("hash", i32), F("key", obj), F("value", obj), F("next", obj))
	linked := b.Class("java.util.LinkedList$Node", object, F("item", obj), F("next", obj), F("prev", obj))
	bitmap := b.Class("android.graphics.Bitmap", object, F("mWidth", i32), F("mHeight", i32), F("mBuffer", obj), F("mNativePtr", hprof.TypeLong))
	blob := b.Class("com.example.app.Blob", object, F("mData", obj), F("mNext", obj))
	var framework []*ClassDecl
	for i := range 2000 {
		c := b.Class(fmt.Sprintf("android.framework.pkg%d.Class%d", i%40, i), object)
		c.Statics = []Static{{"$classOverhead", obj, 0}, {"sCount", i32, uint64(i)}}
		framework = append(framework, c)
	}
	var app []*ClassDecl
	for i := range 300 {
		var fields []Field
		for f := range 1 + i%6 {
			t := obj
			if f%3 == 2 {
				t = i32
			}
			fields = append(fields, F(fmt.Sprintf("m%c%d", 'A'+f, f), t))
		}
		app = append(app, b.Class(fmt.Sprintf("com.example.app.feature%d.Type%d", i%25, i), object, fields...))
	}
	main := b.Class("com.example.app.MainActivity", activity, F("mAdapter", obj))
	main.InstanceSize = 240

	// Object ids: object k is base + 8k; classes came first.
	n := max(o.Objects, 1000)
	base := b.next + 8
	b.next += uint64(n+16) * 8
	id := func(k int) uint64 { return base + 8*uint64(k) }
	near := func(k int) uint64 {
		switch x := r.IntN(10); {
		case x < 2:
			return 0
		case x < 8:
			return id(min(n-1, max(0, k+r.IntN(129)-64)))
		}
		return id(r.IntN(n))
	}
	zygoteEnd, imageEnd := n/5, n/10
	b.HeapInfo(hprof.HeapImage, "image")
	for _, c := range framework[:500] {
		c.Dump()
	}
	for _, c := range []*ClassDecl{object, str, objArr, activity, mapNode, linked, bitmap} {
		c.Dump()
	}
	b.HeapInfo(hprof.HeapZygote, "zygote")
	for _, c := range framework[500:] {
		c.Dump()
	}
	b.HeapInfo(hprof.HeapImage, "image")
	data := make([]byte, 0, 64)
	ref := func(v uint64) { data = binary.BigEndian.AppendUint32(data, uint32(v)) }
	hashNode := func(k int) { // hash, key, value, next
		data = data[:0]
		ref(uint64(r.Uint32()))
		ref(near(k))
		ref(near(k))
		ref(near(k))
		b.InstanceData(id(k), mapNode, data)
	}
	heap := 0
	for k := 0; k < n; {
		if heap == 0 && k >= imageEnd {
			b.HeapInfo(hprof.HeapZygote, "zygote")
			heap = 1
		}
		if heap == 1 && k >= zygoteEnd {
			b.HeapInfo(hprof.HeapApp, "app")
			for _, c := range app {
				c.Dump()
			}
			main.Dump()
			blob.Dump()
			heap = 2
		}
		start := k
		x := r.IntN(100)
		if x == 98 && r.IntN(40) != 0 {
			x = 97 // linked list runs are rare: they are long; a primitive array instead
		}
		switch {
		case x < 22 && k+1 < n: // a String and its Latin-1 value
			length := 4 + r.IntN(28)
			if r.IntN(4) == 0 {
				length = 8 // short, often duplicated
			}
			data = data[:0]
			ref(uint64(length))
			ref(uint64(r.Uint32()))
			ref(id(k + 1))
			b.InstanceData(id(k), str, data)
			v := make([]byte, length)
			for i := range v {
				v[i] = 'a' + byte(r.IntN(3))
			}
			b.PrimitiveArrayWithID(id(k+1), hprof.TypeByte, length, v)
			k += 2
		case x < 55: // an app object
			c := app[r.IntN(len(app))]
			data = data[:0]
			for _, f := range c.Fields {
				if f.Type == obj {
					ref(near(k))
				} else {
					ref(uint64(r.Uint32()))
				}
			}
			b.InstanceData(id(k), c, data)
			k++
		case x < 65: // a hash map node
			hashNode(k)
			k++
		case x < 72: // an Object[]
			el := make([]uint64, r.IntN(13))
			for i := range el {
				el[i] = near(k)
			}
			b.ObjectArrayWithID(id(k), objArr, el...)
			k++
		case x < 98 && k+1 < n: // a primitive array and the object that owns it
			data = data[:0]
			ref(id(k + 1))
			ref(near(k))
			b.InstanceData(id(k), blob, data)
			k++
			t, size := hprof.TypeByte, 1
			switch r.IntN(3) {
			case 1:
				t, size = hprof.TypeInt, 4
			case 2:
				t, size = hprof.TypeLong, 8
			}
			count := r.IntN(600) / size
			b.PrimitiveArrayWithID(id(k), t, count, make([]byte, count*size))
			k++
		case x < 99: // a linked list run
			run := min(n-k, 100+r.IntN(800))
			for i := range run {
				data = data[:0]
				ref(near(k + i))
				if i+1 < run {
					ref(id(k + i + 1))
				} else {
					ref(0)
				}
				if i > 0 {
					ref(id(k + i - 1))
				} else {
					ref(0)
				}
				b.InstanceData(id(k+i), linked, data)
			}
			k += run
		default: // now and then an Activity (one in three destroyed) or a bitmap, else a map node
			switch y := r.IntN(250); {
			case y == 0:
				data = data[:0]
				data = append(data, 0)
				if r.IntN(3) == 0 {
					data[0] = 1
				}
				data = append(data, 0)
				ref(near(k))
				ref(near(k))
				b.InstanceData(id(k), main, data)
			case y < 25:
				data = data[:0]
				ref(64)
				ref(64)
				ref(0)
				data = binary.BigEndian.AppendUint64(data, r.Uint64())
				b.InstanceData(id(k), bitmap, data)
			default:
				hashNode(k)
			}
			k++
		}
		for i := start; i < k; i++ {
			switch {
			case heap < 2: // every image and zygote object (a group may run past zygoteEnd)
				b.Root(hprof.SubRootVMInternal, id(i))
			case r.IntN(4) == 0:
				b.Root(hprof.SubRootJNIGlobal, id(i))
			}
		}
	}
	return b.Close()
}
