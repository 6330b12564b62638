// Package pixbound decodes pictures that a peer or a file sent (a view's
// capture, a Bitmap's pixels in a heap dump) within a bound on the bytes the
// decoder will allocate, checked from the header before anything is
// decoded. A picture is a claim: 1.5 MB of PNG may say 20000×20000 pixels
// (1.6 GiB decoded), a 0.5 MB dump an 8192² 16-bit PNG (512 MiB) or a
// progressive JPEG whose decoder keeps every DCT coefficient (about 1 GiB).
//
// The cost is counted per format, as the standard decoders allocate:
//
//   - PNG: 8 bytes a pixel at 16 bits a sample (RGBA64, NRGBA64; 2 for gray
//     without transparency), 1 for a palette, else 4 (gray with a tRNS
//     chunk becomes NRGBA); an interlaced PNG decodes each pass into an
//     image of its own before merging them: twice that.
//   - JPEG: 1 byte a pixel for gray, 3 for YCbCr (4:4:4 at most), 8 for CMYK
//     (its YCbCr and K planes, then the CMYK image); a progressive JPEG
//     adds its coefficients, 4 bytes a pixel per component.
//   - WebP: 8 bytes a pixel (a lossless picture's ARGB words and the NRGBA
//     image; a lossy one takes less).
//   - raw pixels (a Bitmap's mBuffer): the 4-byte NRGBA image they become.
//
// A decode also draws its cost from the process-wide budget
// (internal/budget) while it runs. Standard library, golang.org/x/image and
// internal/budget only, so monitor, the CLI and the viewers may use it.
package pixbound

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"

	"github.com/ddmtui/ddmtui/internal/budget"
)

// DefaultMaxBytes is the decoded bytes a picture may cost by default: a
// 4096×4096 ARGB bitmap (64 MiB) or a 12-megapixel progressive JPEG fit;
// the hostile pictures of issue 37 (512 MiB–1.6 GiB) do not.
const DefaultMaxBytes = 128 << 20

// ErrTooLarge is wrapped by the error for a picture whose decoding would
// pass the bound.
var ErrTooLarge = errors.New("the picture would pass the memory bound to decode")

// Info is what the header says of a picture.
type Info struct {
	Format        string // "png", "jpeg", "webp", "raw"
	Width, Height int
	// Cost is the bytes the decoder allocates for it (see the package
	// comment).
	Cost int64
}

// Inspect reads data's header (image.DecodeConfig and the few header bytes
// that set the decoder's cost) without decoding any pixel.
func Inspect(data []byte, format string) (Info, error) {
	in := Info{Format: format}
	var cfg image.Config
	var err error
	var bpp float64
	switch format {
	case "png":
		if cfg, err = png.DecodeConfig(bytes.NewReader(data)); err != nil {
			return in, fmt.Errorf("png: %w", err)
		}
		bpp = pngBytesPerPixel(data)
	case "jpeg":
		if cfg, err = jpeg.DecodeConfig(bytes.NewReader(data)); err != nil {
			return in, fmt.Errorf("jpeg: %w", err)
		}
		comps := 3.0
		switch cfg.ColorModel {
		case color.GrayModel:
			bpp, comps = 1, 1
		case color.CMYKModel:
			bpp, comps = 8, 4
		default:
			bpp = 3
		}
		if jpegProgressive(data) {
			bpp += 4 * comps
		}
	case "webp":
		if cfg, err = webp.DecodeConfig(bytes.NewReader(data)); err != nil {
			return in, fmt.Errorf("webp: %w", err)
		}
		bpp = 8
	default:
		return in, fmt.Errorf("pixels in an unknown format %q", format)
	}
	in.Width, in.Height = cfg.Width, cfg.Height
	in.Cost = cost(cfg.Width, cfg.Height, bpp)
	return in, nil
}

// RawCost is the bytes decoding w×h raw pixels costs (the NRGBA image).
func RawCost(w, h int) int64 { return cost(w, h, 4) }

func cost(w, h int, bpp float64) int64 {
	if w <= 0 || h <= 0 {
		return 0
	}
	return int64(float64(w) * float64(h) * bpp)
}

// Check refuses a picture whose cost passes max (≤ 0: DefaultMaxBytes),
// or that has no pixel.
func (in Info) Check(max int64) error {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if in.Width <= 0 || in.Height <= 0 {
		return fmt.Errorf("%s: %d×%d pixels: nothing to draw", in.Format, in.Width, in.Height)
	}
	if in.Cost > max {
		return fmt.Errorf("%s: %d×%d pixels need %d MiB to decode, over the bound of %d MiB: %w",
			in.Format, in.Width, in.Height, (in.Cost+(1<<20)-1)>>20, max>>20, ErrTooLarge)
	}
	return nil
}

