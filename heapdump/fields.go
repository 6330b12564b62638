package heapdump

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

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

// instance returns an instance node's class (classes index, -1 when its
// class was not dumped) and field data.
func (h *Heap) instance(n Node) (int32, []byte, bool) {
	h.touch()
	off := h.offs.at(int(n))
	if h.s.d[off] != subInstanceDump {
		return -1, nil, false
	}
	p := off + 1 + h.idSize + 4
	cid := h.s.id(p)
	length := int(binary.BigEndian.Uint32(h.s.d[p+h.idSize:]))
	data := h.s.d[p+h.idSize+4 : p+h.idSize+4+length]
	ci, ok := h.classByI[cid]
	if !ok {
		return -1, data, true
	}
	return ci, data, true
}

// Fields lists an instance's fields or a class object's static fields; nil
// for arrays (see ArrayElements).
func (h *Heap) Fields(n Node) []Field {
	if ci, ok := h.classOf[int32(n)]; ok && h.kind(n) == subClassDump {
		c := &h.classes[ci]
		out := make([]Field, 0, len(c.dump.statics))
		for _, sf := range c.dump.statics {
			f := Field{Name: h.fieldName(sf.name), Type: typeNames[sf.typ], Declarer: c.name, Static: true, Bits: sf.value, Ref: -1}
			if isObjectType(sf.typ) {
				f.Ref, f.Strong = h.refNode(sf.value), true
			}
			out = append(out, f)
		}
		return out
	}
	ci, data, ok := h.instance(n)
	if !ok || ci < 0 {
		return nil
	}
	var out []Field
	off := 0
	h.eachField(ci, func(decl int32, fd fieldDecl, name string) bool {
		size := typeSize(fd.typ, h.idSize)
		if off+size > len(data) {
			return false
		}
		f := Field{Name: name, Type: typeNames[fd.typ], Declarer: h.classes[decl].name,
			Bits: readValue(data[off:], size), Ref: -1}
		if isObjectType(fd.typ) {
			f.Ref = h.refNode(f.Bits)
			f.Strong = !h.isReferent(decl, name)
		}
		out = append(out, f)
		off += size
		return true
	})
	return out
}

func (h *Heap) fieldName(id uint64) string {
	if s, ok := h.s.str(id); ok {
		return s
	}
	return fmt.Sprintf("field %#x", id)
}

func (h *Heap) refNode(id uint64) Node {
	if id == 0 {
		return -1
	}
	return Node(h.index.lookup(id))
}

// field finds the first field named name along an instance's class chain,
// declared by a class named decl ("" for any), and returns its value bits
// and type.
func (h *Heap) field(n Node, decl, name string) (uint64, byte, bool) {
	ci, data, ok := h.instance(n)
	if !ok || ci < 0 {
		return 0, 0, false
	}
	var bits uint64
	var typ byte
	found := false
	off := 0
	h.eachField(ci, func(dc int32, fd fieldDecl, fname string) bool {
		size := typeSize(fd.typ, h.idSize)
		if off+size > len(data) {
			return false
		}
		if fname == name && (decl == "" || h.classes[dc].name == decl) {
			bits, typ, found = readValue(data[off:], size), fd.typ, true
			return false
		}
		off += size
		return true
	})
	return bits, typ, found
}

// ArrayLength returns an array node's element count.
func (h *Heap) ArrayLength(n Node) (int, bool) {
	h.touch()
	off := h.offs.at(int(n))
	switch h.s.d[off] {
	case subObjectArray, subPrimitiveArray, subPrimitiveNoDat:
		return int(binary.BigEndian.Uint32(h.s.d[off+1+h.idSize+4:])), true
	}
	return 0, false
}

// ArrayElements lists up to max elements of an array node from index
// from, as Fields named "[i]".
func (h *Heap) ArrayElements(n Node, from, max int) []Field {
	count, ok := h.ArrayLength(n)
	if !ok || from < 0 || from >= count {
		return nil
	}
	off := h.offs.at(int(n))
	p := off + 1 + h.idSize + 8
	end := min(count, from+max)
	out := make([]Field, 0, end-from)
	switch h.s.d[off] {
	case subObjectArray:
		p += h.idSize
		for i := from; i < end; i++ {
			id := readID(h.s.d[p+i*h.idSize:], h.idSize)
			out = append(out, Field{Name: "[" + strconv.Itoa(i) + "]", Type: "object", Bits: id, Ref: h.refNode(id), Strong: true})
		}
	case subPrimitiveArray:
		t := h.s.d[p]
		size := typeSize(t, h.idSize)
		for i := from; i < end; i++ {
			out = append(out, Field{Name: "[" + strconv.Itoa(i) + "]", Type: typeNames[t], Bits: readValue(h.s.d[p+1+i*size:], size), Ref: -1})
		}
	}
	return out
}

// primitiveData returns a primitive array node's element type and bytes
// (nil for a NODATA array).
func (h *Heap) primitiveData(n Node) (byte, []byte, bool) {
	h.touch()
	off := h.offs.at(int(n))
	tag := h.s.d[off]
	if tag != subPrimitiveArray && tag != subPrimitiveNoDat {
		return 0, nil, false
	}
	p := off + 1 + h.idSize + 4
	count := int(binary.BigEndian.Uint32(h.s.d[p:]))
	t := h.s.d[p+4]
	if tag == subPrimitiveNoDat {
		return t, nil, true
	}
	return t, h.s.d[p+5 : p+5+count*typeSize(t, h.idSize)], true
}

// Outgoing returns the node's strong edges (D4) in field order; the slice
// must not be changed.
func (h *Heap) Outgoing(n Node) []int32 { return h.outTgt[h.outOff[n]:h.outOff[n+1]] }

// Referrers returns the nodes with a strong edge to n (each once), in node
// order. The reverse edges are built on first use.
func (h *Heap) Referrers(n Node) []Node {
	h.revOnce.Do(h.buildReverse)
	src := h.revSrc[h.revOff[n]:h.revOff[n+1]]
	out := make([]Node, 0, len(src))
	for i, v := range src {
		if i == 0 || v != src[i-1] {
			out = append(out, Node(v))
		}
	}
	return out
}

func (h *Heap) buildReverse() {
	n := h.offs.len()
	off := make([]uint32, n+1)
	for _, w := range h.outTgt {
		off[w+1]++
	}
	for i := 1; i <= n; i++ {
		off[i] += off[i-1]
	}
	src := make([]int32, len(h.outTgt))
	pos := make([]uint32, n)
	copy(pos, off[:n])
	for v := range n {
		for _, w := range h.outTgt[h.outOff[v]:h.outOff[v+1]] {
			src[pos[w]] = int32(v)
			pos[w]++
		}
	}
	h.revOff, h.revSrc = off, src
}
