package heap

import (
	"fmt"
	"math/bits"

	"github.com/ddmtui/ddmtui/ddm"
)

// SizeBucket counts the used runs whose size in bytes lies in
// [MinBytes, MaxBytes): with HPSO data each run is one object.
type SizeBucket struct {
	MinBytes, MaxBytes uint64
	Count              uint64
	Bytes              uint64
}

// Label is the bucket's range, e.g. "64B-128B".
func (b SizeBucket) Label() string {
	return sizeLabel(b.MinBytes) + "-" + sizeLabel(b.MaxBytes)
}

func sizeLabel(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// SizeHistogram buckets the used runs by size in powers of two, from the
// smallest to the largest bucket that holds any. For HPSO snapshots (object
// boundaries) that is the object-size histogram; for HPSG it counts merged
// runs. Partial continuations are already joined into one run.
func (s *Snapshot) SizeHistogram() []SizeBucket {
	var counts, sums [65]uint64
	lo, hi := 64, -1
	unit := uint64(s.UnitSize)
	if unit == 0 {
		unit = 8
	}
	for i := range s.Segments {
		for r := range s.Segments[i].Runs {
			if r.State.Solidity() == ddm.SolidityFree {
				continue
			}
			b := uint64(r.Units) * unit
			k := bits.Len64(b) - 1 // 2^k <= b < 2^(k+1)
			counts[k]++
			sums[k] += b
			lo, hi = min(lo, k), max(hi, k)
		}
	}
	var out []SizeBucket
	for k := lo; k <= hi; k++ {
		out = append(out, SizeBucket{MinBytes: 1 << k, MaxBytes: 1 << (k + 1), Count: counts[k], Bytes: sums[k]})
	}
	return out
}
