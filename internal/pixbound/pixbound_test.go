package pixbound_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/ddmtui/ddmtui/testkit/alloccount"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/ddmtui/ddmtui/internal/pixbound"
	"github.com/ddmtui/ddmtui/testkit/hostile"
)

// The cost Inspect states is what the decoder really allocates, within a
// margin, for each format's costly cases (so the bound is one on memory,
// not on a pixel count), and the generators' pictures decode.
func TestCostMatchesDecoder(t *testing.T) {
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewRGBA(image.Rect(0, 0, 512, 512)), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		data   []byte
		format string
	}{
		{"png 16-bit RGBA", hostile.PNG(512, 512, 16, 6, false, 512), "png"},
		{"png 8-bit RGB interlaced", hostile.PNG(512, 512, 8, 2, true, 512), "png"},
		{"png 16-bit gray", hostile.PNG(512, 512, 16, 0, false, 512), "png"},
		{"jpeg progressive", hostile.ProgressiveJPEG(512, 512, true), "jpeg"},
		{"jpeg baseline", jpg.Bytes(), "jpeg"},
	} {
		in, err := pixbound.Inspect(c.data, c.format)
		if err != nil || in.Width != 512 || in.Height != 512 {
			t.Fatalf("%s: %+v %v", c.name, in, err)
		}
		var img image.Image
		got := alloccount.Bytes(func() {
			img, _, err = pixbound.Decode(context.Background(), c.data, c.format, 0)
		})
		if err != nil || img.Bounds().Dx() != 512 {
			t.Fatalf("%s: %v", c.name, err)
		}
		if float64(got) > 1.3*float64(in.Cost)+256<<10 || float64(got) < 0.4*float64(in.Cost) {
			t.Errorf("%s: cost %d bytes stated, %d allocated", c.name, in.Cost, got)
		}
		t.Logf("%s: cost %d, allocated %d", c.name, in.Cost, got)
	}
}

// Issue 37 #4 and #6: pictures whose headers claim more than the bound are
// refused before the decoder allocates anything: a 20000² PNG (1.6 GiB), an
// 8192² 16-bit PNG (512 MiB), a progressive 8192² JPEG (about 1 GiB).
func TestHostilePicturesRefusedBeforeDecoding(t *testing.T) {
	for _, c := range []struct {
		name   string
		data   []byte
		format string
	}{
		{"png 20000² RGBA", hostile.PNG(20000, 20000, 8, 6, false, 2), "png"},
		{"png 8192² 16-bit", hostile.PNG(8192, 8192, 16, 6, false, 2), "png"},
		{"jpeg progressive 8192²", hostile.ProgressiveJPEG(8192, 8192, false), "jpeg"},
		{"jpeg progressive 4096², over a 128 MiB bound only by its coefficients", hostile.ProgressiveJPEG(4096, 4096, false), "jpeg"},
	} {
		var err error
		got := alloccount.Bytes(func() { _, _, err = pixbound.Decode(context.Background(), c.data, c.format, 0) })
		if !errors.Is(err, pixbound.ErrTooLarge) {
			t.Errorf("%s: %v", c.name, err)
		}
		if got > 1<<20 {
			t.Errorf("%s: %d bytes allocated to refuse it", c.name, got)
		}
	}
}

// A decode stops at the cancel of its context.
func TestDecodeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := pixbound.Decode(ctx, hostile.PNG(256, 256, 8, 6, false, 256), "png", 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

func TestFit(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 4000, 1000))
	for x := 3980; x < 4000; x++ {
		for y := 980; y < 1000; y++ {
			img.Set(x, y, color.NRGBA{R: 255, A: 255})
		}
	}
	out := pixbound.Fit(img, 400, 400)
	if b := out.Bounds(); b.Dx() != 400 || b.Dy() != 100 {
		t.Fatal(b)
	}
	if r, _, _, _ := out.At(399, 99).RGBA(); r != 0xffff {
		t.Error("the corner pixel is not sampled")
	}
	if pixbound.Fit(img, 5000, 5000) != img {
		t.Error("a picture that fits is copied")
	}
	var b bytes.Buffer
	if err := png.Encode(&b, out); err != nil {
		t.Fatal(err)
	}
}
