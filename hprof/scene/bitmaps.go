package scene

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"github.com/ddmtui/ddmtui/hprof"
)

// plantedBitmaps are the reachable bitmaps plantBitmaps made.
type plantedBitmaps struct{ hero, icon hprof.ID }

// plantBitmaps writes three bitmaps: a large "hero" one (pixels in mBuffer
// below API 26, in dumpData with -b on API 35+), an icon without pixels in
// the dump (recycled below 26; past DumpData.count on 35+) and a garbage
// one.
func (b *builder) plantBitmaps() plantedBitmaps {
	m, c, A := b.m, b.c, heapApp
	const heroW, heroH, iconW, iconH = 256, 192, 48, 48
	heroPtr, iconPtr, garbagePtr := uint64(0xb400007c0d2e4a80), uint64(0x7c0d2e9b40), uint64(0xb400007c0d2f0010)
	var heroBuf, garbageBuf hprof.ID
	mk := func(ptr uint64, w, h int, buf hprof.ID) hprof.ID {
		v := vals{"mNativePtr": ptr, "mWidth": uint64(w), "mHeight": uint64(h)}
		if b.opts.API < 26 {
			v["mBuffer"] = uint64(buf)
		}
		return m.instance(A, c["Bitmap"], v)
	}
	if b.opts.API < 26 {
		heroBuf = m.prims(A, hprof.TypeByte, b.pixels(heroW*heroH*4))
		garbageBuf = m.prims(A, hprof.TypeByte, b.pixels(16*16*4))
	}
	hero := mk(heroPtr, heroW, heroH, heroBuf)
	icon := mk(iconPtr, iconW, iconH, 0)
	garbage := mk(garbagePtr, 16, 16, garbageBuf)
	b.unreachable(garbage, "a bitmap nothing holds")
	heroBM := Bitmap{ID: hero, Width: heroW, Height: heroH}
	if b.opts.API < 26 {
		heroBM = Bitmap{ID: hero, Width: heroW, Height: heroH, PixelBytes: heroW * heroH * 4, PixelsInDump: true, Source: "mBuffer", Format: "raw"}
		b.retained(hero, "bitmap with its mBuffer", heroBuf)
	}
	if b.opts.BitmapFormat != "" {
		heroImg := b.encode(heroW/4, heroH/4)
		if b.opts.HeroPicture != nil {
			heroImg = b.opts.HeroPicture
		}
		garbageImg := b.encode(4, 4)
		iconImg := b.encode(iconW, iconH)
		bufs := []hprof.ID{m.prims(A, hprof.TypeByte, heroImg), m.prims(A, hprof.TypeByte, garbageImg), m.prims(A, hprof.TypeByte, iconImg)}
		var natives []byte
		for _, p := range []uint64{heroPtr, garbagePtr, iconPtr} {
			natives = binary.BigEndian.AppendUint64(natives, p)
		}
		format, name := uint64(1), "png"
		if b.opts.BitmapFormat == "jpg" {
			format, name = 0, "jpeg"
		}
		dd := m.instance(A, c["DumpData"], vals{"count": 2, "format": format,
			"natives": uint64(m.prims(A, hprof.TypeLong, natives)), "buffers": uint64(m.array(A, c["byte[][]"], bufs...))})
		c["Bitmap"].statics[0].val = uint64(dd)
		heroBM = Bitmap{ID: hero, Width: heroW, Height: heroH, PixelBytes: uint64(len(heroImg)), PixelsInDump: true, Source: "dumpData", Format: name}
		if name == "png" {
			b.e.PNG = heroImg
		}
	}
	b.e.Bitmaps = append(b.e.Bitmaps, heroBM, Bitmap{ID: icon, Width: iconW, Height: iconH})
	return plantedBitmaps{hero: hero, icon: icon}
}

// pixels returns n bytes of RGBA pixels: a gradient varied by the seed.
func (b *builder) pixels(n int) []byte {
	p := make([]byte, n)
	s := byte(b.opts.Seed)
	for i := range p {
		p[i] = byte(i/4) + s
		if i%4 == 3 {
			p[i] = 0xff
		}
	}
	return p
}

// encode returns a w x h image compressed as opts.BitmapFormat.
func (b *builder) encode(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	s := uint8(b.opts.Seed)
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x*255/max(1, w-1)) + s, G: uint8(y * 255 / max(1, h-1)), B: 0x80, A: 0xff})
		}
	}
	var buf bytes.Buffer
	var err error
	if b.opts.BitmapFormat == "jpg" {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80})
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		b.m.fail("encode %s: %v", b.opts.BitmapFormat, err)
	}
	return buf.Bytes()
}
