package heapdump

import (
	"cmp"
	"slices"
)

// rootKind is one node's GC root record: its sub-record tag.
type rootKind struct {
	node int32
	tag  uint8
}

// sortRootKinds orders h.rootKinds by node and keeps each node's first
// record in file order (an object named by several root records shows
// the first, as MAT lists one).
func sortRootKinds(h *Heap) {
	slices.SortStableFunc(h.rootKinds, func(a, b rootKind) int { return cmp.Compare(a.node, b.node) })
	h.rootKinds = slices.CompactFunc(h.rootKinds, func(a, b rootKind) bool { return a.node == b.node })
	h.rootKinds = slices.Clip(h.rootKinds)
}

// rootKindNames are the GC root kinds as MAT names them, by HPROF
// sub-record tag (Android's own kinds included).
var rootKindNames = map[uint8]string{
	0xFF: "unknown",
	0x01: "JNI global",
	0x02: "JNI local",
	0x03: "Java frame",
	0x04: "native stack",
	0x05: "sticky class",
	0x06: "thread block",
	0x07: "busy monitor",
	0x08: "thread",
	0x89: "interned string",
	0x8A: "finalizing",
	0x8B: "debugger",
	0x8C: "reference cleanup",
	0x8D: "VM internal",
	0x8E: "JNI monitor",
}

// RootKind names why n is a GC root, as MAT does: the kind of its root
// record ("thread", "JNI global", "sticky class", …; the first when it has
// several), "sticky class" for a class object that no record names (a root
// by D5, as a heap graph's model and MAT's "System Class" count it), ""
// when n is no root or the dump does not say.
func (h *Heap) RootKind(n Node) string {
	if !h.IsRoot(n) {
		return ""
	}
	i, ok := slices.BinarySearchFunc(h.rootKinds, int32(n), func(r rootKind, n int32) int { return cmp.Compare(r.node, n) })
	if ok {
		return rootKindNames[h.rootKinds[i].tag]
	}
	if h.Kind(n) == KindClass {
		return rootKindNames[0x05]
	}
	return ""
}
