package heapview

import (
	"context"
	"image"
	"image/png"
	"io"
	"sync"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/internal/pixbound"
)

// The bound and the cancel of a bitmap's decode or save (issue 37 #4): a
// 0.5 MB dump's dumpData may hold an 8192² 16-bit PNG (512 MiB decoded,
// 1.5 GiB to save) or a progressive JPEG (1 GiB), so the decoded bytes are
// checked per format from the header (pixbound) before decoding, raw
// pixels by their NRGBA image's size, and C, q or closing the viewer end a
// decode or save under way at its next read.

// bitmapJob is the cancel of the bitmap decode or save asked for last.
type bitmapJob struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	gen    int
}

// stop cancels the job under way, reporting whether there was one.
func (j *bitmapJob) stop() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cancel == nil {
		return false
	}
	j.cancel()
	j.cancel = nil
	return true
}

// start makes the job's context; end(gen) forgets it when it is still
// the current one.
func (j *bitmapJob) start() (context.Context, context.CancelFunc, int) {
	ctx, cancel := context.WithCancel(context.Background())
	j.mu.Lock()
	defer j.mu.Unlock()
	j.gen++
	j.cancel = cancel
	return ctx, cancel, j.gen
}

func (j *bitmapJob) end(gen int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.gen == gen {
		j.cancel = nil
	}
}

// bitmapWork runs work as the viewer's background job, with a context that
// C (cancelBitmap), Close and the end of the run end, from the moment it is
// asked for (a C pressed before the job starts counts).
func (v *View) bitmapWork(label string, work func(ctx context.Context) func()) {
	jctx, cancel, gen := v.bitmapJob.start()
	started := v.Work(label, func(ctx context.Context, _ func(string)) func() {
		defer context.AfterFunc(ctx, cancel)()
		defer v.bitmapJob.end(gen)
		defer cancel()
		apply := work(jctx)
		if jctx.Err() != nil {
			return func() { v.Notify(label + ": cancelled") }
		}
		return apply
	})
	if !started {
		v.bitmapJob.end(gen)
		cancel()
	}
}

// cancelBitmap is C: the bitmap being decoded or saved is let go.
func (v *View) cancelBitmap() {
	if !v.bitmapJob.stop() {
		v.Notify("no bitmap is being decoded or saved")
	}
}

// pngOrImage is what a save writes: dumpData's PNG bytes as they are
// (checked to be a PNG within the bound), or the bitmap decoded.
func pngOrImage(ctx context.Context, h *heapdump.Heap, b heapdump.Bitmap) (image.Image, []byte, error) {
	if b.PixelsInDump && b.Format == "png" {
		if data := h.Bitmaps().Pixels(b); data != nil {
			in, err := pixbound.Inspect(data, "png")
			if err == nil {
				err = in.Check(0)
			}
			return nil, data, err
		}
	}
	img, err := decodeBitmap(ctx, h, b)
	return img, nil, err
}

// writePNG writes data as it is, or img encoded, until ctx ends.
func writePNG(ctx context.Context, w io.Writer, img image.Image, data []byte) error {
	cw := ctxWriter{ctx: ctx, w: w}
	if data != nil {
		for len(data) > 0 {
			n := min(len(data), 64<<10)
			if _, err := cw.Write(data[:n]); err != nil {
				return err
			}
			data = data[n:]
		}
		return nil
	}
	return png.Encode(cw, img)
}

// ctxWriter ends a save's writes with ctx.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
