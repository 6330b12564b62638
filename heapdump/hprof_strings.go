package heapdump

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// DuplicateString is a group of reachable strings with equal content (D13).
type DuplicateString struct {
	Value   string // the content, UTF-8 (unpaired surrogates as U+FFFD)
	Count   int
	Wasted  uint64
	Members []Node // the String instances, in node order
}

// Wasting returns the groups of dups (sorted as Duplicates sorts them) that
// waste bytes: a group whose copies share one value array, or are empty
// (""), is a duplicate by D13 and listed in the JSON, but the text report
// and the viewer leave it out, as it wastes nothing.
func Wasting(dups []DuplicateString) []DuplicateString {
	n := 0
	for n < len(dups) && dups[n].Wasted > 0 {
		n++
	}
	return dups[:n]
}

// strContent locates a String's characters: its value array's elements
// [start, start+count), UTF-16 when wide.
type strContent struct {
	hash  uint64
	hash2 uint64
	node  Node
	arr   Node
	start int32
	count int32
	wide  bool
}

// Strings is the query of strings' contents (D13).
type Strings struct{ h *Heap }

// Strings returns the strings' query.
func (h *Heap) Strings() Strings { return Strings{h} }

// Unavailable says why the dump cannot tell strings' contents ("" when
// it can).
func (q Strings) Unavailable() string { return q.h.Unavailable() }

// hprof returns the HPROF reader, the one that holds strings' contents.
func (q Strings) hprof() (*hprofFile, bool) {
	r, ok := q.h.vals.(*hprofFile)
	return r, ok
}

// Value returns a String instance's content (D13), and false when it has
// no value array or the dump holds no contents.
func (q Strings) Value(x Node) (string, bool) {
	r, ok := q.hprof()
	if !ok {
		return "", false
	}
	sc, ok := r.stringContent(x)
	if !ok {
		return "", false
	}
	r.touch()
	return unitsString(r.unitsOf(sc, nil)), true
}

// Duplicates returns the groups of 2 or more reachable strings with equal
// content, by wasted bytes descending, then count descending, then content
// (D13); nil when the dump holds no contents (Unavailable).
func (q Strings) Duplicates() []DuplicateString {
	r, ok := q.hprof()
	if !ok {
		return nil
	}
	return r.duplicateStrings()
}

// stringContent applies D13's rules to a String instance.
func (r *hprofFile) stringContent(x Node) (strContent, bool) {
	ci, data, ok := r.instance(x)
	if !ok || ci < 0 {
		return strContent{}, false
	}
	return r.locateContent(x, data, r.stringLayout(ci))
}

func unitsString(u []uint16) string {
	b := make([]byte, 0, len(u))
	for _, r := range utf16.Decode(u) {
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// stringFields locates a String class's value, count and offset fields in
// its instance data (D13), -1 when absent.
type stringFields struct {
	value, count, offset int
}

func (r *hprofFile) stringLayout(ci int32) stringFields {
	sf := stringFields{-1, -1, -1}
	off := 0
	r.eachField(ci, func(_ int32, f fieldDecl, name string) bool {
		switch {
		case name == "value" && isObjectType(f.typ) && sf.value < 0:
			sf.value = off
		case name == "count" && f.typ == typeInt && sf.count < 0:
			sf.count = off
		case name == "offset" && f.typ == typeInt && sf.offset < 0:
			sf.offset = off
		}
		off += typeSize(f.typ, r.idSize)
		return true
	})
	return sf
}

// duplicateStrings finds the groups of Strings.Duplicates. The file is read in two sequential passes (the strings,
// then their value arrays in file order), so the pages read can be given
// back behind the reading; contents are compared by length and a 128-bit
// hash.
func (r *hprofFile) duplicateStrings() []DuplicateString {
	h := r.h
	progress := phase(h, "strings")
	layouts := map[int32]stringFields{}
	isString := make([]bool, len(h.types))
	for t := range h.types {
		isString[t] = h.types[t].name == nameString
	}
	strs := instancesOf(h, isString)
	all := make([]strContent, 0, len(strs))
	seq := r.sequential()
	d, idSize := r.s.d, r.idSize
	for _, x := range strs {
		off := r.offs.at(int(x))
		seq.at(off)
		p := off + 1 + idSize + 4
		ci, ok := r.classByI[r.s.id(p)]
		if !ok {
			continue
		}
		lay, ok := layouts[ci]
		if !ok {
			lay = r.stringLayout(ci)
			layouts[ci] = lay
		}
		length := int(binary.BigEndian.Uint32(d[p+idSize:]))
		data := d[p+idSize+4 : p+idSize+4+length]
		if sc, ok := r.locateContent(x, data, lay); ok {
			all = append(all, sc)
		}
	}
	strs = nil
	if progress != nil {
		progress(0.3)
	}
	// Hash each content, reading the value arrays in file order.
	slices.SortFunc(all, func(a, b strContent) int { return cmp.Compare(a.arr, b.arr) })
	seq = r.sequential()
	var h1, h2 maphash.Hash
	for i := range all {
		sc := &all[i]
		data := r.arrayBytes(sc.arr, seq)
		h1.Reset()
		h2.Reset()
		h2.WriteByte(0x5a)
		unit := 1
		if sc.wide {
			unit = 2
		}
		b := data[int(sc.start)*unit : int(sc.start+sc.count)*unit]
		if sc.wide {
			h1.Write(b)
			h2.Write(b)
		} else { // Latin-1 hashes as UTF-16, to equal a char[] with the same text
			for _, c := range b {
				h1.WriteByte(0)
				h1.WriteByte(c)
				h2.WriteByte(0)
				h2.WriteByte(c)
			}
		}
		sc.hash, sc.hash2 = h1.Sum64(), h2.Sum64()
	}
	if progress != nil {
		progress(0.6)
	}
	slices.SortFunc(all, func(a, b strContent) int {
		return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.hash2, b.hash2), cmp.Compare(a.count, b.count), cmp.Compare(a.node, b.node))
	})
	var out []DuplicateString
	var firsts []strContent // each group's first member, for its content
	var arrays []Node
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].hash == all[i].hash && all[j].hash2 == all[i].hash2 && all[j].count == all[i].count {
			j++
		}
		if j-i >= 2 {
			// The waste is the value arrays' but the smallest, each array
			// once: copies that share one array (new String(s)) waste
			// nothing.
			members := make([]Node, j-i)
			arrays = arrays[:0]
			for k := i; k < j; k++ {
				members[k-i] = all[k].node
				arrays = append(arrays, all[k].arr)
			}
			slices.Sort(arrays)
			var total, least uint64
			for k, a := range slices.Compact(arrays) {
				size := h.Shallow(a)
				total += size
				if k == 0 || size < least {
					least = size
				}
			}
			slices.Sort(members)
			out = append(out, DuplicateString{Count: j - i, Wasted: total - least, Members: members})
			firsts = append(firsts, all[i])
		}
		i = j
	}
	all = nil
	// The contents, reading the arrays in file order again.
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(firsts[a].arr, firsts[b].arr) })
	seq = r.sequential()
	var buf []uint16
	for _, i := range order {
		r.arrayBytes(firsts[i].arr, seq)
		buf = r.unitsOf(firsts[i], buf)
		out[i].Value = unitsString(buf)
	}
	r.released()
	slices.SortFunc(out, func(a, b DuplicateString) int {
		return cmp.Or(cmp.Compare(b.Wasted, a.Wasted), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Value, b.Value))
	})
	if progress != nil {
		progress(1)
	}
	return out
}

