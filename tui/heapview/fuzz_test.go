package heapview

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/ddmtui/ddmtui/internal/pixbound"
)

// FuzzDecodeBitmap feeds the bitmap decoders what a dump may claim: pixel
// bytes of any length for any width and height, and any bytes as a PNG,
// JPEG or WebP. They return an image within bounds or an error, never
// panic nor allocate past pixbound.DefaultMaxBytes. Seeds: testdata/fuzz/FuzzDecodeBitmap.
func FuzzDecodeBitmap(f *testing.F) {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.NRGBA{R: 9, G: 8, B: 7, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes(), 3, 2, uint8(1))
	f.Add(make([]byte, 16), 2, 2, uint8(0))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), 1, 1, uint8(3))
	f.Add(losslessWebP(4, 2, 1, 2, 3, 4), 4, 2, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, w, h int, format uint8) {
		var got image.Image
		var err error
		switch format % 4 {
		case 0:
			got, err = decodeRaw(data, w, h)
		case 1:
			got, err = decodeCompressed(context.Background(), data, "png")
		case 2:
			got, err = decodeCompressed(context.Background(), data, "jpeg")
		case 3:
			got, err = decodeCompressed(context.Background(), data, "webp")
		}
		if err != nil {
			return
		}
		b := got.Bounds()
		if b.Dx() <= 0 || b.Dy() <= 0 || int64(b.Dx()*b.Dy()) > pixbound.DefaultMaxBytes/4 {
			t.Fatalf("decoded %v", b)
		}
		if format%4 == 0 && (b.Dx() != w || b.Dy() != h) {
			t.Fatalf("raw %d×%d decoded as %v", w, h, b)
		}
		// The picture draws it at any size without going out of bounds.
		p := newPicture(got, false)
		if dw, dh := p.fit(7, 3); dw > 7 || dh > 6 || dw < 0 || dh < 0 {
			t.Fatalf("fit %d×%d", dw, dh)
		}
	})
}
