package heapdump

import (
	"cmp"
	"slices"
	"strings"
)

// Leak is a leaked Activity or Fragment (D12).
type Leak struct {
	Node   Node
	Kind   string     // "activity" or "fragment"
	Reason string     // "destroyed", "finished" or "detached"
	Depth  int        // the length of its shortest path
	Path   []PathStep // that path (cut as MaxPathSteps says); nil past MaxLeakPaths
}

// MaxLeakPaths bounds the leaks listed with their path: the largest by
// retained size. Every leak is listed, with its depth.
const MaxLeakPaths = 1000

// Leaks is the query of leaked Activities and Fragments (D12).
type Leaks struct{ h *Heap }

// Leaks returns the leaks' query.
func (h *Heap) Leaks() Leaks { return Leaks{h} }

// Unavailable says which leaks the dump cannot tell ("" when none): an
// Activity's mDestroyed and mFinished are primitive values, which a heap
// graph does not carry.
func (l Leaks) Unavailable() string {
	if why := l.h.Unavailable(); why != "" {
		return "destroyed or finished Activities: " + why
	}
	return ""
}

// Find returns the reachable Activities that are destroyed or finished
// and the reachable Fragments without a FragmentManager (D12), by retained
// size descending, then id. Without primitive values (Unavailable) only
// the Fragments are looked for.
func (l Leaks) Find() []Leak {
	h := l.h
	var out []Leak
	activities := instancesOf(h, subclassesOf(h, nameActivity))
	if l.Unavailable() != "" {
		activities = nil
	}
	for _, x := range activities {
		destroyed, _, _ := h.vals.field(x, nameActivity, "mDestroyed")
		finished, _, _ := h.vals.field(x, nameActivity, "mFinished")
		switch {
		case destroyed != 0:
			out = append(out, Leak{Node: x, Kind: "activity", Reason: "destroyed"})
		case finished != 0:
			out = append(out, Leak{Node: x, Kind: "activity", Reason: "finished"})
		}
	}
	for _, base := range []string{nameFragment, nameXFragment} {
		for _, x := range instancesOf(h, subclassesOf(h, base)) {
			if fm, typ, ok := h.vals.field(x, base, "mFragmentManager"); ok && isObjectType(typ) && fm == 0 {
				out = append(out, Leak{Node: x, Kind: "fragment", Reason: "detached"})
			}
		}
	}
	slices.SortFunc(out, func(a, b Leak) int {
		return cmp.Or(cmp.Compare(h.Retained(b.Node), h.Retained(a.Node)), cmp.Compare(h.ID(a.Node), h.ID(b.Node)))
	})
	paths := h.Paths()
	listed := make([]Node, 0, min(len(out), MaxLeakPaths))
	for i := range out {
		out[i].Depth = paths.Depth(out[i].Node)
		if i < MaxLeakPaths {
			listed = append(listed, out[i].Node)
		}
	}
	for i, p := range paths.toRoots(listed) {
		out[i].Path = p
	}
	h.vals.released() // the pages of the leaks' fields and paths
	return out
}

// BlameStep returns the index of the hop of a leak's path (root first, the
// leak last) most likely to blame: a heuristic for the viewer and the
// reports, not part of D12. The app's objects are those whose class is in
// the leaked object's app package (the first three parts of its class
// name, "com.example.mail"); class objects never count as the app's, since
// a static field lives as long as the process. Walking from the leak back
// towards the root, the app's objects that hold it in an unbroken run (the
// Activity's inner classes, listeners and handlers) are its own side, and
// the reference into that run from the first holder outside it is the
// suspect: a Handler's Message, a Thread's Runnable, a static field. When
// that holder is only a container (an array, or a class of java.util or
// android.util), the blame moves back to the reference that holds the
// container: the static listener list, not its backing array. When the
// whole path is the app's, the first hop (out of the GC root) is blamed.
func (l Leaks) BlameStep(path []PathStep) int {
	h := l.h
	if len(path) < 2 {
		return 0
	}
	app := appPackage(h.ClassName(path[len(path)-1].Node))
	i := len(path) - 1
	for ; i > 1; i-- {
		holder := path[i-1].Node
		if h.ClassObjectName(holder) != "" || !inPackage(h.ClassName(holder), app) {
			break
		}
	}
	for i > 1 && isContainer(h, path[i-1].Node) {
		i--
	}
	return i
}

// isContainer reports whether a node only holds others for someone: an
// array, or an instance of a java.util or android.util class.
func isContainer(h *Heap, n Node) bool {
	if h.ClassObjectName(n) != "" {
		return false
	}
	name := h.ClassName(n)
	return strings.HasSuffix(name, "[]") || strings.HasPrefix(name, "java.util.") || strings.HasPrefix(name, "android.util.")
}

// appPackage is the first three dotted parts of a class name's package
// (fewer when its package is shorter).
func appPackage(class string) string {
	parts := strings.Split(class, ".")
	if len(parts) <= 1 {
		return ""
	}
	parts = parts[:len(parts)-1] // the package
	if len(parts) > 3 {
		parts = parts[:3]
	}
	return strings.Join(parts, ".")
}

func inPackage(class, pkg string) bool {
	return pkg != "" && strings.HasPrefix(class, pkg+".")
}
