// Package hprofref is a reference implementation of the heap dump
// definitions D1-D16 of spec/hprof-analysis.md, for tests: it reads an
// HPROF file into plain maps and answers every question by the simplest
// algorithm that follows a definition word for word. Dominators come from
// their defining equations (Dom(v) = {v} ∪ ⋂ Dom(pred)) over bitsets, and
// DominatedBy applies the definition itself to one node (take it out; what
// is no longer reachable is dominated); the tests check the two against
// each other and against every path of small graphs. It is quadratic in
// time and memory, meant for dumps of up to some tens of thousands of
// objects (a JDK 17 dump of 12,000 objects: 0.6 s); it shares no code with
// the fast analyser it checks.
//
// Read parses a file; Dump.Analyze computes everything; Analysis.Result
// gives the JSON shape of `ddmtui hprof analyze --json`, Analysis.Path that
// of `hprof path`, and Diff that of `hprof diff`. Analysis.ValidPath checks
// a path another tool claims against D11, and Analysis.Check a whole
// result.
package hprofref

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ddmtui/ddmtui/hprof"
)

// Node kinds (D1).
const (
	KindInstance  = "instance"
	KindObjArray  = "object array"
	KindPrimArray = "primitive array"
	KindClass     = "class"
)

// Node is one object of the dump (D1): the first dump of its id.
type Node struct {
	ID   uint64
	Kind string
	Heap string // D15
	// Class is the instance's class id, or the object array's array class id.
	Class uint64
	// Data is an instance's field bytes or a primitive array's elements
	// (nil for PRIMITIVE ARRAY NODATA).
	Data []byte
	// Elems are an object array's elements.
	Elems []uint64
	// ElemType and Length describe a primitive array.
	ElemType hprof.Type
	Length   int
}

// ClassInfo is a CLASS DUMP (the first one of its id).
type ClassInfo struct {
	ID           uint64
	Super        uint64
	InstanceSize uint32
	Statics      []Static
	Fields       []FieldDecl // declared by this class, in data order
}

// Static is a static field with its value.
type Static struct {
	Name  string
	Type  hprof.Type
	Value uint64
}

// FieldDecl is an instance field declaration.
type FieldDecl struct {
	Name string
	Type hprof.Type
}

// Dump is a parsed HPROF file.
type Dump struct {
	Version string
	IDSize  int
	Nodes   map[uint64]*Node
	Order   []uint64              // node ids in file order
	Classes map[uint64]*ClassInfo // CLASS DUMPs by class id
	// ClassNames are the LOAD CLASS names by class id, in Java source form
	// (D3).
	ClassNames map[uint64]string
	// Roots are the object ids of the root records (D5; not 0x90), in
	// file order, possibly naming no node.
	Roots []uint64
}

// Read parses a whole HPROF file with the hprof package's Reader.
func Read(r io.Reader) (*Dump, error) {
	hr, err := hprof.NewReader(r)
	if err != nil {
		return nil, err
	}
	d := &Dump{Version: hr.Header().Version, IDSize: hr.Header().IDSize, Nodes: map[uint64]*Node{},
		Classes: map[uint64]*ClassInfo{}, ClassNames: map[uint64]string{}}
	strs := map[uint64]string{}
	heap := "default" // D15: before any HEAP DUMP INFO
	addNode := func(n *Node) {
		if _, seen := d.Nodes[n.ID]; seen {
			return // D1: only the first dump of an id counts
		}
		n.Heap = heap
		d.Nodes[n.ID] = n
		d.Order = append(d.Order, n.ID)
	}
	for {
		rec, err := hr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch r := rec.(type) {
		case *hprof.UTF8:
			strs[uint64(r.ID)] = r.Text
		case *hprof.LoadClass:
			d.ClassNames[uint64(r.Class)] = SourceName(strs[uint64(r.Name)])
		case *hprof.HeapDumpInfo:
			heap = strs[uint64(r.Name)]
		case *hprof.Root:
			if r.Kind != hprof.SubRootUnreachable { // D5: 0x90 is no root
				d.Roots = append(d.Roots, uint64(r.Object))
			}
		case *hprof.ClassDump:
			if _, seen := d.Nodes[uint64(r.Class)]; !seen {
				ci := &ClassInfo{ID: uint64(r.Class), Super: uint64(r.Super), InstanceSize: r.InstanceSize}
				for _, s := range r.Statics {
					ci.Statics = append(ci.Statics, Static{Name: strs[uint64(s.Name)], Type: s.Type, Value: s.Value})
				}
				for _, f := range r.Fields {
					ci.Fields = append(ci.Fields, FieldDecl{Name: strs[uint64(f.Name)], Type: f.Type})
				}
				d.Classes[ci.ID] = ci
			}
			addNode(&Node{ID: uint64(r.Class), Kind: KindClass})
		case *hprof.InstanceDump:
			addNode(&Node{ID: uint64(r.Object), Kind: KindInstance, Class: uint64(r.Class), Data: append([]byte(nil), r.Data...)})
		case *hprof.ObjectArrayDump:
			n := &Node{ID: uint64(r.Array), Kind: KindObjArray, Class: uint64(r.Class)}
			for _, e := range r.Elements {
				n.Elems = append(n.Elems, uint64(e))
			}
			addNode(n)
		case *hprof.PrimitiveArrayDump:
			addNode(&Node{ID: uint64(r.Array), Kind: KindPrimArray, ElemType: r.Type, Length: int(r.Count),
				Data: append([]byte(nil), r.Data...)})
		}
	}
	return d, nil
}

