package heapdump

import (
	"fmt"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// bitmapClasses declares Bitmap and Bitmap$DumpData as the tests below use
// them; dd is the id dumpData names.
func bitmapClasses(b *scene.Builder, obj *scene.ClassDecl, dd uint64) (bitmap, ddc, arr *scene.ClassDecl) {
	bitmap = b.Class("android.graphics.Bitmap", obj, scene.F("mWidth", hprof.TypeInt), scene.F("mHeight", hprof.TypeInt),
		scene.F("mBuffer", hprof.TypeObject), scene.F("mNativePtr", hprof.TypeLong))
	bitmap.Statics = []scene.Static{{Name: "dumpData", Type: hprof.TypeObject, Value: dd}}
	ddc = b.Class("android.graphics.Bitmap$DumpData", obj, scene.F("count", hprof.TypeInt), scene.F("format", hprof.TypeInt),
		scene.F("natives", hprof.TypeObject), scene.F("buffers", hprof.TypeObject))
	arr = b.Class("byte[][]", obj)
	return
}

func bitmapsText(h *Heap) string {
	s := ""
	for _, b := range h.Bitmaps().List() {
		s += fmt.Sprintf("%#x:%d:%v:%s:%s:%v ", h.ID(b.Node), b.PixelBytes, b.PixelsInDump, b.Source, b.Format, b.Pixels >= 0)
	}
	return s
}

// Pixels at node 0 (the dump's first record), in a NODATA byte[], and a
// bitmap without pixels (Pixels -1).
func TestBitmapPixelsAtTheEdges(t *testing.T) {
	var first, nodata, none uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		pix := b.Bytes([]byte("0123456789abcdef")) // node 0
		obj := b.Class("java.lang.Object", nil)
		bitmap, _, _ := bitmapClasses(b, obj, 0)
		first = b.Instance(bitmap, scene.V{"mWidth": 2, "mHeight": 2, "mBuffer": pix})
		nodata = b.Instance(bitmap, scene.V{"mWidth": 3, "mHeight": 1, "mBuffer": b.NoDataArray(hprof.TypeByte, 12)})
		none = b.Instance(bitmap, scene.V{"mWidth": 1, "mHeight": 1})
		for _, x := range []uint64{first, nodata, none} {
			b.Root(hprof.SubRootJNIGlobal, x)
		}
	})
	h := analyseBytes(t, data)
	// Reachable: the three bitmaps, their two pixel arrays and the four
	// class objects (Object, Bitmap, DumpData, byte[][]).
	if h.ReachableCount() != 9 || h.NumNodes() != 9 {
		t.Errorf("%d of %d nodes reachable, want 9 of 9", h.ReachableCount(), h.NumNodes())
	}
	want := fmt.Sprintf("%#x:16:true:mBuffer:raw:true %#x:12:true:mBuffer:raw:true %#x:0:false:::false ", first, nodata, none)
	if got := bitmapsText(h); got != want {
		t.Errorf("bitmaps\n got %q\nwant %q", got, want)
	}
	bms := h.Bitmaps().List()
	if px := h.Bitmaps().Pixels(bms[0]); string(px) != "0123456789abcdef" {
		t.Errorf("pixels of node 0: %q", px)
	}
	if bms[2].Pixels != -1 || h.Bitmaps().Pixels(bms[2]) != nil {
		t.Errorf("no pixels: Pixels %d", bms[2].Pixels)
	}
}

