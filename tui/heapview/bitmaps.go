package heapview

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/internal/pixbound"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// bitmapRows is the bitmaps table (D14): every reachable Bitmap, those
// whose pixels the dump holds first.
type bitmapRows struct {
	m     *Model
	shown []int
}

func (r *bitmapRows) Columns() []viewer.Column {
	return []viewer.Column{
		{Title: "BITMAP", Expand: 1},
		{Title: "SIZE", Align: tview.AlignRight},
		{Title: "PIXELS"},
		{Title: "RETAINED", Align: tview.AlignRight},
	}
}

func (r *bitmapRows) Update(q viewer.Query) int {
	r.shown = r.shown[:0]
	for i, b := range r.m.bitmaps {
		if q.Filter == "" || passes(label(r.m.Heap, b.Node)+" "+pixelsText(b), q.Filter) {
			r.shown = append(r.shown, i)
		}
	}
	return len(r.shown)
}

// pixelsText says where a bitmap's pixels are.
func pixelsText(b heapdump.Bitmap) string {
	if !b.PixelsInDump {
		return "not in the dump"
	}
	return fmt.Sprintf("%s, %s in %s", b.Format, size(uint64(b.PixelBytes)), b.Source)
}

func (r *bitmapRows) Cell(i, c int) *tview.TableCell {
	b := r.m.bitmaps[r.shown[i]]
	h := r.m.Heap
	switch c {
	case 0:
		return cell(label(h, b.Node))
	case 1:
		return cell(fmt.Sprintf("%d×%d", b.Width, b.Height))
	case 2:
		return cell(pixelsText(b))
	case 3:
		return cell(size(h.Retained(b.Node)))
	}
	return nil
}

func (r *bitmapRows) Key(i int) string {
	return heapdump.HexID(r.m.Heap.ID(r.m.bitmaps[r.shown[i]].Node))
}

// selectedBitmap is the bitmap selected in the bitmaps table.
func (v *View) selectedBitmap() (heapdump.Bitmap, bool) {
	i := v.bitmaps.Selected()
	if i < 0 || i >= len(v.bitmapRows.shown) {
		return heapdump.Bitmap{}, false
	}
	return v.m.bitmaps[v.bitmapRows.shown[i]], true
}

// noPixelsWhy says why a dump does not hold a bitmap's pixels.
const noPixelsWhy = "Its pixels are not in the dump. From Android 8 (API 26) to 14 (API 34) a bitmap's " +
	"pixels live in native memory, which a heap dump leaves out; before API 26 they were in " +
	"Bitmap.mBuffer. On Android 15 (API 35) and later, a dump taken with `am dumpheap -b png` " +
	"(what ddmtui's H does there) holds them in Bitmap.dumpData — except bitmaps past " +
	"DumpData.count, or recycled ones."

// showBitmapInfo fills the bitmaps' detail pane.
func (v *View) showBitmapInfo(int) {
	d := v.bitmaps.Detail()
	b, ok := v.selectedBitmap()
	if !ok {
		d.SetText("")
		return
	}
	h := v.m.Heap
	text := style.Escape(label(h, b.Node)) + fmt.Sprintf("\n%d × %d\n\n", b.Width, b.Height)
	if b.PixelsInDump {
		text += style.Escape(fmt.Sprintf("Pixels: %s, %s, in %s (%s).", b.Format, size(uint64(b.PixelBytes)), b.Source,
			label(h, b.Pixels))) + "\n\nEnter draws it; s saves it as PNG."
	} else {
		text += style.Escape(noPixelsWhy)
	}
	d.SetText(text)
	d.SetWordWrap(true).SetWrap(true)
}

// decodeBitmap turns a bitmap's pixels in the dump into an image: raw
// mBuffer pixels as ARGB_8888 (4 bytes a pixel, R G B A in memory,
// alpha premultiplied), RGB_565 (2 bytes, little-endian) or ALPHA_8 (1
// byte), by the bytes per pixel; dumpData as PNG, JPEG or WebP. Either
// within pixbound's bound on decoded bytes (bitmapjob.go), until ctx ends.
func decodeBitmap(ctx context.Context, h *heapdump.Heap, b heapdump.Bitmap) (image.Image, error) {
	if !b.PixelsInDump {
		return nil, errors.New("the dump does not hold this bitmap's pixels")
	}
	data := h.Bitmaps().Pixels(b)
	if data == nil {
		return nil, errors.New("the pixel array is missing")
	}
	switch b.Format {
	case "raw":
		return decodeRaw(data, b.Width, b.Height)
	case "png", "jpeg", "webp":
		return decodeCompressed(ctx, data, b.Format)
	}
	return nil, fmt.Errorf("pixels in an unknown format %q", b.Format)
}

// decodeCompressed decodes dumpData's buffer, its cost checked first.
func decodeCompressed(ctx context.Context, data []byte, format string) (image.Image, error) {
	img, _, err := pixbound.Decode(ctx, data, format, 0)
	return img, err
}

