package pixbound

import (
	"fmt"
	"image"
	"sync"

	"github.com/ddmtui/ddmtui/internal/budget"
)

// Kept is a decoded picture a viewer keeps for drawing, with the encoded
// bytes it came from (saved on demand), charged to the process-wide budget
// while kept. It is a reclaimer of rank budget.RankPicture, the cheapest:
// when the budget must make room it lets both go (Image returns nil; the
// viewer says so, and decodes again when asked). Release gives the bytes
// back. A nil Kept keeps nothing. Safe for concurrent use.
type Kept struct {
	mu   sync.Mutex
	img  image.Image
	data []byte
	held int64
	what string
	stop func()
}

// Keep charges img (the bytes of its pixels) and data to the process-wide
// budget and keeps them; what names the picture in the budget's drop note
// ("the capture of …"). A picture that does not fit, even after cheaper
// things made room, is refused with ErrTooLarge.
func Keep(img image.Image, data []byte, what string) (*Kept, error) {
	n := ImageBytes(img) + int64(len(data))
	if !budget.Process.TakeBefore(n, budget.RankPicture+1) {
		return nil, fmt.Errorf("%s: %d MiB to keep, more than the memory budget has left (%s): %w",
			what, (n+(1<<20)-1)>>20, budget.Process, ErrTooLarge)
	}
	k := &Kept{img: img, data: data, held: n, what: what}
	k.stop = budget.Process.Reclaimer(budget.RankPicture, k.reclaim)
	return k, nil
}

// ImageBytes is the bytes img's pixels hold (4 a pixel for a kind not
// known here).
func ImageBytes(img image.Image) int64 {
	switch m := img.(type) {
	case nil:
		return 0
	case *image.NRGBA:
		return int64(len(m.Pix))
	case *image.RGBA:
		return int64(len(m.Pix))
	case *image.NRGBA64:
		return int64(len(m.Pix))
	case *image.RGBA64:
		return int64(len(m.Pix))
	case *image.Gray:
		return int64(len(m.Pix))
	case *image.Gray16:
		return int64(len(m.Pix))
	case *image.CMYK:
		return int64(len(m.Pix))
	case *image.Paletted:
		return int64(len(m.Pix) + 4*len(m.Palette))
	case *image.YCbCr:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr))
	case *image.NYCbCrA:
		return int64(len(m.Y) + len(m.Cb) + len(m.Cr) + len(m.A))
	}
	b := img.Bounds()
	return 4 * int64(b.Dx()) * int64(b.Dy())
}

// Image is the picture, or nil once released or let go to make room.
func (k *Kept) Image() image.Image {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.img
}

// Data is the encoded bytes, or nil once released or let go.
func (k *Kept) Data() []byte {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.data
}

// Held is the bytes charged now.
func (k *Kept) Held() int64 {
	if k == nil {
		return 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.held
}

// Release lets the picture go and gives its bytes back (once).
func (k *Kept) Release() {
	if k == nil {
		return
	}
	k.stop()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dropLocked()
}

func (k *Kept) dropLocked() int64 {
	n := k.held
	budget.Process.Give(n)
	k.img, k.data, k.held = nil, nil, 0
	return n
}

// reclaim lets the picture go for the budget (budget.Reclaim).
func (k *Kept) reclaim(int64) (int64, string) {
	if !k.mu.TryLock() {
		return 0, ""
	}
	defer k.mu.Unlock()
	return k.dropLocked(), k.what
}
