package heapdump

import "math/bits"

// radixSort sorts keys ascending, moving vals with them; the sort is stable,
// so of equal keys the one first in the input stays first. It returns the
// sorted slices, which may be the inputs or the scratch buffers.
func radixSort(keys []uint64, vals []int32) ([]uint64, []int32) {
	n := len(keys)
	sorted := true
	for i := 1; i < n; i++ {
		if keys[i] < keys[i-1] {
			sorted = false
			break
		}
	}
	if sorted {
		return keys, vals
	}
	k2 := make([]uint64, n)
	v2 := make([]int32, n)
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, k := range keys {
			count[byte(k>>shift)]++
		}
		if count[byte(keys[0]>>shift)] == n {
			continue // every key has the same byte here
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for i, k := range keys {
			b := byte(k >> shift)
			j := count[b]
			count[b]++
			k2[j] = k
			v2[j] = vals[i]
		}
		keys, k2 = k2, keys
		vals, v2 = v2, vals
	}
	return keys, vals
}

// idIndex finds the node of an object id: the ids sorted (as offsets from
// the smallest, 32 bits each when they fit), and a table of buckets over
// the id range so that a lookup is a binary search over the few ids of one
// bucket.
type idIndex struct {
	rel   []uint32 // ids - min, sorted, unique; nil when the span needs 64 bits
	ids   []uint64 // the ids themselves when rel is nil
	node  []int32  // node of the i-th id; nil when node i has the i-th id
	n     int
	min   uint64
	shift uint
	start []int32 // bucket b holds ids [start[b], start[b+1])
}

// idsPerBucket trades the bucket table's size for the binary search's.
const idsPerBucket = 8

func newIDIndex(ids []uint64, node []int32) *idIndex {
	x := &idIndex{node: node, n: len(ids)}
	n := len(ids)
	if n == 0 {
		return x
	}
	x.min = ids[0]
	span := ids[n-1] - ids[0]
	if span < 1<<32 {
		x.rel = make([]uint32, n)
		for i, id := range ids {
			x.rel[i] = uint32(id - x.min)
		}
	} else {
		x.ids = ids
	}
	nb := 1 << max(bits.Len(uint(n/idsPerBucket))-1, 0)
	for x.shift = 0; span>>x.shift >= uint64(nb); x.shift++ {
	}
	buckets := int(span>>x.shift) + 1
	x.start = make([]int32, buckets+1)
	b := 0
	for i, id := range ids {
		for bi := int((id - x.min) >> x.shift); b <= bi; b++ {
			x.start[b] = int32(i)
		}
	}
	for ; b <= buckets; b++ {
		x.start[b] = int32(n)
	}
	return x
}

// at returns the i-th id in sorted order.
func (x *idIndex) at(i int) uint64 {
	if x.rel != nil {
		return x.min + uint64(x.rel[i])
	}
	return x.ids[i]
}

// lookup returns the node with this id, or -1.
func (x *idIndex) lookup(id uint64) int32 {
	if id < x.min || x.n == 0 {
		return -1
	}
	d := id - x.min
	b := d >> x.shift
	if b >= uint64(len(x.start)-1) {
		return -1
	}
	lo, hi := int(x.start[b]), int(x.start[b+1])
	end := hi
	if x.rel != nil {
		r := uint32(d)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if x.rel[m] < r {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo >= end || x.rel[lo] != r {
			return -1
		}
	} else {
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if x.ids[m] < id {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo >= end || x.ids[lo] != id {
			return -1
		}
	}
	if x.node != nil {
		return x.node[lo]
	}
	return int32(lo)
}

// sortStrings sorts pass 1's strings by id (the first of equal ids first).
func sortStrings(s *scan) {
	perm := make([]int32, len(s.strIDs))
	for i := range perm {
		perm[i] = int32(i)
	}
	keys, perm := radixSort(s.strIDs, perm)
	offs := make([]int64, len(perm))
	lens := make([]uint32, len(perm))
	for i, p := range perm {
		offs[i], lens[i] = s.strOffs[p], s.strLens[p]
	}
	s.strIDs, s.strOffs, s.strLens = keys, offs, lens
}

// str returns the text of string id, or "" and false.
func (s *scan) str(id uint64) (string, bool) {
	lo, hi := 0, len(s.strIDs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.strIDs[m] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.strIDs) && s.strIDs[lo] == id {
		o := s.strOffs[lo]
		return string(s.d[o : o+int64(s.strLens[lo])]), true
	}
	return "", false
}

// setIndex makes the id index from the ids sorted (unique) and the node of
// each (pos; nil when the i-th id is node i).
func setIndex(h *Heap, keys []uint64, pos []int32) {
	identity := true
	for i, p := range pos {
		if p != int32(i) {
			identity = false
			break
		}
	}
	if identity {
		pos = nil
	}
	if pos != nil {
		h.sortedPos = make([]int32, len(pos))
		for i, p := range pos {
			h.sortedPos[p] = int32(i)
		}
	}
	h.index = newIDIndex(keys, pos)
}

// offsets holds file offsets compactly: 32 bits each below 4 GiB.
type offsets struct {
	small []uint32
	big   []int64
}

func newOffsets(fileSize, capacity int) offsets {
	if uint64(fileSize) <= 1<<32 {
		return offsets{small: make([]uint32, 0, capacity)}
	}
	return offsets{big: make([]int64, 0, capacity)}
}

func (o *offsets) add(off int) {
	if o.big == nil && uint64(off) < 1<<32 {
		o.small = append(o.small, uint32(off))
		return
	}
	if o.big == nil { // past 4 GiB: widen
		o.big = make([]int64, len(o.small), len(o.small)+1)
		for i, v := range o.small {
			o.big[i] = int64(v)
		}
		o.small = nil
	}
	o.big = append(o.big, int64(off))
}

func (o *offsets) at(i int) int {
	if o.big != nil {
		return int(o.big[i])
	}
	return int(o.small[i])
}

func (o *offsets) len() int {
	if o.big != nil {
		return len(o.big)
	}
	return len(o.small)
}
