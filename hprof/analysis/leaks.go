package analysis

import (
	"cmp"
	"slices"
)

// Leak is a leaked Activity or Fragment (D12).
type Leak struct {
	Node   Node
	Kind   string // "activity" or "fragment"
	Reason string // "destroyed", "finished" or "detached"
	Depth  int
	Path   []PathStep
}

// Leaks returns the reachable Activities that are destroyed or finished
// and the reachable Fragments without a FragmentManager (D12), by retained
// size descending, then id.
func (h *Heap) Leaks() []Leak {
	var out []Leak
	for _, x := range h.instancesOf(func(ci int32) bool { return h.subclassOf(ci, nameActivity) }) {
		destroyed, _, _ := h.field(x, nameActivity, "mDestroyed")
		finished, _, _ := h.field(x, nameActivity, "mFinished")
		switch {
		case destroyed != 0:
			out = append(out, Leak{Node: x, Kind: "activity", Reason: "destroyed"})
		case finished != 0:
			out = append(out, Leak{Node: x, Kind: "activity", Reason: "finished"})
		}
	}
	for _, base := range []string{nameFragment, nameXFragment} {
		for _, x := range h.instancesOf(func(ci int32) bool { return h.subclassOf(ci, base) }) {
			if fm, typ, ok := h.field(x, base, "mFragmentManager"); ok && isObjectType(typ) && fm == 0 {
				out = append(out, Leak{Node: x, Kind: "fragment", Reason: "detached"})
			}
		}
	}
	for i := range out {
		out[i].Path = h.PathToRoot(out[i].Node)
		out[i].Depth = len(out[i].Path)
	}
	slices.SortFunc(out, func(a, b Leak) int {
		return cmp.Or(cmp.Compare(h.Retained(Node(b.Node)), h.Retained(Node(a.Node))), cmp.Compare(h.ID(a.Node), h.ID(b.Node)))
	})
	return out
}

// BlameStep returns the index of the path step most likely to blame for a
// leak: the first hop from an object that is not itself on the Android
// lifecycle's side (a static field, a listener, a Handler's message...).
// It is the last step whose holder is not the leaked object's own class
// hierarchy, counted from the leak back to the root: a heuristic for the
// viewer, not part of D12.
func (h *Heap) BlameStep(l Leak) int {
	if len(l.Path) < 2 {
		return 0
	}
	// The hop into the chain that ends at the leak: the last step whose
	// holder is a class object (a static field), else the first hop.
	for i := len(l.Path) - 1; i > 0; i-- {
		if h.kind(l.Path[i-1].Node) == subClassDump {
			return i
		}
	}
	return 1
}
