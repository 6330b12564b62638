package heapdump

import "slices"

// PathStep is one element of a path from a GC root (D11): the node, and
// the field of the previous element that holds it (empty for the first).
type PathStep struct {
	Node  Node
	Field string
}

// Paths is the query of shortest strong paths from the GC roots (D11).
type Paths struct{ h *Heap }

// Paths returns the paths' query.
func (h *Heap) Paths() Paths { return Paths{h} }

// Depth returns the number of nodes on a shortest strong path from the
// super-root to n (1 for a root node or class object), 0 when unreachable.
func (p Paths) Depth(n Node) int {
	par := p.h.bfsParent
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
// to n, root first; nil when n is unreachable.
func (p Paths) ToRoot(n Node) []PathStep {
	par := p.h.bfsParent
	if par[n] == -2 {
		return nil
	}
	var nodes []int32
	for x := int32(n); x >= 0; x = par[x] {
		nodes = append(nodes, x)
	}
	slices.Reverse(nodes)
	out := make([]PathStep, len(nodes))
	for i, x := range nodes {
		out[i].Node = Node(x)
		if i > 0 {
			out[i].Field = p.RefName(Node(nodes[i-1]), Node(x))
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
		out[i] = StepJSON{Class: h.ClassName(s.Node), ID: HexID(h.ID(s.Node)), Of: h.ClassObjectName(s.Node)}
		if i > 0 {
			f := s.Field
			out[i].Field = &f
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
		out.Paths = append(out.Paths, PathJSON{ID: HexID(id), Reachable: path != nil, Path: p.JSON(path)})
	}
	return out, nil
}

// NoObjectError is returned for an id that names no object of the dump.
type NoObjectError struct{ ID uint64 }

func (e *NoObjectError) Error() string { return "no object " + HexID(e.ID) + " in the dump" }
