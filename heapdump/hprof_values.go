package heapdump

import (
	"encoding/binary"
	"fmt"
)

// instance returns an instance node's class (classes index, -1 when its
// class was not dumped) and field data.
func (r *hprofFile) instance(n Node) (int32, []byte, bool) {
	r.touch()
	off := r.offs.at(int(n))
	d := r.s.d
	if d[off] != subInstanceDump {
		return -1, nil, false
	}
	p := off + 1 + r.idSize + 4
	cid := r.s.id(p)
	length := int(binary.BigEndian.Uint32(d[p+r.idSize:]))
	data := d[p+r.idSize+4 : p+r.idSize+4+length]
	ci, ok := r.classByI[cid]
	if !ok {
		return -1, data, true
	}
	return ci, data, true
}

func (r *hprofFile) fields(n Node) []Field {
	h := r.h
	if ci, ok := h.classOf[int32(n)]; ok && h.kinds[n] == subClassDump {
		c := &r.classes[ci]
		out := make([]Field, 0, len(c.dump.statics))
		for i, sf := range c.dump.statics {
			name := r.fieldName(sf.name)
			if c.renamed != nil {
				name = c.renamed[i]
			}
			f := Field{Name: name, Type: typeNames[sf.typ], Declarer: h.types[ci].name, Static: true, Bits: sf.value, Ref: -1}
			if isObjectType(sf.typ) {
				f.Ref, f.Strong = refNode(h, sf.value), true
			}
			out = append(out, f)
		}
		return out
	}
	ci, data, ok := r.instance(n)
	if !ok || ci < 0 {
		return nil
	}
	var out []Field
	off := 0
	r.eachField(ci, func(decl int32, fd fieldDecl, name string) bool {
		size := typeSize(fd.typ, r.idSize)
		if off+size > len(data) {
			return false
		}
		f := Field{Name: name, Type: typeNames[fd.typ], Declarer: h.types[decl].name,
			Bits: readValue(data[off:], size), Ref: -1}
		if isObjectType(fd.typ) {
			f.Ref = refNode(h, f.Bits)
			f.Strong = !isReferent(h, decl, name)
		}
		out = append(out, f)
		off += size
		return true
	})
	return out
}

func (r *hprofFile) renameFields(byType func(decl int32, name string) string, _ func(decl, name string) string) {
	for i := range r.classes {
		c := &r.classes[i]
		for k, name := range c.fields {
			c.fields[k] = byType(int32(i), name)
		}
		c.renamed = make([]string, len(c.dump.statics))
		for k, sf := range c.dump.statics {
			c.renamed[k] = byType(int32(i), r.fieldName(sf.name))
		}
	}
}

// renameClasses has nothing to do: the reader's class names are the
// heap's types table.
func (r *hprofFile) renameClasses(func(string) string) {}

func (r *hprofFile) fieldName(id uint64) string {
	if s, ok := r.name(id); ok {
		return s
	}
	return fmt.Sprintf("field %#x", id)
}

func (r *hprofFile) field(n Node, decl, name string) (uint64, byte, bool) {
	ci, data, ok := r.instance(n)
	if !ok || ci < 0 {
		return 0, 0, false
	}
	var bits uint64
	var typ byte
	found := false
	off := 0
	r.eachField(ci, func(dc int32, fd fieldDecl, fname string) bool {
		size := typeSize(fd.typ, r.idSize)
		if off+size > len(data) {
			return false
		}
		if fname == name && (decl == "" || r.h.types[dc].name == decl) {
			bits, typ, found = readValue(data[off:], size), fd.typ, true
			return false
		}
		off += size
		return true
	})
	return bits, typ, found
}

func (r *hprofFile) arrayLength(n Node) (int, bool) {
	r.touch()
	off := r.offs.at(int(n))
	switch r.s.d[off] {
	case subObjectArray, subPrimitiveArray, subPrimitiveNoDat:
		return int(binary.BigEndian.Uint32(r.s.d[off+1+r.idSize+4:])), true
	}
	return 0, false
}

func (r *hprofFile) arrayElements(n Node, from, max int) []Field {
	count, ok := r.arrayLength(n)
	if !ok || from < 0 || from >= count {
		return nil
	}
	d := r.s.d
	off := r.offs.at(int(n))
	p := off + 1 + r.idSize + 8
	end := min(count, from+max)
	out := make([]Field, 0, end-from)
	switch d[off] {
	case subObjectArray:
		p += r.idSize
		for i := from; i < end; i++ {
			id := readID(d[p+i*r.idSize:], r.idSize)
			out = append(out, Field{Name: elementName(i), Type: "object", Bits: id, Ref: refNode(r.h, id), Strong: true})
		}
	case subPrimitiveArray:
		t := d[p]
		size := typeSize(t, r.idSize)
		for i := from; i < end; i++ {
			out = append(out, Field{Name: elementName(i), Type: typeNames[t], Bits: readValue(d[p+1+i*size:], size), Ref: -1})
		}
	}
	return out
}

// primitiveData returns a primitive array node's element type and bytes
// (nil for a NODATA array).
func (r *hprofFile) primitiveData(n Node) (byte, []byte, bool) {
	r.touch()
	off := r.offs.at(int(n))
	d := r.s.d
	tag := d[off]
	if tag != subPrimitiveArray && tag != subPrimitiveNoDat {
		return 0, nil, false
	}
	p := off + 1 + r.idSize + 4
	count := int(binary.BigEndian.Uint32(d[p:]))
	t := d[p+4]
	if tag == subPrimitiveNoDat {
		return t, nil, true
	}
	return t, d[p+5 : p+5+count*typeSize(t, r.idSize)], true
}

func (r *hprofFile) elementIndexes(a Node, want map[uint64]int32) {
	count, ok := r.arrayLength(a)
	off := r.offs.at(int(a))
	if !ok || r.s.d[off] != subObjectArray {
		return
	}
	p := off + 1 + r.idSize + 8 + r.idSize
	left := len(want)
	i := 0
	for ; i < count && left > 0; i++ {
		id := readID(r.s.d[p+i*r.idSize:], r.idSize)
		if at, ok := want[id]; ok && at < 0 {
			want[id] = int32(i)
			left--
		}
	}
	r.scanned.Add(uint64(i))
}

func (r *hprofFile) refName(a, b Node) string {
	id := r.h.ID(b)
	r.touch()
	off := r.offs.at(int(a))
	if r.s.d[off] == subObjectArray {
		want := map[uint64]int32{id: -1}
		if r.elementIndexes(a, want); want[id] >= 0 {
			return elementName(int(want[id]))
		}
		return ""
	}
	for _, f := range r.fields(a) {
		if f.Strong && f.Bits == id {
			return f.Name
		}
	}
	return ""
}