// SourceName turns a class name into Java source form (D3):
// java/util/HashMap -> java.util.HashMap, [Ljava/lang/String; ->
// java.lang.String[], [[I -> int[][]. Names already in source form (ART's)
// are kept.
func SourceName(name string) string {
	if !strings.HasPrefix(name, "[") {
		return strings.ReplaceAll(name, "/", ".")
	}
	dims := 0
	for dims < len(name) && name[dims] == '[' {
		dims++
	}
	elem := name[dims:]
	prims := map[string]string{"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int",
		"J": "long", "F": "float", "D": "double"}
	if p, ok := prims[elem]; ok {
		elem = p
	} else if strings.HasPrefix(elem, "L") && strings.HasSuffix(elem, ";") {
		elem = strings.ReplaceAll(elem[1:len(elem)-1], "/", ".")
	} else {
		return name
	}
	return elem + strings.Repeat("[]", dims)
}

// typeSize is the size of a value of basic type t (type 1, "array object"
// in old specs, and 2 are ids).
func (d *Dump) typeSize(t hprof.Type) int {
	switch t {
	case 1, hprof.TypeObject:
		return d.IDSize
	case hprof.TypeBoolean, hprof.TypeByte:
		return 1
	case hprof.TypeChar, hprof.TypeShort:
		return 2
	case hprof.TypeFloat, hprof.TypeInt:
		return 4
	case hprof.TypeDouble, hprof.TypeLong:
		return 8
	}
	return 0
}

func isObjectType(t hprof.Type) bool { return t == 1 || t == hprof.TypeObject }

// FieldValue is one instance field of an object with its value.
type FieldValue struct {
	Decl  uint64 // the declaring class's id
	Name  string
	Type  hprof.Type
	Value uint64 // bits, zero-extended
}

// Chain returns the class ids from class up its CLASS DUMP super ids, the
// class itself first; it stops at a class with no CLASS DUMP or a loop.
func (d *Dump) Chain(class uint64) []uint64 {
	var out []uint64
	seen := map[uint64]bool{}
	for c := class; c != 0 && !seen[c]; {
		ci := d.Classes[c]
		if ci == nil {
			break
		}
		seen[c] = true
		out = append(out, c)
		c = ci.Super
	}
	return out
}

// Fields decodes an instance's field values: its class's fields first,
// then its superclass's, up the chain (D4). Values past the end of the
// data are missing.
func (d *Dump) Fields(n *Node) []FieldValue {
	var out []FieldValue
	off := 0
	for _, c := range d.Chain(n.Class) {
		for _, f := range d.Classes[c].Fields {
			size := d.typeSize(f.Type)
			if size == 0 || off+size > len(n.Data) {
				return out
			}
			var v uint64
			for _, b := range n.Data[off : off+size] {
				v = v<<8 | uint64(b)
			}
			off += size
			out = append(out, FieldValue{Decl: c, Name: f.Name, Type: f.Type, Value: v})
		}
	}
	return out
}

// ClassName is the class of a node (D3).
func (d *Dump) ClassName(n *Node) string {
	switch n.Kind {
	case KindClass:
		return "java.lang.Class"
	case KindPrimArray:
		return n.ElemType.String() + "[]"
	}
	if name, ok := d.ClassNames[n.Class]; ok {
		return name
	}
	return fmt.Sprintf("unknown class %#x", n.Class)
}

// IsSubclass reports whether class name appears on the chain of class
// (D3: the class itself included).
func (d *Dump) IsSubclass(class uint64, name string) bool {
	return d.declaring(class, name) != 0
}

// declaring returns the id of the class named name on class's chain.
func (d *Dump) declaring(class uint64, name string) uint64 {
	for _, c := range d.Chain(class) {
		if d.ClassNames[c] == name {
			return c
		}
	}
	return 0
}

// Shallow is a node's shallow size (D2).
func (d *Dump) Shallow(n *Node) uint64 {
	switch n.Kind {
	case KindInstance:
		if ci := d.Classes[n.Class]; ci != nil {
			return uint64(ci.InstanceSize)
		}
		return uint64(len(n.Data))
	case KindObjArray:
		return uint64(len(n.Elems) * d.IDSize)
	case KindPrimArray:
		return uint64(n.Length * d.typeSize(n.ElemType))
	}
	var sum uint64
	for _, s := range d.Classes[n.ID].Statics {
		sum += uint64(d.typeSize(s.Type))
	}
	return sum
}

// Edge is a strong reference (D4) with what names it: a field name, a
// static field name or "[i]".
type Edge struct {
	To    uint64
	Label string
}

// Edges are a node's strong references (D4), in data order.
func (d *Dump) Edges(n *Node) []Edge {
	var out []Edge
	add := func(to uint64, label string) {
		if _, ok := d.Nodes[to]; ok && to != 0 {
			out = append(out, Edge{To: to, Label: label})
		}
	}
	switch n.Kind {
	case KindInstance:
		for _, f := range d.Fields(n) {
			if !isObjectType(f.Type) {
				continue
			}
			if f.Name == "referent" && d.ClassNames[f.Decl] == "java.lang.ref.Reference" {
				continue // the referent of every Reference is not strong
			}
			add(f.Value, f.Name)
		}
	case KindObjArray:
		for i, e := range n.Elems {
			add(e, fmt.Sprintf("[%d]", i))
		}
	case KindClass:
		for _, s := range d.Classes[n.ID].Statics {
			if isObjectType(s.Type) {
				add(s.Value, s.Name)
			}
		}
	}
	return out
}
