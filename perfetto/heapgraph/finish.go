package heapgraph

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// MaxSuperclassDepth bounds a superclass chain (Java's are a few dozen
// deep at most), so that walking chains stays linear in the dump.
const MaxSuperclassDepth = 1000

// finish resolves what a dump could only resolve once its last packet was
// in: types by id (superclass chains checked for undefined types and
// cycles), locations, object sizes from their types, the reference field
// names of instances written without them (API 31+: the class chain's
// lists), and checks that every name an object or type uses is defined.
func (st *dumpState) finish() error {
	g := st.g
	fail := func(format string, args ...any) error {
		return fmt.Errorf("heap graph of pid %d: %s", g.PID, fmt.Sprintf(format, args...))
	}
	// Types by id; an id defined twice is an error at its second place.
	order := make([]int, len(g.Types))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return g.Types[order[a]].ID < g.Types[order[b]].ID })
	types := make([]Type, len(g.Types))
	for i, o := range order {
		types[i] = g.Types[o]
		if i > 0 && types[i].ID == types[i-1].ID {
			off := max(g.typeOff[o], g.typeOff[order[i-1]])
			return &FormatError{Offset: off, What: "heap graph type", Err: fmt.Errorf("type id %d is defined twice", types[i].ID)}
		}
	}
	g.Types, g.typeOff = types, nil
	find := func(id uint64) int32 {
		i := sort.Search(len(types), func(i int) bool { return types[i].ID >= id })
		if i < len(types) && types[i].ID == id {
			return int32(i)
		}
		return -1
	}
	for i := range types {
		t := &types[i]
		if t.SuperID != 0 {
			if t.Super = find(t.SuperID); t.Super < 0 {
				return fail("type %q (id %d) names superclass %d, which the dump does not define", t.Name, t.ID, t.SuperID)
			}
		}
		if t.locationID != 0 {
			loc, ok := st.locations[t.locationID]
			if !ok {
				return fail("type %q (id %d) names location %d, which the dump does not define", t.Name, t.ID, t.locationID)
			}
			t.Location = loc
		}
		for _, f := range t.RefFields {
			if _, ok := g.names[uint64(f)]; !ok {
				return fail("type %q (id %d) names field %d, which the dump does not define", t.Name, t.ID, f)
			}
		}
	}
	for i := range types {
		steps := 0
		for s := types[i].Super; s >= 0; s = types[s].Super {
			if steps++; steps > min(len(types), MaxSuperclassDepth) {
				return fail("the superclass chain of type %q (id %d) is a cycle or deeper than %d classes", types[i].Name, types[i].ID, MaxSuperclassDepth)
			}
		}
	}
	// The type ids become type indexes in place.
	var chain []uint32
	for i, tid := range g.Type {
		ti := find(uint64(tid))
		if ti < 0 {
			return fail("object %#x has type %d, which the dump does not define", g.ID[i], tid)
		}
		g.Type[i] = ti
		t := &types[ti]
		if g.flags[i]&flagSize == 0 {
			if t.ObjectSize > math.MaxUint32 {
				return fail("type %q (id %d) has object_size %d, out of range", t.Name, t.ID, t.ObjectSize)
			}
			g.Size[i] = uint32(t.ObjectSize)
		}
		from, to := g.RefRange(i)
		if g.flags[i]&flagFields == 0 && to > from && t.Kind.instanceKind() {
			chain = chain[:0]
			for s := ti; s >= 0; s = types[s].Super {
				chain = append(chain, types[s].RefFields...)
			}
			if len(chain) != to-from {
				return fail("object %#x of type %q has %d reference values but its class chain lists %d reference fields",
					g.ID[i], t.Name, to-from, len(chain))
			}
			copy(g.FieldOf[from:to], chain)
		}
		for _, f := range g.FieldOf[from:to] {
			if f == 0 {
				continue
			}
			if _, ok := g.names[uint64(f)]; !ok {
				return fail("object %#x names field %d, which the dump does not define", g.ID[i], f)
			}
		}
	}
	g.flags = nil
	if len(g.ID) == 0 && len(types) == 0 {
		return fail("%v", errors.New("the dump holds no object and no type"))
	}
	return nil
}
