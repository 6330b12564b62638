package heapdump

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// Bitmap is a reachable android.graphics.Bitmap (D14).
type Bitmap struct {
	Node         Node
	Width        int
	Height       int
	PixelsInDump bool
	PixelBytes   int
	Source       string // "mBuffer" or "dumpData"; "" without pixels
	Format       string // "raw" (mBuffer), "jpeg", "png", "webp"
	Pixels       Node   // the byte[] node holding the pixels, -1 without
}

// dumpData is Bitmap.dumpData's content (API 35+).
type dumpData struct {
	count   int
	format  string
	natives []byte // long[] elements
	buffers Node   // byte[][] node
}

func (h *Heap) bitmapDumpData() (dumpData, bool) {
	for i := range h.classes {
		c := &h.classes[i]
		if c.name != nameBitmap || c.node < 0 || h.kind(Node(c.node)) != subClassDump {
			continue
		}
		for _, f := range h.Fields(Node(c.node)) {
			if f.Name != fieldDumpData || f.Type != "object" || f.Ref < 0 || h.kind(f.Ref) != subInstanceDump {
				continue
			}
			dd := dumpData{buffers: -1, format: "unknown"}
			if v, t, ok := h.field(f.Ref, "", "count"); ok && t == typeInt {
				dd.count = int(int32(v))
			}
			if v, t, ok := h.field(f.Ref, "", "format"); ok && t == typeInt {
				switch int32(v) {
				case 0:
					dd.format = "jpeg"
				case 1:
					dd.format = "png"
				case 2, 3, 4:
					dd.format = "webp"
				}
			}
			if v, t, ok := h.field(f.Ref, "", "natives"); ok && isObjectType(t) {
				if arr := h.refNode(v); arr >= 0 {
					if et, data, ok := h.primitiveData(arr); ok && et == typeLong {
						dd.natives = data
					}
				}
			}
			if v, t, ok := h.field(f.Ref, "", "buffers"); ok && isObjectType(t) {
				if arr := h.refNode(v); arr >= 0 && h.kind(arr) == subObjectArray {
					dd.buffers = arr
				}
			}
			return dd, true
		}
	}
	return dumpData{}, false
}

// isByteArray reports whether n is a byte[] node, and its length.
func (h *Heap) isByteArray(n Node) (int, bool) {
	if n < 0 {
		return 0, false
	}
	off := h.offs.at(int(n))
	tag := h.s.d[off]
	if tag != subPrimitiveArray && tag != subPrimitiveNoDat {
		return 0, false
	}
	p := off + 1 + h.idSize + 4
	if h.s.d[p+4] != typeByte {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(h.s.d[p:])), true
}

// Bitmaps returns the reachable bitmaps, with pixel bytes descending, then
// id.
func (h *Heap) Bitmaps() []Bitmap {
	dd, haveDD := h.bitmapDumpData()
	var out []Bitmap
	for _, x := range h.instancesOf(func(ci int32) bool { return h.subclassOf(ci, nameBitmap) }) {
		b := Bitmap{Node: x, Pixels: -1}
		if v, t, ok := h.field(x, "", "mWidth"); ok && t == typeInt {
			b.Width = int(int32(v))
		}
		if v, t, ok := h.field(x, "", "mHeight"); ok && t == typeInt {
			b.Height = int(int32(v))
		}
		if v, t, ok := h.field(x, "", "mBuffer"); ok && isObjectType(t) {
			if n, ok := h.isByteArray(h.refNode(v)); ok {
				b.PixelsInDump, b.PixelBytes, b.Source, b.Format, b.Pixels = true, n, "mBuffer", "raw", h.refNode(v)
			}
		}
		if !b.PixelsInDump && haveDD {
			if ptr, t, ok := h.field(x, "", "mNativePtr"); ok && t == typeLong {
				h.matchDumpData(&b, dd, int64(ptr))
			}
		}
		out = append(out, b)
	}
	h.m.release(0, len(h.m.data))
	slices.SortFunc(out, func(a, b Bitmap) int {
		return cmp.Or(cmp.Compare(b.PixelBytes, a.PixelBytes), cmp.Compare(h.ID(a.Node), h.ID(b.Node)))
	})
	return out
}

func (h *Heap) matchDumpData(b *Bitmap, dd dumpData, ptr int64) {
	if dd.buffers < 0 {
		return
	}
	nb, _ := h.ArrayLength(dd.buffers)
	limit := min(dd.count, len(dd.natives)/8, nb)
	for i := 0; i < limit; i++ {
		if int64(binary.BigEndian.Uint64(dd.natives[8*i:])) != ptr {
			continue
		}
		el := h.ArrayElements(dd.buffers, i, 1)
		if len(el) == 1 {
			if n, ok := h.isByteArray(el[0].Ref); ok {
				b.PixelsInDump, b.PixelBytes, b.Source, b.Format, b.Pixels = true, n, "dumpData", dd.format, el[0].Ref
				return
			}
		}
	}
}

// BitmapPixels returns the bytes of a bitmap's pixels as the dump holds
// them (raw ARGB for "raw", else an encoded image in b.Format); nil when
// they are not in the dump.
func (h *Heap) BitmapPixels(b Bitmap) []byte {
	if !b.PixelsInDump || b.Pixels < 0 {
		return nil
	}
	_, data, _ := h.primitiveData(b.Pixels)
	return append([]byte(nil), data...) // the file's bytes are gone after Close
}
