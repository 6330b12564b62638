package heapdump

import (
	"fmt"
	"math"
	"strconv"
)

// values is what a reader tells of the objects beyond the index: their
// fields' values and array elements. The HPROF reader reads them from the
// file; a heap fed through a Builder knows only the references.
type values interface {
	fields(n Node) []Field
	// field finds the first field named name along an instance's class
	// chain, declared by a class named decl ("" for any): its value bits
	// and basic type (typeObject for a reference).
	field(n Node, decl, name string) (uint64, byte, bool)
	arrayLength(n Node) (int, bool)
	arrayElements(n Node, from, max int) []Field
	// refName names what in a holds b (a strong edge a -> b).
	refName(a, b Node) string
	// elementIndexes sets, for each id in want, the index of the first
	// element of object array a that holds it (left as it is when none),
	// in one pass over the array.
	elementIndexes(a Node, want map[uint64]int32)
	// unavailable says what the dump cannot tell ("" when nothing).
	unavailable() string
	// renameFields and renameClasses put a deobfuscation's names into the
	// reader's own tables (Heap.Rename): byType renames a field of a known
	// declaring type, byName one whose declarer only has a name.
	renameFields(byType func(decl int32, name string) string, byName func(decl, name string) string)
	renameClasses(fn func(name string) string)
	released()
	close() error
}

// Field is one field of an object as Fields lists it: an instance field
// (over the class and its superclasses, in data order) or a static field of
// a class object.
type Field struct {
	Name     string
	Type     string // "object", "int", "boolean", ...
	Declarer string // the declaring class's name
	Static   bool
	Bits     uint64 // the value's bits, zero-extended (an id for an object)
	Ref      Node   // the node an object value names, or -1
	Strong   bool   // an object field that is a strong edge (not Reference.referent)
}

// Value formats the field's value as Java would print it, ids in hex.
func (f Field) Value() string {
	switch f.Type {
	case "object":
		if f.Bits == 0 {
			return "null"
		}
		return HexID(f.Bits)
	case "boolean":
		return strconv.FormatBool(f.Bits != 0)
	case "char":
		return strconv.QuoteRune(rune(f.Bits))
	case "float":
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(f.Bits))), 'g', -1, 32)
	case "double":
		return strconv.FormatFloat(math.Float64frombits(f.Bits), 'g', -1, 64)
	case "byte":
		return strconv.Itoa(int(int8(f.Bits)))
	case "short":
		return strconv.Itoa(int(int16(f.Bits)))
	case "int":
		return strconv.Itoa(int(int32(f.Bits)))
	case "long":
		return strconv.FormatInt(int64(f.Bits), 10)
	}
	return fmt.Sprint(f.Bits)
}

var typeNames = [12]string{1: "object", 2: "object", 4: "boolean", 5: "char", 6: "float", 7: "double", 8: "byte", 9: "short", 10: "int", 11: "long"}

// Fields lists an instance's fields or a class object's static fields
// (only the references when the dump has no primitive values); nil for
// arrays (see ArrayElements).
func (h *Heap) Fields(n Node) []Field { return h.vals.fields(n) }

// ArrayLength returns an array node's element count.
func (h *Heap) ArrayLength(n Node) (int, bool) { return h.vals.arrayLength(n) }

// ArrayElements lists up to max elements of an array node from index
// from, as Fields named "[i]".
func (h *Heap) ArrayElements(n Node, from, max int) []Field {
	return h.vals.arrayElements(n, from, max)
}

func refNode(h *Heap, id uint64) Node {
	if id == 0 {
		return -1
	}
	return Node(h.index.lookup(id))
}

// isReferent reports whether a field named name, declared by type t, is
// the excluded java.lang.ref.Reference.referent (D4).
func isReferent(h *Heap, t int32, name string) bool {
	return name == fieldReferent && h.types[t].name == nameReference
}

// elementName names element i of an array: "[i]".
func elementName(i int) string { return "[" + strconv.Itoa(i) + "]" }
