package heapgraph

import (
	"bytes"
	"fmt"
	"sort"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// view is a test's own reading of a Model: nodes by id, strong edges,
// roots, BFS depths. It checks the graph against the scene's answers by
// the definitions (spec/hprof-analysis.md D1–D11), independently of any
// analysis package.
type view struct {
	m     *Model
	class map[uint64]string // D3 name
	size  map[uint64]uint64
	heap  map[uint64]string
	edges map[uint64][]Edge
	depth map[uint64]int
}

func newView(t *testing.T, g *Graph) *view {
	t.Helper()
	v := &view{m: g.Model(), class: map[uint64]string{}, size: map[uint64]uint64{}, heap: map[uint64]string{},
		edges: map[uint64][]Edge{}, depth: map[uint64]int{}}
	err := g.EachNode(func(n *Node) error {
		c := v.m.Classes[n.Class]
		name := c.Name
		if c.ClassObject {
			name = "java.lang.Class" // D3 for class objects, as HPROF names them
		}
		v.class[n.ID], v.size[n.ID], v.heap[n.ID] = name, n.Shallow, n.Heap
		for _, e := range n.Edges {
			if e.To != 0 && !e.Weak {
				v.edges[n.ID] = append(v.edges[n.ID], e)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// D11: BFS from the roots (the roots have depth 1).
	var queue []uint64
	for _, r := range v.m.Roots {
		if _, ok := v.depth[r.ID]; !ok {
			v.depth[r.ID] = 1
			queue = append(queue, r.ID)
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, e := range v.edges[id] {
			if _, ok := v.class[e.To]; !ok {
				continue // names no node (D4)
			}
			if _, ok := v.depth[e.To]; !ok {
				v.depth[e.To] = v.depth[id] + 1
				queue = append(queue, e.To)
			}
		}
	}
	return v
}

// check compares the view with every answer of e that a heap graph can
// carry.
func (v *view) check(t *testing.T, e *scene.Expect) {
	t.Helper()
	if len(v.class) != e.Nodes {
		t.Errorf("nodes: %d, want %d", len(v.class), e.Nodes)
	}
	heaps := map[string]*scene.Heap{}
	classes := map[string]*scene.Class{}
	for id, name := range v.class {
		h := heaps[v.heap[id]]
		if h == nil {
			h = &scene.Heap{Name: v.heap[id]}
			heaps[h.Name] = h
		}
		h.Objects++
		h.Bytes += v.size[id]
		c := classes[name]
		if c == nil {
			c = &scene.Class{Name: name}
			classes[name] = c
		}
		c.Instances++
		c.Shallow += v.size[id]
	}
	for _, want := range e.Heaps {
		if got := heaps[want.Name]; got == nil || *got != want {
			t.Errorf("heap %s: %+v, want %+v", want.Name, got, want)
		}
	}
	if len(heaps) != len(e.Heaps) {
		t.Errorf("%d heaps, want %d", len(heaps), len(e.Heaps))
	}
	for _, want := range e.Classes {
		if got := classes[want.Name]; got == nil || *got != want {
			t.Errorf("class %s: %+v, want %+v", want.Name, got, want)
		}
	}
	if len(classes) != len(e.Classes) {
		t.Errorf("%d classes, want %d", len(classes), len(e.Classes))
	}
	for _, o := range e.Unreachable {
		if _, ok := v.depth[uint64(o.ID)]; ok {
			t.Errorf("%s %#x (%s) is reachable", o.Class, uint64(o.ID), o.Why)
		}
	}
	for _, o := range e.Depths {
		if got := v.depth[uint64(o.ID)]; got != o.Depth {
			t.Errorf("depth of %s %#x (%s): %d, want %d", o.Class, uint64(o.ID), o.Why, got, o.Depth)
		}
	}
	for _, l := range e.Leaks {
		if got := v.depth[uint64(l.ID)]; got != len(l.Path) {
			t.Errorf("leak %s: depth %d, want %d", l, got, len(l.Path))
		}
		for k := 1; k < len(l.Path); k++ {
			if !v.hasEdge(uint64(l.Path[k-1].ID), uint64(l.Path[k].ID), l.Path[k].Field) {
				t.Errorf("leak %s: no edge %#x -%s-> %#x", l, uint64(l.Path[k-1].ID), l.Path[k].Field, uint64(l.Path[k].ID))
			}
		}
	}
}

func (v *view) hasEdge(from, to uint64, field string) bool {
	for _, e := range v.edges[from] {
		if e.To == to && e.Field == field {
			return true
		}
	}
	return false
}

func readOne(t *testing.T, b []byte) *Graph {
	t.Helper()
	tr, err := Read(bytes.NewReader(b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Dumps) != 1 {
		t.Fatalf("%d dumps", len(tr.Dumps))
	}
	return tr.Dumps[0]
}

// TestSceneBothForms writes the planted scene as a heap graph in each of
// ART's encodings, in small packets (types and names arrive late, ids by
// delta, the reference base), and checks the decoded graph against the
// scene's answers.
func TestSceneBothForms(t *testing.T) {
	for _, api := range []int{30, 31, 33, 34, 35} {
		for _, packet := range []int{0, 512} {
			t.Run(fmt.Sprintf("api%d/packet%d", api, packet), func(t *testing.T) {
				opts := scene.Options{Seed: 7, API: api, Filler: []hprof.ClassCount{{Name: "com.example.mail.data.Item", Instances: 50}, {Name: "int[]", Instances: 20}}}
				b, _, e, err := Scene(opts, WriterOptions{API: api, PID: 4242, PacketBytes: packet})
				if err != nil {
					t.Fatal(err)
				}
				g := readOne(t, b)
				if g.PID != 4242 || g.Timestamp == 0 {
					t.Errorf("pid %d, ts %d", g.PID, g.Timestamp)
				}
				if packet > 0 && g.Packets < 10 {
					t.Errorf("%d packets, want many", g.Packets)
				}
				newView(t, g).check(t, e)
			})
		}
	}
}

// TestEncodingsDiffer makes sure the API levels are really written
// differently (and read alike).
func TestEncodingsDiffer(t *testing.T) {
	sizes := map[int]int{}
	var ids [][]uint64
	for _, api := range []int{30, 31, 34} {
		b, _, _, err := Scene(scene.Options{Seed: 1}, WriterOptions{API: api, PID: 1})
		if err != nil {
			t.Fatal(err)
		}
		sizes[api] = len(b)
		g := readOne(t, b)
		s := append([]uint64(nil), g.ID...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		ids = append(ids, s)
	}
	if sizes[30] == sizes[31] || sizes[31] == sizes[34] {
		t.Errorf("sizes %v: the encodings do not differ", sizes)
	}
	for i := 1; i < len(ids); i++ {
		if fmt.Sprint(ids[i]) != fmt.Sprint(ids[0]) {
			t.Errorf("encoding %d gives other objects", i)
		}
	}
}
