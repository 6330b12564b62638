package heapdump

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// model is a random object graph as the test knows it: each object's
// class, shallow size and strong edges, and the roots.
type model struct {
	ids     []uint64
	class   []int // index into names
	shallow []uint64
	edges   [][]int
	isRoot  []bool
	names   []string
}

// randomModel writes a random dump and returns what it holds. Objects are
// instances of classes C0..C2 (fields f0..f2 and, for C2, a subclass of
// java.lang.ref.Reference whose referent is not an edge), object arrays,
// and the class objects themselves, with static fields.
func randomModel(t *testing.T, seed uint64, n int, idSize int) (model, []byte) {
	r := rand.New(rand.NewPCG(seed, 7))
	m := model{}
	data := dump(t, idSize, "", func(b *scene.Builder) {
		ref := b.Class("java.lang.ref.Reference", nil, scene.F("referent", hprof.TypeObject), scene.F("queue", hprof.TypeObject))
		weak := b.Class("java.lang.ref.WeakReference", ref)
		c0 := b.Class("com.example.C0", nil, scene.F("f0", hprof.TypeObject), scene.F("x", hprof.TypeInt))
		c1 := b.Class("com.example.C1", c0, scene.F("f1", hprof.TypeObject), scene.F("referent", hprof.TypeObject))
		arr := b.Class("java.lang.Object[]", nil)
		c1.InstanceSize = 100
		classes := []*scene.ClassDecl{ref, weak, c0, c1, arr}
		m.names = []string{"java.lang.Class", "java.lang.ref.WeakReference", "com.example.C0", "com.example.C1", "java.lang.Object[]"}
		// Object ids first, so edges can point anywhere.
		kinds := make([]int, n)
		for i := range n {
			m.ids = append(m.ids, b.ID())
			kinds[i] = 1 + r.IntN(4)
		}
		pick := func() uint64 {
			if r.IntN(6) == 0 {
				return 0
			}
			if r.IntN(15) == 0 {
				return 0xdead0000 // names no object
			}
			return m.ids[r.IntN(n)]
		}
		idx := map[uint64]int{}
		for i, id := range m.ids {
			idx[id] = i
		}
		m.edges = make([][]int, n)
		addEdge := func(i int, id uint64) {
			if j, ok := idx[id]; ok {
				m.edges[i] = append(m.edges[i], j)
			}
		}
		m.isRoot = make([]bool, n)
		for i, id := range m.ids {
			m.class = append(m.class, kinds[i])
			switch kinds[i] {
			case 1: // WeakReference: referent no edge, queue an edge
				referent, queue := pick(), pick()
				b.InstanceWithID(id, weak, scene.V{"referent": referent, "queue": queue})
				addEdge(i, queue)
				m.shallow = append(m.shallow, uint64(2*idSize))
			case 2:
				f0 := pick()
				b.InstanceWithID(id, c0, scene.V{"f0": f0, "x": 7})
				addEdge(i, f0)
				m.shallow = append(m.shallow, uint64(idSize+4))
			case 3:
				f1, rf, f0 := pick(), pick(), pick()
				b.InstanceWithID(id, c1, scene.V{"f1": f1, "referent": rf, "f0": f0})
				addEdge(i, f1)
				addEdge(i, rf)
				addEdge(i, f0)
				m.shallow = append(m.shallow, 100)
			case 4:
				k := r.IntN(4)
				var el []uint64
				for range k {
					el = append(el, pick())
				}
				b.ObjectArrayWithID(id, arr, el...)
				for _, e := range el {
					addEdge(i, e)
				}
				m.shallow = append(m.shallow, uint64(k*idSize))
			}
			if r.IntN(12) == 0 {
				m.isRoot[i] = true
				b.Root(hprof.SubRootJNIGlobal, id)
			}
		}
		// Class objects: nodes, roots, with statics.
		for _, c := range classes {
			st := pick()
			c.Statics = []scene.Static{{Name: "sField", Type: hprof.TypeObject, Value: st}, {Name: "sCount", Type: hprof.TypeLong, Value: 3}}
			i := len(m.ids)
			m.ids = append(m.ids, c.ID)
			idx[c.ID] = i
			m.class = append(m.class, 0)
			m.shallow = append(m.shallow, uint64(idSize+8))
			m.isRoot = append(m.isRoot, true)
			m.edges = append(m.edges, nil)
			addEdge(i, st)
		}
	})
	return m, data
}

