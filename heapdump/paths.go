package heapdump

import "slices"

// PathStep is one element of a path from a GC root (D11): the node, and
// the field of the previous element that holds it (empty for the first).
// Omitted counts the elements of the path left out just before this one
// (see MaxPathSteps); Field names the hop from the element before it on
// the whole path.
type PathStep struct {
	Node    Node
	Field   string
	Omitted int
}

// MaxPathSteps bounds the elements a path lists, as the call tree JSON
// bounds its depth: a longer path keeps its first and its last
// MaxPathSteps/2 elements, and the element after the gap says how many
// are left out. A depth (Depth, the JSON's "depth") is always the whole
// path's.
const MaxPathSteps = 256

// Paths is the query of shortest strong paths from the GC roots (D11).
type Paths struct{ h *Heap }

// Paths returns the paths' query.
func (h *Heap) Paths() Paths { return Paths{h} }

// Depth returns the number of nodes on a shortest strong path from the
// super-root to n (1 for a root node or class object), 0 when unreachable.
func (p Paths) Depth(n Node) int {
	par := p.h.pathParents()
	if par[n] == -2 {
		return 0
	}
	d := 0
	for x := int32(n); x >= 0; x = par[x] {
		d++
	}
	return d
}

// ToRoot returns a shortest strong path from a root node or class object
// to n, root first, cut to MaxPathSteps elements; nil when n is
// unreachable.
func (p Paths) ToRoot(n Node) []PathStep {
	return p.toRoots([]Node{n})[0]
}

// chain returns the nodes of n's shortest path, root first, and which of
// them a path lists (all, or the two ends of a long one).
func (p Paths) chain(n Node) (nodes []int32, listed func(i int) bool) {
	par := p.h.pathParents()
	for x := int32(n); x >= 0; x = par[x] {
		nodes = append(nodes, x)
	}
	slices.Reverse(nodes)
	head, tail := len(nodes), 0
	if len(nodes) > MaxPathSteps {
		head, tail = MaxPathSteps/2, MaxPathSteps-MaxPathSteps/2
	}
	return nodes, func(i int) bool { return i < head || i >= len(nodes)-tail }
}

// toRoots returns the paths of several nodes (nil for an unreachable
// one). The hops out of object arrays are named by one pass over each
// array for all the paths through it, not one each.
func (p Paths) toRoots(ns []Node) [][]PathStep {
	h := p.h
	out := make([][]PathStep, len(ns))
	type hop struct{ path, step int }
	arrayHops := map[int32][]hop{}
	par := h.pathParents()
	for k, n := range ns {
		if par[n] == -2 {
			continue
		}
		nodes, listed := p.chain(n)
		var steps []PathStep
		skipped := 0
		for i, x := range nodes {
			if !listed(i) {
				skipped++
				continue
			}
			st := PathStep{Node: Node(x), Omitted: skipped}
			skipped = 0
			if i > 0 {
				a := nodes[i-1]
				if h.kinds[a] == subObjectArray {
					arrayHops[a] = append(arrayHops[a], hop{k, len(steps)})
				} else {
					st.Field = h.vals.refName(Node(a), Node(x))
				}
			}
			steps = append(steps, st)
		}
		out[k] = steps
	}
	for a, hops := range arrayHops {
		want := make(map[uint64]int32, len(hops))
		for _, hp := range hops {
			want[h.ID(out[hp.path][hp.step].Node)] = -1
		}
		h.vals.elementIndexes(Node(a), want)
		for _, hp := range hops {
			if i := want[h.ID(out[hp.path][hp.step].Node)]; i >= 0 {
				out[hp.path][hp.step].Field = elementName(int(i))
			}
		}
	}
	return out
}

// RefName names what in a holds b (a strong edge a -> b): an instance field
// name, a static field name, or "[i]" for an array element; "" when a does
// not hold b.
func (p Paths) RefName(a, b Node) string { return p.h.vals.refName(a, b) }

// JSON renders a path for the JSON.
func (p Paths) JSON(path []PathStep) []StepJSON {
	h := p.h
	out := make([]StepJSON, len(path))
	for i, s := range path {
		out[i] = StepJSON{Class: h.ClassName(s.Node), ID: HexID(h.ID(s.Node)), Of: h.ClassObjectName(s.Node), OmittedBefore: s.Omitted}
		if i > 0 {
			f := s.Field
			out[i].Field = &f
		} else {
			out[i].Root = h.RootKind(s.Node)
		}
	}
	return out
}

// Of answers `hprof path` for object ids; an id that names no object is
// an error.
func (p Paths) Of(ids []uint64) (*PathsJSON, error) {
	out := &PathsJSON{Paths: []PathJSON{}}
	for _, id := range ids {
		n, ok := p.h.Lookup(id)
		if !ok {
			return nil, &NoObjectError{ID: id}
		}
		path := p.ToRoot(n)
		out.Paths = append(out.Paths, PathJSON{ID: HexID(id), Reachable: path != nil, Depth: p.Depth(n), Path: p.JSON(path)})
	}
	return out, nil
}

// NoObjectError is returned for an id that names no object of the dump.
type NoObjectError struct{ ID uint64 }

func (e *NoObjectError) Error() string { return "no object " + HexID(e.ID) + " in the dump" }
