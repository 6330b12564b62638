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

// Bitmaps is the query of bitmaps (D14).
type Bitmaps struct{ h *Heap }

// Bitmaps returns the bitmaps' query.
func (h *Heap) Bitmaps() Bitmaps { return Bitmaps{h} }

// Unavailable says why the dump cannot tell bitmaps ("" when it can):
// their sizes and pixels are primitive values.
func (q Bitmaps) Unavailable() string { return q.h.Unavailable() }

func (r *hprofFile) bitmapDumpData() (dumpData, bool) {
	h := r.h
	for i := range r.classes {
		t := &h.types[i]
		if t.name != nameBitmap || t.node < 0 || h.kinds[t.node] != subClassDump {
			continue
		}
		for _, f := range r.fields(Node(t.node)) {
			if f.Name != fieldDumpData || f.Type != "object" || f.Ref < 0 || h.kinds[f.Ref] != subInstanceDump {
				continue
			}
			dd := dumpData{buffers: -1, format: "unknown"}
			if v, t, ok := r.field(f.Ref, "", "count"); ok && t == typeInt {
				dd.count = int(int32(v))
			}
			if v, t, ok := r.field(f.Ref, "", "format"); ok && t == typeInt {
				switch int32(v) {
				case 0:
					dd.format = "jpeg"
				case 1:
					dd.format = "png"
				case 2, 3, 4:
					dd.format = "webp"
				}
			}
			if v, t, ok := r.field(f.Ref, "", "natives"); ok && isObjectType(t) {
				if arr := refNode(h, v); arr >= 0 {
					if et, data, ok := r.primitiveData(arr); ok && et == typeLong {
						dd.natives = data
					}
				}
			}
			if v, t, ok := r.field(f.Ref, "", "buffers"); ok && isObjectType(t) {
				if arr := refNode(h, v); arr >= 0 && h.kinds[arr] == subObjectArray {
					dd.buffers = arr
				}
			}
			return dd, true
		}
	}
	return dumpData{}, false
}

// isByteArray reports whether n is a byte[] node, and its length.
func (r *hprofFile) isByteArray(n Node) (int, bool) {
	if n < 0 {
		return 0, false
	}
	off := r.offs.at(int(n))
	d := r.s.d
	tag := d[off]
	if tag != subPrimitiveArray && tag != subPrimitiveNoDat {
		return 0, false
	}
	p := off + 1 + r.idSize + 4
	if d[p+4] != typeByte {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(d[p:])), true
}

// List returns the reachable bitmaps, with pixel bytes descending, then
// id; nil when the dump cannot tell them (Unavailable).
func (q Bitmaps) List() []Bitmap {
	r, ok := q.h.vals.(*hprofFile)
	if !ok {
		return nil
	}
	return r.bitmaps()
}

func (r *hprofFile) bitmaps() []Bitmap {
	h := r.h
	dd, haveDD := r.bitmapDumpData()
	var out []Bitmap
	for _, x := range instancesOf(h, subclassesOf(h, nameBitmap)) {
		b := Bitmap{Node: x, Pixels: -1}
		if v, t, ok := r.field(x, "", "mWidth"); ok && t == typeInt {
			b.Width = int(int32(v))
		}
		if v, t, ok := r.field(x, "", "mHeight"); ok && t == typeInt {
			b.Height = int(int32(v))
		}
		if v, t, ok := r.field(x, "", "mBuffer"); ok && isObjectType(t) {
			if n, ok := r.isByteArray(refNode(h, v)); ok {
				b.PixelsInDump, b.PixelBytes, b.Source, b.Format, b.Pixels = true, n, "mBuffer", "raw", refNode(h, v)
			}
		}
		if !b.PixelsInDump && haveDD {
			if ptr, t, ok := r.field(x, "", "mNativePtr"); ok && t == typeLong {
				r.matchDumpData(&b, dd, int64(ptr))
			}
		}
		out = append(out, b)
	}
	r.released()
	slices.SortFunc(out, func(a, b Bitmap) int {
		return cmp.Or(cmp.Compare(b.PixelBytes, a.PixelBytes), cmp.Compare(h.ID(a.Node), h.ID(b.Node)))
	})
	return out
}

func (r *hprofFile) matchDumpData(b *Bitmap, dd dumpData, ptr int64) {
	if dd.buffers < 0 {
		return
	}
	nb, _ := r.arrayLength(dd.buffers)
	limit := min(dd.count, len(dd.natives)/8, nb)
	for i := 0; i < limit; i++ {
		if int64(binary.BigEndian.Uint64(dd.natives[8*i:])) != ptr {
			continue
		}
		el := r.arrayElements(dd.buffers, i, 1)
		if len(el) == 1 {
			if n, ok := r.isByteArray(el[0].Ref); ok {
				b.PixelsInDump, b.PixelBytes, b.Source, b.Format, b.Pixels = true, n, "dumpData", dd.format, el[0].Ref
				return
			}
		}
	}
}

// Pixels returns the bytes of a bitmap's pixels as the dump holds them
// (raw ARGB for "raw", else an encoded image in b.Format); nil when they
// are not in the dump.
func (q Bitmaps) Pixels(b Bitmap) []byte {
	r, ok := q.h.vals.(*hprofFile)
	if !ok || !b.PixelsInDump || b.Pixels < 0 {
		return nil
	}
	_, data, _ := r.primitiveData(b.Pixels)
	return append([]byte(nil), data...) // the file's bytes are gone after Close
}