func (m model) reach(removed int) []bool {
	seen := make([]bool, len(m.ids))
	var stack []int
	for i, r := range m.isRoot {
		if r && i != removed {
			seen[i] = true
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range m.edges[v] {
			if w != removed && !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
	return seen
}

func (m model) depths() []int {
	d := make([]int, len(m.ids))
	var q []int
	for i, r := range m.isRoot {
		if r {
			d[i] = 1
			q = append(q, i)
		}
	}
	for k := 0; k < len(q); k++ {
		v := q[k]
		for _, w := range m.edges[v] {
			if d[w] == 0 {
				d[w] = d[v] + 1
				q = append(q, w)
			}
		}
	}
	return d
}

// Retained sizes, reachability, depths, immediate dominators and the
// histogram's retained sizes agree with a brute-force computation on many
// small random graphs (D6–D11).
func TestRetainedBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		for _, idSize := range []int{4, 8} {
			n := 5 + int(seed%25)
			if seed%7 == 0 {
				n += 150 // deeper trees, more cross edges
			}
			m, data := randomModel(t, seed, n, idSize)
			t.Run(fmt.Sprintf("seed%d-id%d", seed, idSize), func(t *testing.T) {
				checkModel(t, m, data)
			})
		}
	}
}

func checkModel(t *testing.T, m model, data []byte) {
	h := analyseBytes(t, data)
	all := m.reach(-1)
	depth := m.depths()
	strictDoms := make([][]int, len(m.ids)) // d strictly dominates v
	retained := make([]uint64, len(m.ids))
	for v := range m.ids {
		if !all[v] {
			continue
		}
		without := m.reach(v)
		retained[v] = m.shallow[v]
		for w := range m.ids {
			if w != v && all[w] && !without[w] {
				retained[v] += m.shallow[w]
				strictDoms[w] = append(strictDoms[w], v)
			}
		}
	}
	nameRet := map[string]uint64{}
	for v := range m.ids {
		x := node(t, h, m.ids[v])
		if h.Reachable(x) != all[v] {
			t.Fatalf("%#x reachable %v, want %v", m.ids[v], h.Reachable(x), all[v])
		}
		if got := h.Shallow(x); got != m.shallow[v] {
			t.Fatalf("%#x shallow %d, want %d", m.ids[v], got, m.shallow[v])
		}
		if h.ClassName(x) != m.names[m.class[v]] {
			t.Fatalf("%#x class %q, want %q", m.ids[v], h.ClassName(x), m.names[m.class[v]])
		}
		if !all[v] {
			if h.Retained(x) != 0 || h.Paths().Depth(x) != 0 || h.Paths().ToRoot(x) != nil {
				t.Fatalf("unreachable %#x has retained %d depth %d", m.ids[v], h.Retained(x), h.Paths().Depth(x))
			}
			continue
		}
		if got := h.Retained(x); got != retained[v] {
			t.Fatalf("%#x retained %d, want %d", m.ids[v], got, retained[v])
		}
		if got := h.Paths().Depth(x); got != depth[v] {
			t.Fatalf("%#x depth %d, want %d", m.ids[v], got, depth[v])
		}
		checkPath(t, h, x, depth[v])
		// The immediate dominator is the strict dominator that all the
		// others dominate: the one with the most strict dominators.
		d, _ := h.Dominator(x)
		if len(strictDoms[v]) == 0 {
			if d != SuperRoot {
				t.Fatalf("%#x idom %d, want the super-root", m.ids[v], d)
			}
		} else {
			best := slices.MaxFunc(strictDoms[v], func(a, b int) int { return len(strictDoms[a]) - len(strictDoms[b]) })
			if d == SuperRoot || h.ID(d) != m.ids[best] {
				t.Fatalf("%#x idom %v, want %#x", m.ids[v], d, m.ids[best])
			}
		}
		same := false
		for _, sd := range strictDoms[v] {
			if m.class[sd] == m.class[v] {
				same = true
			}
		}
		if !same {
			nameRet[m.names[m.class[v]]] += retained[v]
		}
	}
	for _, r := range h.Histogram() {
		if r.Retained != nameRet[r.Name] {
			t.Fatalf("class %s retained %d, want %d", r.Name, r.Retained, nameRet[r.Name])
		}
	}
}

// checkPath validates a path as D11 does: it starts at a root, every hop
// is a strong edge named by the field RefName gives, and its length is the
// depth.
func checkPath(t *testing.T, h *Heap, x Node, depth int) {
	t.Helper()
	p := h.Paths().ToRoot(x)
	if len(p) != depth || p[len(p)-1].Node != x || !h.IsRoot(p[0].Node) || p[0].Field != "" {
		t.Fatalf("path to %#x: %+v (depth %d)", h.ID(x), p, depth)
	}
	for i := 1; i < len(p); i++ {
		name := p[i].Field
		ok := false
		if len(name) > 2 && name[0] == '[' {
			var k int
			fmt.Sscanf(name, "[%d]", &k)
			el := h.ArrayElements(p[i-1].Node, k, 1)
			ok = len(el) == 1 && el[0].Ref == p[i].Node
		} else {
			for _, f := range h.Fields(p[i-1].Node) {
				if f.Name == name && f.Strong && f.Ref == p[i].Node {
					ok = true
				}
			}
		}
		if !ok {
			t.Fatalf("path to %#x: hop %d %q is not an edge", h.ID(x), i, name)
		}
	}
}
