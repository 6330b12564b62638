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
	dense  []int32 // by id>>2; -1 for no method
	sparse indexTable
	limit  uint32 // ids with id>>2 < limit go to dense
}

func newMethodTable(methods []Method) *methodTable {
	mt := &methodTable{}
	var maxSlot uint32
	for _, m := range methods {
		if s := m.ID >> 2; s > maxSlot {
			maxSlot = s
		}
	}
	// A direct array when it is at most a few times the method count (and at
	// least big enough for the streaming case where methods come later).
	mt.limit = uint32(4*len(methods) + 4096)
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
	s := id >> 2
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
	if s := id >> 2; s < uint32(len(mt.dense)) {
		return mt.dense[s]
	}
	if id>>2 < mt.limit {
		return -1
	}
	return mt.sparse.get(uint64(id))
}
