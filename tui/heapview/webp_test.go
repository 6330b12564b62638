package heapview

import (
	"context"
	"encoding/binary"
	"testing"
)

// losslessWebP builds a WebP file (VP8L, lossless) of w × h pixels all of
// one colour, bit by bit from the format's description: the VP8L header
// (signature 0x2f, 14-bit width-1 and height-1, alpha flag, version 0),
// no transform, no colour cache, no meta prefix codes, then the five
// prefix codes (green, red, blue, alpha, distance) each "simple" with one
// symbol, so every pixel takes no bits at all.
func losslessWebP(w, h int, r, g, b, a byte) []byte {
	var bits []bool
	put := func(v uint32, n int) {
		for i := range n {
			bits = append(bits, v>>i&1 == 1)
		}
	}
	put(uint32(w-1), 14)
	put(uint32(h-1), 14)
	put(1, 1) // alpha is used
	put(0, 3) // version
	put(0, 1) // no transform
	put(0, 1) // no colour cache
	put(0, 1) // no meta prefix codes
	for _, sym := range []byte{g, r, b, a, 0} {
		put(1, 1) // simple code
		put(0, 1) // one symbol
		put(1, 1) // of 8 bits
		put(uint32(sym), 8)
	}
	data := []byte{0x2f}
	for i := 0; i < len(bits); i += 8 {
		var c byte
		for j := 0; j < 8 && i+j < len(bits); j++ {
			if bits[i+j] {
				c |= 1 << j
			}
		}
		data = append(data, c)
	}
	if len(data)%2 == 1 {
		data = append(data, 0)
	}
	chunk := append([]byte("VP8L"), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
	chunk = append(chunk, data...)
	out := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(4+len(chunk)))...)
	out = append(out, "WEBP"...)
	return append(out, chunk...)
}

// dumpData may hold WebP (format 2–4): decoded with x/image/webp.
func TestDecodeWebP(t *testing.T) {
	img, err := decodeCompressed(context.Background(), losslessWebP(5, 3, 200, 100, 50, 255), "webp")
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 5 || b.Dy() != 3 {
		t.Fatalf("bounds %v", b)
	}
	if r, g, b, a := img.At(4, 2).RGBA(); r>>8 != 200 || g>>8 != 100 || b>>8 != 50 || a>>8 != 255 {
		t.Errorf("pixel %d %d %d %d, want 200 100 50 255", r>>8, g>>8, b>>8, a>>8)
	}
	if _, err := decodeCompressed(context.Background(), losslessWebP(5, 3, 1, 2, 3, 4)[:20], "webp"); err == nil {
		t.Error("a cut WebP decoded")
	}
}