// Reserve takes the picture's cost from the process-wide budget for its
// decoding (a decoder of its own, such as raw pixels', calls it before it
// allocates); release gives it back. A cost that does not fit, even once
// cheaper things made room, is refused with ErrTooLarge.
func (in Info) Reserve() (release func(), err error) {
	if !budget.Process.Take(in.Cost) {
		return nil, fmt.Errorf("%s: %d×%d pixels need %d MiB to decode, more than the memory budget has left (%s): %w",
			in.Format, in.Width, in.Height, (in.Cost+(1<<20)-1)>>20, budget.Process, ErrTooLarge)
	}
	return func() { budget.Process.Give(in.Cost) }, nil
}

// Decode decodes data (format "png", "jpeg" or "webp") if its header says
// it costs at most max bytes (≤ 0: DefaultMaxBytes). The decoder reads
// through ctx: when ctx ends (the user cancelled, the viewer closed) it
// stops at its next read with ctx's error.
func Decode(ctx context.Context, data []byte, format string, max int64) (image.Image, Info, error) {
	in, err := Inspect(data, format)
	if err != nil {
		return nil, in, err
	}
	if err := in.Check(max); err != nil {
		return nil, in, err
	}
	// The decode draws on the process-wide budget while it runs.
	release, err := in.Reserve()
	if err != nil {
		return nil, in, err
	}
	defer release()
	r := &ctxReader{ctx: ctx, r: bytes.NewReader(data)}
	var img image.Image
	switch format {
	case "png":
		img, err = png.Decode(r)
	case "jpeg":
		img, err = jpeg.Decode(r)
	case "webp":
		img, err = webp.Decode(r)
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, in, cerr
	}
	if err != nil {
		return nil, in, fmt.Errorf("%s: %w", format, err)
	}
	return img, in, nil
}

// ctxReader ends reading with ctx.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	// Small reads, so that a cancel is seen within a few KiB of input.
	return c.r.Read(p[:min(len(p), 16<<10)])
}

// pngBytesPerPixel reads IHDR (DecodeConfig has checked it is there):
// bit depth at byte 24, colour type at 25, interlace at 28.
func pngBytesPerPixel(data []byte) float64 {
	if len(data) < 29 {
		return 8
	}
	depth, ctype, interlaced := data[24], data[25], data[28] != 0
	var bpp float64
	switch {
	case ctype == 3:
		bpp = 1
	case depth == 16:
		bpp = 8
	default:
		bpp = 4
	}
	if ctype == 0 && depth == 16 && !hasChunk(data, "tRNS") {
		bpp = 2
	}
	if interlaced {
		bpp *= 2
	}
	return bpp
}

// hasChunk reports whether a PNG has a chunk of type typ before IDAT.
func hasChunk(data []byte, typ string) bool {
	for off := 8; off+8 <= len(data); {
		n := int64(binary.BigEndian.Uint32(data[off:]))
		t := string(data[off+4 : off+8])
		if t == typ {
			return true
		}
		if t == "IDAT" || n > int64(len(data)) {
			return false
		}
		off += 12 + int(n)
	}
	return false
}

// jpegProgressive walks the markers to the first SOFn: SOF2 (and the
// arithmetic SOF6, SOF10, SOF14) are progressive.
func jpegProgressive(data []byte) bool {
	off := 2 // SOI
	for off+4 <= len(data) {
		if data[off] != 0xff {
			return false
		}
		m := data[off+1]
		switch {
		case m == 0xff: // fill byte
			off++
			continue
		case m == 0xd8 || (m >= 0xd0 && m <= 0xd7) || m == 0x01:
			off += 2
			continue
		case m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc:
			return m == 0xc2 || m == 0xc6 || m == 0xca || m == 0xce
		}
		off += 2 + int(binary.BigEndian.Uint16(data[off+2:]))
	}
	return false
}

// Fit returns img, or a copy of it scaled down (nearest pixel) to at most
// w×h pixels keeping its aspect, so that what a pane keeps to draw is the
// size it can show, not the size the peer sent.
func Fit(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	iw, ih := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 || (iw <= w && ih <= h) {
		return img
	}
	scale := min(float64(w)/float64(iw), float64(h)/float64(ih))
	ow, oh := max(1, int(float64(iw)*scale)), max(1, int(float64(ih)*scale))
	out := image.NewNRGBA(image.Rect(0, 0, ow, oh))
	for y := range oh {
		sy := b.Min.Y + min(ih-1, int((float64(y)+0.5)/scale))
		for x := range ow {
			sx := b.Min.X + min(iw-1, int((float64(x)+0.5)/scale))
			out.Set(x, y, img.At(sx, sy))
		}
	}
	return out
}
