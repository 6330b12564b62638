package pixbound

import (
	"errors"
	"image"
	"testing"

	"github.com/ddmtui/ddmtui/internal/budget"
)

// A kept picture is charged to the process-wide budget while kept (its
// pixels and its encoded bytes), given back at Release, and let go — the
// cheapest thing — when a take needs room; one that cannot fit is refused.
func TestKeptPictureIsChargedAndReclaimed(t *testing.T) {
	p := budget.Process
	defer p.SetLimit(p.Limit())
	base, regs := p.Used(), p.Reclaimers()
	img := image.NewNRGBA(image.Rect(0, 0, 100, 100))
	data := make([]byte, 1000)

	k, err := Keep(img, data, "the capture of Button")
	if err != nil {
		t.Fatal(err)
	}
	if k.Held() != 41000 || p.Used() != base+41000 || p.Reclaimers() != regs+1 || k.Image() != img || len(k.Data()) != 1000 {
		t.Fatalf("held %d, budget %d (+%d)", k.Held(), p.Used(), p.Used()-base)
	}
	k.Release()
	k.Release()
	if p.Used() != base || p.Reclaimers() != regs || k.Image() != nil || k.Data() != nil {
		t.Fatalf("after Release: budget +%d, %d reclaimers", p.Used()-base, p.Reclaimers()-regs)
	}

	drops := p.Stats().Drops
	p.SetLimit(base + 50000)
	k, err = Keep(img, data, "the capture of Button")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	if !p.Take(20000) {
		t.Fatal("a take found no room although a kept picture could go")
	}
	if k.Image() != nil || k.Held() != 0 || p.Used() != base+20000 || p.Stats().Drops != drops+1 || p.LastDrop().What != "the capture of Button" {
		t.Fatalf("picture kept %v, budget +%d, last drop %+v", k.Image() != nil, p.Used()-base, p.LastDrop())
	}
	// Another picture does not push out what ranks above pictures (the
	// take of 20000 stands for a packet here): it is refused.
	if k2, err := Keep(img, data, "another"); !errors.Is(err, ErrTooLarge) || k2 != nil || p.Used() != base+20000 {
		t.Fatalf("%v; budget +%d", err, p.Used()-base)
	}
	p.Give(20000)
	if ImageBytes(image.NewYCbCr(image.Rect(0, 0, 10, 10), image.YCbCrSubsampleRatio420)) != 150 || ImageBytes(nil) != 0 {
		t.Fatal("ImageBytes")
	}
}