// locateContent applies D13's offset and count rules to a String's field
// data.
func (r *hprofFile) locateContent(x Node, data []byte, lay stringFields) (strContent, bool) {
	h := r.h
	if lay.value < 0 || lay.value+r.idSize > len(data) {
		return strContent{}, false
	}
	arr := refNode(h, readID(data[lay.value:], r.idSize))
	if arr < 0 || h.kinds[arr] != subPrimitiveArray {
		return strContent{}, false
	}
	off := r.offs.at(int(arr))
	p := off + 1 + r.idSize + 4
	length := int(binary.BigEndian.Uint32(r.s.d[p:]))
	t := r.s.d[p+4]
	if t != typeChar && t != typeByte {
		return strContent{}, false
	}
	count, offset := length, 0
	if lay.count >= 0 && lay.count+4 <= len(data) {
		count = int(int32(binary.BigEndian.Uint32(data[lay.count:])))
	}
	if lay.offset >= 0 && lay.offset+4 <= len(data) {
		offset = int(int32(binary.BigEndian.Uint32(data[lay.offset:])))
	}
	if offset < 0 || count < 0 || offset > length || count > length-offset {
		offset, count = 0, length
	}
	return strContent{node: x, arr: arr, start: int32(offset), count: int32(count), wide: t == typeChar}, true
}

// arrayBytes returns a primitive array's element bytes, reading through a
// sequential walk.
func (r *hprofFile) arrayBytes(n Node, seq *sequential) []byte {
	off := r.offs.at(int(n))
	seq.at(off)
	p := off + 1 + r.idSize + 4
	count := int(binary.BigEndian.Uint32(r.s.d[p:]))
	t := r.s.d[p+4]
	return r.s.d[p+5 : p+5+count*typeSize(t, r.idSize)]
}

// unitsOf returns the content's UTF-16 code units without counting a read.
func (r *hprofFile) unitsOf(sc strContent, buf []uint16) []uint16 {
	data := r.arrayBytes(sc.arr, &sequential{})
	buf = buf[:0]
	if sc.wide {
		for i := int(sc.start); i < int(sc.start+sc.count); i++ {
			buf = append(buf, binary.BigEndian.Uint16(data[2*i:]))
		}
		return buf
	}
	for _, b := range data[sc.start : sc.start+sc.count] {
		buf = append(buf, uint16(b))
	}
	return buf
}

// sequential gives back the file's pages behind a walk whose offsets
// mostly grow.
type sequential struct {
	m        *mapping
	released int
}

func (r *hprofFile) sequential() *sequential { return &sequential{m: r.m} }

func (s *sequential) at(off int) {
	if s.m == nil {
		return
	}
	const behind = 1 << 20
	if off-s.released > 2*behind {
		s.m.release(s.released, off-behind)
		s.released = off - behind
	} else if off < s.released-behind { // went back: start over there
		s.released = max(off-behind, 0)
	}
}
