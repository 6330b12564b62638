package heap

import (
	"sort"

	"github.com/ddmtui/ddmtui/ddm"
)

// Cell is what one display cell of the bitmap shows: the state that covers
// most of its units (used memory wins ties over free), and how many of its
// units are used.
type Cell struct {
	State     ddm.State // dominant state
	UsedState ddm.State // dominant state among the used (non-free) units; free when none
	Used      uint32    // used units in the cell
	Units     uint32    // units the cell covers (the last cell may be short)
}

// Cells resamples units [first, first+n*per) into n cells of per units each
// and returns them in dst (reused when large enough). Only the runs that
// overlap the window are visited, so drawing a screenful of a huge heap costs
// the visible part only.
func (s *Snapshot) Cells(dst []Cell, first uint64, per uint64, n int) []Cell {
	if per == 0 {
		per = 1
	}
	if cap(dst) < n {
		dst = make([]Cell, n)
	}
	dst = dst[:n]
	clear(dst)
	end := first + per*uint64(n)
	if end > s.Stats.TotalUnits {
		end = s.Stats.TotalUnits
	}
	if first >= end {
		return dst[:0]
	}
	var counts [n8]uint64 // per state, within the current cell
	var touched [n8]ddm.State
	nt := 0
	cell := 0
	flush := func() {
		best, bestN := ddm.StateFree, uint64(0)
		bestUsed, bestUsedN := ddm.StateFree, uint64(0)
		var used uint64
		for i := 0; i < nt; i++ {
			st := touched[i]
			c := counts[stateIndex(st)]
			if st.Solidity() != ddm.SolidityFree {
				used += c
				if c > bestUsedN {
					bestUsed, bestUsedN = st, c
				}
			}
			if c > bestN || (c == bestN && best.Solidity() == ddm.SolidityFree) {
				best, bestN = st, c
			}
			counts[stateIndex(st)] = 0
		}
		nt = 0
		dst[cell].State = best
		dst[cell].UsedState = bestUsed
		dst[cell].Used = uint32(used)
	}
	// Find the first segment that overlaps.
	si := sort.Search(len(s.Segments), func(i int) bool {
		return s.unitStart[i]+uint64(s.Segments[i].Units) > first
	})
	pos := first
	for ; si < len(s.Segments) && pos < end; si++ {
		seg := &s.Segments[si]
		off := s.unitStart[si]
		for r := range seg.Runs {
			rs, re := off, off+uint64(r.Units)
			off = re
			if re <= pos {
				continue
			}
			if rs < pos {
				rs = pos
			}
			for rs < re && rs < end {
				cellEnd := first + per*uint64(cell+1)
				take := min(re, cellEnd, end) - rs
				idx := stateIndex(r.State)
				if counts[idx] == 0 {
					touched[nt] = r.State &^ ddm.StatePartial
					nt++
				}
				counts[idx] += take
				dst[cell].Units += uint32(take)
				rs += take
				pos = rs
				if rs == cellEnd {
					flush()
					cell++
				}
			}
			if pos >= end {
				break
			}
		}
	}
	if cell < n && dst[cell].Units > 0 {
		flush()
		cell++
	}
	return dst[:cell]
}

// n8 is the number of distinct states without the partial bit.
const n8 = 128

func stateIndex(s ddm.State) int { return int(s & 0x7f) }