// decodeRaw reads mBuffer's pixels.
func decodeRaw(data []byte, w, hgt int) (image.Image, error) {
	if w <= 0 || hgt <= 0 || pixbound.RawCost(w, hgt) > pixbound.DefaultMaxBytes {
		return nil, fmt.Errorf("raw pixels: a %d×%d bitmap cannot be drawn (%w)", w, hgt, pixbound.ErrTooLarge)
	}
	n := w * hgt
	bpp := len(data) / n
	if bpp < 1 || (bpp > 4) || bpp == 3 {
		return nil, fmt.Errorf("raw pixels: %d bytes for %d×%d is no known pixel format", len(data), w, hgt)
	}
	// Drawn on the memory budget while decoded, as pixbound.Decode does.
	release, err := pixbound.Info{Format: "raw", Width: w, Height: hgt, Cost: pixbound.RawCost(w, hgt)}.Reserve()
	if err != nil {
		return nil, err
	}
	defer release()
	img := image.NewNRGBA(image.Rect(0, 0, w, hgt))
	for i := range n {
		var c color.NRGBA
		switch bpp {
		case 4:
			c = color.NRGBA(unpremultiply(data[4*i], data[4*i+1], data[4*i+2], data[4*i+3]))
		case 2:
			v := uint16(data[2*i]) | uint16(data[2*i+1])<<8
			r, g, b := uint8(v>>11), uint8(v>>5&0x3f), uint8(v&0x1f)
			c = color.NRGBA{R: r<<3 | r>>2, G: g<<2 | g>>4, B: b<<3 | b>>2, A: 0xff}
		case 1:
			c = color.NRGBA{A: data[i]}
		}
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = c.R, c.G, c.B, c.A
	}
	return img, nil
}

// unpremultiply turns premultiplied RGBA bytes into straight alpha.
func unpremultiply(r, g, b, a uint8) color.NRGBA {
	if a == 0xff || a == 0 {
		return color.NRGBA{R: r, G: g, B: b, A: a}
	}
	un := func(c uint8) uint8 { return uint8(min(255, int(c)*255/int(a))) }
	return color.NRGBA{R: un(r), G: un(g), B: un(b), A: a}
}

// openBitmap decodes the selected bitmap in the background and draws it.
func (v *View) openBitmap() {
	b, ok := v.selectedBitmap()
	if !ok {
		return
	}
	h := v.m.Heap
	title := "Bitmap " + shortLabel(h, b.Node)
	if !b.PixelsInDump {
		v.Push(viewer.NewMessage(title, label(h, b.Node)+fmt.Sprintf(" (%d × %d).\n\n", b.Width, b.Height)+noPixelsWhy))
		return
	}
	v.bitmapWork("decoding the bitmap", func(ctx context.Context) func() {
		img, err := decodeBitmap(ctx, h, b)
		var kept *pixbound.Kept
		if err == nil {
			// Charged to the memory budget while its page is shown.
			kept, err = pixbound.Keep(img, nil, "the heap viewer's "+title)
		}
		return func() {
			if err != nil {
				v.Push(viewer.NewMessage(title, "The pixels cannot be drawn: "+err.Error()))
				return
			}
			if v.isClosed() {
				kept.Release()
				return
			}
			pic := newKeptPicture(kept, v.opt.Palette.NoColor)
			v.Push(viewer.NewCustom(pic, title, "image").SetHints("s save as PNG  Esc back  ? help"))
		}
	})
}

// saveBitmap writes the selected (or shown) bitmap as PNG beside the dump
// (or in SaveDir), through a temporary file renamed into place.
func (v *View) saveBitmap() {
	b, ok := v.selectedBitmap()
	if !ok {
		return
	}
	if !b.PixelsInDump {
		v.Notify("this bitmap's pixels are not in the dump: nothing to save")
		return
	}
	h := v.m.Heap
	dir := v.opt.SaveDir
	if dir == "" {
		dir = filepath.Dir(v.m.File)
	}
	base := strings.TrimSuffix(filepath.Base(v.m.File), filepath.Ext(v.m.File))
	target := filepath.Join(dir, fmt.Sprintf("%s-bitmap-%s.png", base, heapdump.HexID(h.ID(b.Node))))
	v.bitmapWork("saving the bitmap", func(ctx context.Context) func() {
		err := savePNG(ctx, h, b, target)
		return func() {
			if err != nil {
				v.Notify("saving the bitmap: " + err.Error())
				return
			}
			v.Notify("saved " + target)
		}
	})
}

// savePNG decodes b and writes it to target as PNG (temp file + rename);
// a PNG in dumpData is written as it is, never decoded.
func savePNG(ctx context.Context, h *heapdump.Heap, b heapdump.Bitmap, target string) error {
	img, data, err := pngOrImage(ctx, h, b)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := writePNG(ctx, f, img, data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