// Bitmap's class as node 0, the natives long[] as node 0, and a count
// larger than the natives: only the natives present are matched.
func TestDumpDataAtTheEdges(t *testing.T) {
	t.Run("class at node 0", func(t *testing.T) {
		var bmp uint64
		data := dump(t, 4, "", func(b *scene.Builder) {
			ddID := b.ID()
			bitmap, ddc, arr := bitmapClasses(b, nil, ddID)
			bitmap.Dump() // the dump's first record: node 0
			bmp = b.Instance(bitmap, scene.V{"mWidth": 2, "mHeight": 2, "mNativePtr": 111})
			b.Root(hprof.SubRootJNIGlobal, bmp)
			bufs := b.ObjectArray(arr, b.Bytes(make([]byte, 7)))
			b.InstanceWithID(ddID, ddc, scene.V{"count": 1, "format": 1, "natives": b.Longs(111), "buffers": bufs})
		})
		h := analyseBytes(t, data)
		if got, want := bitmapsText(h), fmt.Sprintf("%#x:7:true:dumpData:png:true ", bmp); got != want {
			t.Errorf("bitmaps %q, want %q", got, want)
		}
	})
	t.Run("natives at node 0, count past them", func(t *testing.T) {
		var bmp, other uint64
		data := dump(t, 4, "", func(b *scene.Builder) {
			natives := b.Longs(111) // node 0
			obj := b.Class("java.lang.Object", nil)
			ddID := b.ID()
			bitmap, ddc, arr := bitmapClasses(b, obj, ddID)
			bmp = b.Instance(bitmap, scene.V{"mWidth": 2, "mHeight": 2, "mNativePtr": 111})
			other = b.Instance(bitmap, scene.V{"mWidth": 2, "mHeight": 2, "mNativePtr": 333})
			b.Root(hprof.SubRootJNIGlobal, bmp)
			b.Root(hprof.SubRootJNIGlobal, other)
			bufs := b.ObjectArray(arr, b.Bytes(make([]byte, 7)), b.Bytes(make([]byte, 5)), b.Bytes(make([]byte, 3)))
			b.InstanceWithID(ddID, ddc, scene.V{"count": 3, "format": 0, "natives": natives, "buffers": bufs})
		})
		h := analyseBytes(t, data)
		if got, want := bitmapsText(h), fmt.Sprintf("%#x:7:true:dumpData:jpeg:true %#x:0:false:::false ", bmp, other); got != want {
			t.Errorf("bitmaps %q, want %q", got, want)
		}
	})
}

// The DumpData instance, or its buffers array, as the dump's first record
// (node 0); and a DumpData without buffers while an object array holding
// a matching byte[] sits at node 1.
func TestDumpDataNodes(t *testing.T) {
	for _, first := range []string{"dumpData", "buffers"} {
		t.Run(first+" at node 0", func(t *testing.T) {
			var bmp uint64
			data := dump(t, 4, "", func(b *scene.Builder) {
				ddID, bufsID, pixID, nativesID := b.ID(), b.ID(), b.ID(), b.ID()
				obj := b.Class("java.lang.Object", nil)
				bitmap, ddc, arr := bitmapClasses(b, obj, ddID)
				dd := func() {
					b.InstanceWithID(ddID, ddc, scene.V{"count": 1, "format": 1, "natives": nativesID, "buffers": bufsID})
				}
				if first == "dumpData" {
					dd()
					b.ObjectArrayWithID(bufsID, arr, pixID)
				} else {
					b.ObjectArrayWithID(bufsID, arr, pixID)
					dd()
				}
				b.PrimitiveArrayWithID(pixID, hprof.TypeByte, 7, make([]byte, 7))
				b.PrimitiveArrayWithID(nativesID, hprof.TypeLong, 1, []byte{0, 0, 0, 0, 0, 0, 0, 111})
				bmp = b.Instance(bitmap, scene.V{"mWidth": 2, "mHeight": 2, "mNativePtr": 111})
				b.Root(hprof.SubRootJNIGlobal, bmp)
			})
			h := analyseBytes(t, data)
			if got, want := bitmapsText(h), fmt.Sprintf("%#x:7:true:dumpData:png:true ", bmp); got != want {
				t.Errorf("bitmaps %q, want %q", got, want)
			}
		})
	}
	t.Run("no buffers", func(t *testing.T) {
		var bmp uint64
		data := dump(t, 4, "", func(b *scene.Builder) {
			ddID, pixID := b.ID(), b.ID()
			obj := b.Class("java.lang.Object", nil)
			bitmap, ddc, arr := bitmapClasses(b, obj, ddID)
			b.Bytes(nil)                            // node 0
			b.ObjectArrayWithID(b.ID(), arr, pixID) // node 1
			b.PrimitiveArrayWithID(pixID, hprof.TypeByte, 7, make([]byte, 7))
			b.InstanceWithID(ddID, ddc, scene.V{"count": 1, "format": 1, "natives": b.Longs(111)})
			bmp = b.Instance(bitmap, scene.V{"mWidth": 2, "mHeight": 2, "mNativePtr": 111})
			b.Root(hprof.SubRootJNIGlobal, bmp)
		})
		h := analyseBytes(t, data)
		if got, want := bitmapsText(h), fmt.Sprintf("%#x:0:false:::false ", bmp); got != want {
			t.Errorf("bitmaps %q, want %q", got, want)
		}
	})
}

