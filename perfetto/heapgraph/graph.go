// Package heapgraph reads and writes the Java heap graphs of Perfetto traces
// (the android.java_hprof data source; spec/perfetto-heapgraph.md): the
// heap of a profileable or debuggable app as ART's perfetto_hprof plugin
// writes it from Android 11 (API 30) on.
//
// Read decodes a trace's packet stream with protowire, one small decoder
// per message (TracePacket, HeapGraph, HeapGraphObject, HeapGraphType,
// HeapGraphRoot, InternedString), skipping every packet and field it does
// not use, and returns one Graph per dump (process and time). A Graph is
// format-neutral and compact: objects, types and roots in slices, the
// references of all objects in two flat slices indexed by RefEnd; nothing
// is kept per object but those slices. Memory grows with the trace, never
// with a count the trace claims: every length is checked against the bytes
// present before anything is allocated.
//
// Model and EachNode (model.go) turn a Graph into the plain values a heap
// model builder consumes (the definitions of spec/hprof-analysis.md as the
// heap-graph spec adapts them). Writer (write.go) writes heap graphs in
// ART's encodings for API 30, 31 and 34+, and FromHPROF (convert.go)
// writes an HPROF dump's heap as a heap graph, so one heap can be had in
// both forms.
package heapgraph

import (
	"fmt"
	"strings"
)

// RootType is a GC root's kind (HeapGraphRoot.Type).
type RootType uint8

// Root types.
const (
	RootUnknown RootType = iota
	RootJNIGlobal
	RootJNILocal
	RootJavaFrame
	RootNativeStack
	RootStickyClass
	RootThreadBlock
	RootMonitorUsed
	RootThreadObject
	RootInternedString
	RootFinalizing
	RootDebugger
	RootReferenceCleanup
	RootVMInternal
	RootJNIMonitor
)

var rootNames = [...]string{"UNKNOWN", "JNI_GLOBAL", "JNI_LOCAL", "JAVA_FRAME", "NATIVE_STACK",
	"STICKY_CLASS", "THREAD_BLOCK", "MONITOR_USED", "THREAD_OBJECT", "INTERNED_STRING", "FINALIZING",
	"DEBUGGER", "REFERENCE_CLEANUP", "VM_INTERNAL", "JNI_MONITOR"}

func (t RootType) String() string {
	if int(t) < len(rootNames) {
		return rootNames[t]
	}
	return fmt.Sprintf("ROOT_%d", t)
}

// Kind is a type's kind (HeapGraphType.Kind).
type Kind uint8

// Type kinds.
const (
	KindUnknown Kind = iota
	KindNormal
	KindNoReferences
	KindString
	KindArray
	KindClass
	KindClassLoader
	KindDexCache
	KindSoftReference
	KindWeakReference
	KindFinalizerReference
	KindPhantomReference
)

// instanceKind reports the kinds whose objects lay their reference values
// out along the class chain (from API 31 without per-object field ids).
func (k Kind) instanceKind() bool {
	return k == KindNormal || k == KindUnknown || k >= KindSoftReference && k <= KindPhantomReference
}

// HeapType is the heap an object lives in (HeapGraphObject.HeapType).
type HeapType uint8

// Heap types.
const (
	HeapUnknown HeapType = iota
	HeapApp
	HeapZygote
	HeapBootImage
)

// Name returns the heap's name as HPROF's HEAP DUMP INFO calls it, so the
// heaps of both forms of one dump match (spec/hprof-analysis.md D15):
// "app", "zygote", "image", otherwise "default".
func (h HeapType) Name() string {
	switch h {
	case HeapApp:
		return "app"
	case HeapZygote:
		return "zygote"
	case HeapBootImage:
		return "image"
	}
	return "default"
}

// Type is one HeapGraphType: a class. Names are resolved (Location,
// RefFields' names through Graph.FieldName); Super is the index of the
// superclass in Graph.Types, -1 for none.
type Type struct {
	ID          uint64
	Name        string
	Location    string // the dex or jar it came from ("" when not given)
	ObjectSize  uint64
	SuperID     uint64
	Super       int32
	Kind        Kind
	ClassLoader uint64   // object id of its class loader (0: the boot class loader)
	RefFields   []uint32 // field name iids of its own reference fields (API 31+), in value order
	locationID  uint64
}

// Root is one GC root: an object id and its root type.
type Root struct {
	ID   uint64
	Type RootType
}

// Graph is one heap dump of one process, decoded. Object i has id ID[i],
// type Types[Type[i]], size Size[i] (self_size, or its type's object_size),
// heap Heap[i], and the references FieldOf/Refs[RefEnd[i-1]:RefEnd[i]]
// (RefEnd[-1] taken as 0): Refs are object ids (0 null), FieldOf the
// field name iids (0 for an array element or a field ART did not name).
// Objects are in file order; an id may repeat (the first counts, as
// spec/hprof-analysis.md D1 says for HPROF).
type Graph struct {
	PID       int32
	Timestamp uint64 // the packets' timestamp (ns, the trace's clock)
	Packets   int

	ID []uint64
	// Type holds, while a dump is decoded, the type ids as written
	// (at most 2^31-1); once complete, indexes in Types.
	Type []int32
	// Size is in bytes; an object of 4 GiB or more is refused (no Android
	// heap holds one), so 4 bytes an object do.
	Size   []uint32
	Heap   []HeapType
	RefEnd []uint32
	Refs   []uint64
	// FieldOf holds field name iids beside Refs.
	FieldOf []uint32

	Types []Type
	Roots []Root
	// names are the interned field names by iid.
	names map[uint64]string

	// Decoding state, dropped once the dump is complete.
	flags   []uint8
	typeOff []int
}

// NumObjects is the number of objects (repeated ids included).
func (g *Graph) NumObjects() int { return len(g.ID) }

// RefRange returns the bounds of object i's references in Refs and
// FieldOf.
func (g *Graph) RefRange(i int) (from, to int) {
	if i > 0 {
		from = int(g.RefEnd[i-1])
	}
	return from, int(g.RefEnd[i])
}

// FieldName returns the interned field name of iid ("" for 0 or an iid the
// dump does not define), as ART writes it: "<type> <Class>.<name>".
func (g *Graph) FieldName(iid uint32) string { return g.names[uint64(iid)] }

// SplitFieldName splits a field name as ART writes it, "java.lang.Object
// com.example.Foo.bar", into the field's type, its declaring class and its
// name. A name without the type or the class gives empty parts.
func SplitFieldName(s string) (typ, decl, name string) {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		typ, s = s[:i], s[i+1:]
	}
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return typ, s[:i], s[i+1:]
	}
	return typ, "", s
}

// String describes the dump in one line, as the list of a trace's dumps
// shows it.
func (g *Graph) String() string {
	return fmt.Sprintf("pid %d at %d: %d objects, %d types, %d roots (%d packets)",
		g.PID, g.Timestamp, len(g.ID), len(g.Types), len(g.Roots), g.Packets)
}
