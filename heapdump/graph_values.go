package heapdump

import (
	"fmt"
	"math"
)

// graphValues is what a heap fed through a Builder knows of its objects'
// contents: the references, each with its field's name; no primitive
// values.
type graphValues struct {
	h          *Heap
	refOff     []uint32
	refTgt     []int32           // node, -1 null, -2 an id that names no object
	lost       map[uint32]uint64 // the ids of the references that name no object
	nameOff    []int32           // per object, into names; nil or -1: from its type
	names      []int32
	fieldNames []fieldName
	chain      [][]chainField // per type: its reference fields, then its superclasses'
}

// chainField is a reference field of an instance, as its type chain
// declares it.
type chainField struct {
	decl   int32 // the declaring type
	name   string
	strong bool
}

func newGraphValues(h *Heap, b *Builder) *graphValues {
	g := &graphValues{h: h, refOff: b.refOff, nameOff: b.nameOff, names: b.names, fieldNames: b.fields}
	g.chain = make([][]chainField, len(b.types))
	for i := range b.types {
		var c []chainField
		for t, steps := int32(i), 0; t >= 0 && steps <= len(b.types); t, steps = h.types[t].super, steps+1 {
			for _, f := range b.types[t].RefFields {
				c = append(c, chainField{decl: t, name: f, strong: !isReferent(h, t, f)})
			}
		}
		g.chain[i] = c
	}
	g.refTgt = make([]int32, len(b.refs))
	for k, id := range b.refs {
		switch {
		case id == 0:
			g.refTgt[k] = -1
		default:
			g.refTgt[k] = h.index.lookup(id)
			if g.refTgt[k] < 0 {
				g.refTgt[k] = -2
				if g.lost == nil {
					g.lost = map[uint32]uint64{}
				}
				g.lost[uint32(k)] = id
			}
		}
	}
	b.refs = nil
	return g
}

// ref describes reference k of node x: its field's name and declarer, and
// whether it is a strong edge (D4).
func (g *graphValues) ref(x Node, k int) (name, decl string, static, strong bool) {
	h := g.h
	kind := h.kinds[x]
	if g.nameOff != nil && g.nameOff[x] >= 0 {
		f := g.fieldNames[g.names[int(g.nameOff[x])+k]]
		decl = f.decl
		if decl == "" {
			decl = h.types[h.typ[x]].name
			if t, ok := h.classOf[int32(x)]; ok {
				decl = h.types[t].name
			}
		}
		return f.name, decl, kind == subClassDump, !(f.name == fieldReferent && decl == nameReference)
	}
	switch kind {
	case subInstanceDump:
		if c := g.chain[h.typ[x]]; k < len(c) {
			return c[k].name, h.types[c[k].decl].name, false, c[k].strong
		}
		return fmt.Sprintf("reference %d", k), "", false, true
	case subClassDump:
		return fmt.Sprintf("static %d", k), h.ClassObjectName(x), true, true
	}
	return elementName(k), "", false, true
}

// edges builds the strong edges (D4) in CSR form.
func (g *graphValues) edges() error {
	h := g.h
	h.outOff = make([]uint32, h.n+1)
	h.outTgt = make([]int32, 0, len(g.refTgt))
	for x := range h.n {
		lo, hi := g.refOff[x], g.refOff[x+1]
		for k := lo; k < hi; k++ {
			t := g.refTgt[k]
			if t < 0 {
				continue
			}
			if _, _, _, strong := g.ref(Node(x), int(k-lo)); strong {
				h.outTgt = append(h.outTgt, t)
			}
		}
		if len(h.outTgt) >= math.MaxInt32 {
			return fmt.Errorf("more than %d references: too large to analyse", math.MaxInt32)
		}
		h.outOff[x+1] = uint32(len(h.outTgt))
	}
	return nil
}

// value is reference k of node x as a Field.
func (g *graphValues) value(x Node, k int) Field {
	name, decl, static, strong := g.ref(x, k)
	i := g.refOff[x] + uint32(k)
	f := Field{Name: name, Type: "object", Declarer: decl, Static: static, Ref: -1, Strong: strong}
	switch t := g.refTgt[i]; {
	case t >= 0:
		f.Ref, f.Bits = Node(t), g.h.ID(Node(t))
	case t == -2:
		f.Bits = g.lost[i]
	}
	return f
}

func (g *graphValues) count(x Node) int { return int(g.refOff[x+1] - g.refOff[x]) }

func (g *graphValues) fields(n Node) []Field {
	if k := g.h.kinds[n]; k != subInstanceDump && k != subClassDump {
		return nil
	}
	out := make([]Field, g.count(n))
	for k := range out {
		out[k] = g.value(n, k)
	}
	return out
}

func (g *graphValues) field(n Node, decl, name string) (uint64, byte, bool) {
	if g.h.kinds[n] != subInstanceDump {
		return 0, 0, false
	}
	for k := range g.count(n) {
		if fname, fdecl, _, _ := g.ref(n, k); fname == name && (decl == "" || fdecl == decl) {
			return g.value(n, k).Bits, typeObject, true
		}
	}
	return 0, 0, false
}

// arrayLength knows object arrays only (a primitive array's length is
// not in a heap graph).
func (g *graphValues) arrayLength(n Node) (int, bool) {
	if g.h.kinds[n] != subObjectArray {
		return 0, false
	}
	return g.count(n), true
}

func (g *graphValues) arrayElements(n Node, from, max int) []Field {
	count, ok := g.arrayLength(n)
	if !ok || from < 0 || from >= count {
		return nil
	}
	end := min(count, from+max)
	out := make([]Field, 0, end-from)
	for k := from; k < end; k++ {
		out = append(out, g.value(n, k))
	}
	return out
}

func (g *graphValues) elementIndexes(a Node, want map[uint64]int32) {
	if g.h.kinds[a] != subObjectArray {
		return
	}
	lo, hi := g.refOff[a], g.refOff[a+1]
	left := len(want)
	for k := lo; k < hi && left > 0; k++ {
		if t := g.refTgt[k]; t >= 0 {
			if at, ok := want[g.h.ID(Node(t))]; ok && at < 0 {
				want[g.h.ID(Node(t))] = int32(k - lo)
				left--
			}
		}
	}
}

func (g *graphValues) refName(a, b Node) string {
	lo, hi := g.refOff[a], g.refOff[a+1]
	for k := lo; k < hi; k++ {
		if g.refTgt[k] != int32(b) {
			continue
		}
		if name, _, _, strong := g.ref(a, int(k-lo)); strong {
			return name
		}
	}
	return ""
}

func (g *graphValues) unavailable() string {
	return "the dump holds references only, no primitive values (field values, strings' text, array elements, pixels)"
}

func (g *graphValues) renameFields(byType func(decl int32, name string) string, byName func(decl, name string) string) {
	for i, c := range g.chain {
		for k := range c {
			g.chain[i][k].name = byType(c[k].decl, c[k].name)
		}
	}
	for i, f := range g.fieldNames {
		if f.decl != "" {
			g.fieldNames[i].name = byName(f.decl, f.name)
		}
	}
}

func (g *graphValues) renameClasses(fn func(string) string) {
	for i, f := range g.fieldNames {
		if f.decl != "" {
			g.fieldNames[i].decl = fn(f.decl)
		}
	}
}

func (g *graphValues) released()    {}
func (g *graphValues) close() error { return nil }