// An instance whose data is shorter than its class's reference field
// (no edge read past it), a first instance of class id 0 with no CLASS
// DUMP (its size is its data's), and objects before the first HEAP DUMP INFO
// (the default heap).
func TestBuildEdges(t *testing.T) {
	var short, orphan, before, after uint64
	data := dump(t, 4, "", func(b *scene.Builder) {
		obj := b.Class("java.lang.Object", nil)
		a := b.Class("A", obj, scene.F("p", hprof.TypeObject))
		z := b.Class("Z", nil)
		z.ID = 0 // its instance names class id 0, which has no LOAD CLASS or CLASS DUMP
		z.Skip()
		orphan = b.ID()
		b.InstanceData(orphan, z, []byte{1, 2, 3}) // the first instance
		before = b.Instance(obj, nil)
		b.HeapInfo(1, "app")
		after = b.Instance(obj, nil)
		short = b.ID()
		b.InstanceData(short, a, []byte{0, 0})
		for _, x := range []uint64{before, after, short, orphan} {
			b.Root(hprof.SubRootJNIGlobal, x)
		}
	})
	h := analyseBytes(t, data)
	if n := node(t, h, short); h.Shallow(n) != 4 || h.ClassName(n) != "A" {
		t.Errorf("short instance: %s shallow %d", h.ClassName(n), h.Shallow(n))
	}
	// Its field is past its data: not listed, not found.
	if n := node(t, h, short); len(h.Fields(n)) != 0 {
		t.Errorf("fields of the short instance: %+v", h.Fields(n))
	} else if _, _, ok := h.vals.field(n, "", "p"); ok {
		t.Error("a field past the data was read")
	}
	if n := node(t, h, orphan); h.Shallow(n) != 3 || h.ClassName(n) == "A" || h.ClassName(n) == "java.lang.Object" {
		t.Errorf("class id 0: %s shallow %d", h.ClassName(n), h.Shallow(n))
	}
	if b, a := h.HeapName(node(t, h, before)), h.HeapName(node(t, h, after)); b != "default" || a != "app" {
		t.Errorf("heaps %q before the first HEAP DUMP INFO, %q after", b, a)
	}
}

// A heap whose shallow sizes add up to exactly 4 GiB takes the 64-bit
// retained sizes: an object array (of a class without CLASS DUMP, so no
// class object) holding every other node retains all 1<<32 bytes.
func TestRetainedAtFourGiB(t *testing.T) {
	build := func(count uint32) (*Heap, uint64) {
		var holder uint64
		data := dump(t, 4, "", func(b *scene.Builder) {
			hc := b.Class("Holder[]", nil)
			hc.Skip()
			holder = b.ObjectArray(hc, b.NoDataArray(hprof.TypeByte, int(count)), b.Bytes([]byte{1}))
			b.Root(hprof.SubRootJNIGlobal, holder)
		})
		return analyseBytes(t, data), holder
	}
	sum := func(h *Heap) (total uint64) {
		for x := range h.NumNodes() {
			total += h.Shallow(Node(x))
		}
		return total
	}
	h, _ := build(1)
	h, holder := build(uint32(1<<32 - (sum(h) - 1)))
	if sum(h) != 1<<32 || h.NumNodes() != 3 {
		t.Fatalf("%d nodes, total %d, want 3 and 1<<32", h.NumNodes(), sum(h))
	}
	if got := h.Retained(node(t, h, holder)); got != 1<<32 {
		t.Errorf("holder retains %d, want 1<<32", got)
	}
}
