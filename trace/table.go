package trace

// indexTable maps uint64 keys to non-negative int32 values with open
// addressing and linear probing. It is the one hash table of the hot path:
// method ids to method indexes, methods to per-thread slots, and caller/callee
// pairs to edges. It grows by doubling at half load, so its size follows the
// number of distinct keys actually seen.
type indexTable struct {
	slots []indexSlot
	used  int
	shift uint // 64 - log2(len(slots))
}

type indexSlot struct {
	key uint64
	val int32 // -1: empty
}

const fibonacciHash = 0x9E3779B97F4A7C15

func (t *indexTable) init(size int) {
	t.slots = make([]indexSlot, size)
	for i := range t.slots {
		t.slots[i].val = -1
	}
	t.used = 0
	shift := uint(64)
	for s := size; s > 1; s >>= 1 {
		shift--
	}
	t.shift = shift
}

// get returns the value for key, or -1.
func (t *indexTable) get(key uint64) int32 {
	if len(t.slots) == 0 {
		return -1
	}
	mask := len(t.slots) - 1
	i := int((key * fibonacciHash) >> t.shift)
	for {
		s := &t.slots[i]
		if s.val < 0 {
			return -1
		}
		if s.key == key {
			return s.val
		}
		i = (i + 1) & mask
	}
}

// getOrPut returns the value stored for key; when there is none it stores
// val and returns it with added true.
func (t *indexTable) getOrPut(key uint64, val int32) (v int32, added bool) {
	if len(t.slots) == 0 {
		t.init(16)
	}
	mask := len(t.slots) - 1
	i := int((key * fibonacciHash) >> t.shift)
	for {
		s := &t.slots[i]
		if s.val < 0 {
			break
		}
		if s.key == key {
			return s.val, false
		}
		i = (i + 1) & mask
	}
	if 2*(t.used+1) > len(t.slots) {
		t.grow()
		return t.getOrPut(key, val)
	}
	t.slots[i] = indexSlot{key: key, val: val}
	t.used++
	return val, true
}

func (t *indexTable) grow() {
	old := t.slots
	t.init(2 * len(old))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s.val < 0 {
			continue
		}
		i := int((s.key * fibonacciHash) >> t.shift)
		for t.slots[i].val >= 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
		t.used++
	}
}

// methodTable resolves the method ids of records (action bits cleared) to
// indexes in Header.Methods. ART ids are index<<2 and fit a direct array;
// Dalvik ids are Method* pointers and go to the hash table.
type methodTable struct {
	dense  []int32 // by (id-base)>>2; -1 for no method
	sparse indexTable
	limit  uint32 // ids with (id-base)>>2 < limit go to dense
	// base is the lowest key id when the key's ids are pointers packed in
	// a range a few times the method count (as ART's and Dalvik's method
	// structures are), so that they too index a direct array; else 0.
	base uint32
}

// maxDenseMethodSlots bounds the direct array (16 MiB of int32).
const maxDenseMethodSlots = 1 << 22

func newMethodTable(methods []Method) *methodTable {
	mt := &methodTable{}
	var maxSlot uint32
	minID := ^uint32(0)
	for _, m := range methods {
		minID = min(minID, m.ID&^3)
	}
	// A direct array when it is at most a few tens of times the method
	// count: ART's ids are index<<2; Dalvik's and many tools' are pointers
	// to method structures a few tens of bytes apart, which with base
	// subtracted fit too. The streaming case gets room for later methods.
	mt.limit = uint32(min(32*len(methods)+4096, maxDenseMethodSlots))
	if len(methods) > 0 && minID>>2 >= mt.limit {
		mt.base = minID
	}
	for _, m := range methods {
		if s := (m.ID - mt.base) >> 2; s > maxSlot {
			maxSlot = s
		}
	}
	if maxSlot < mt.limit && len(methods) > 0 {
		mt.dense = make([]int32, maxSlot+1)
		for i := range mt.dense {
			mt.dense[i] = -1
		}
	}
	return mt
}

// add registers index i for id; it reports false when id was already known
// (the first method with an id wins).
func (mt *methodTable) add(id uint32, i int32) bool {
	s := (id - mt.base) >> 2
	if s < mt.limit {
		if int(s) >= len(mt.dense) {
			n := max(int(s)+1, 2*len(mt.dense))
			n = min(n, int(mt.limit))
			grown := make([]int32, n)
			copy(grown, mt.dense)
			for j := len(mt.dense); j < n; j++ {
				grown[j] = -1
			}
			mt.dense = grown
		}
		if mt.dense[s] >= 0 {
			return false
		}
		mt.dense[s] = i
		return true
	}
	_, added := mt.sparse.getOrPut(uint64(id), i)
	return added
}

// lookup returns the method index for id (action bits clear), or -1.
func (mt *methodTable) lookup(id uint32) int32 {
	s := (id - mt.base) >> 2
	if s < uint32(len(mt.dense)) {
		return mt.dense[s]
	}
	if s < mt.limit {
		return -1
	}
	return mt.sparse.get(uint64(id))
}

// pagedPage is the size of every page of a paged slice after the first.
const pagedPage = 512

// paged is an append-only sequence kept in pages: growing it never copies
// or leaves garbage behind (a slice that doubles leaves three times its
// final size to the collector), which keeps a large profile's peak memory
// near its live size. The first page doubles up to pagedPage, so short
// sequences stay small.
type paged[T any] struct {
	pages [][]T
	n     int
}

func (p *paged[T]) len() int { return p.n }

// at returns the element at i < len.
func (p *paged[T]) at(i int32) *T {
	if int(i) < len(p.pages[0]) {
		return &p.pages[0][i]
	}
	j := int(i) - pagedPage
	return &p.pages[1+j/pagedPage][j%pagedPage]
}

// pageOf returns the page holding element i < len and i's place in it.
func (p *paged[T]) pageOf(i int32) ([]T, int) {
	if int(i) < len(p.pages[0]) {
		return p.pages[0], int(i)
	}
	j := int(i) - pagedPage
	return p.pages[1+j/pagedPage], j % pagedPage
}

// add appends v and returns its index.
func (p *paged[T]) add(v T) int32 {
	i := p.n
	switch {
	case len(p.pages) == 0:
		p.pages = append(p.pages, make([]T, 0, 8))
	case len(p.pages) == 1 && len(p.pages[0]) == cap(p.pages[0]) && cap(p.pages[0]) < pagedPage:
		first := make([]T, len(p.pages[0]), min(2*cap(p.pages[0]), pagedPage))
		copy(first, p.pages[0])
		p.pages[0] = first
	case len(p.pages[len(p.pages)-1]) == cap(p.pages[len(p.pages)-1]):
		p.pages = append(p.pages, make([]T, 0, pagedPage))
	}
	last := &p.pages[len(p.pages)-1]
	*last = append(*last, v)
	p.n++
	return int32(i)
}

// all calls yield for every element in order.
func (p *paged[T]) all(yield func(*T) bool) {
	for _, pg := range p.pages {
		for i := range pg {
			if !yield(&pg[i]) {
				return
			}
		}
	}
}
