package analysis

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

// strContent locates a String's characters: its value array's elements
// [start, start+count), UTF-16 when wide.
type strContent struct {
	node  Node
	arr   Node
	start int
	count int
	wide  bool
	hash  uint64
}

// stringContent applies D13's rules to a String instance.
func (h *Heap) stringContent(x Node) (strContent, bool) {
	v, typ, ok := h.field(x, "", "value")
	if !ok || !isObjectType(typ) {
		return strContent{}, false
	}
	arr := h.refNode(v)
	if arr < 0 {
		return strContent{}, false
	}
	t, data, ok := h.primitiveData(arr)
	if !ok || data == nil || (t != typeChar && t != typeByte) {
		return strContent{}, false
	}
	sc := strContent{node: x, arr: arr, wide: t == typeChar}
	length := len(data)
	if sc.wide {
		length /= 2
	}
	count := length
	if c, ct, ok := h.field(x, "", "count"); ok && ct == typeInt {
		count = int(int32(c))
	}
	offset := 0
	if o, ot, ok := h.field(x, "", "offset"); ok && ot == typeInt {
		offset = int(int32(o))
	}
	if offset < 0 || count < 0 || offset > length || count > length-offset {
		offset, count = 0, length
	}
	sc.start, sc.count = offset, count
	return sc, true
}

// units returns the content's UTF-16 code units, Latin-1 widened.
func (h *Heap) units(sc strContent, buf []uint16) []uint16 {
	_, data, _ := h.primitiveData(sc.arr)
	buf = buf[:0]
	if sc.wide {
		for i := sc.start; i < sc.start+sc.count; i++ {
			buf = append(buf, binary.BigEndian.Uint16(data[2*i:]))
		}
		return buf
	}
	for _, b := range data[sc.start : sc.start+sc.count] {
		buf = append(buf, uint16(b))
	}
	return buf
}

func unitsString(u []uint16) string {
	b := make([]byte, 0, len(u))
	for _, r := range utf16.Decode(u) {
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// StringValue returns a String instance's content (D13), and false when it
// has no value array.
func (h *Heap) StringValue(x Node) (string, bool) {
	sc, ok := h.stringContent(x)
	if !ok {
		return "", false
	}
	return unitsString(h.units(sc, nil)), true
}

// DuplicateStrings returns the groups of 2 or more reachable strings with
// equal content, by wasted bytes descending, then count descending, then
// content (D13).
func (h *Heap) DuplicateStrings() []DuplicateString {
	progress := h.phase("strings")
	seed := maphash.MakeSeed()
	var all []strContent
	var buf []uint16
	for _, x := range h.instancesOf(func(ci int32) bool { return h.classes[ci].name == nameString }) {
		sc, ok := h.stringContent(x)
		if !ok {
			continue
		}
		buf = h.units(sc, buf)
		sc.hash = maphash.Bytes(seed, unitBytes(buf))
		all = append(all, sc)
	}
	if progress != nil {
		progress(0.5)
	}
	slices.SortFunc(all, func(a, b strContent) int {
		return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.node, b.node))
	})
	var out []DuplicateString
	var other []uint16
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].hash == all[i].hash {
			j++
		}
		if j-i >= 2 {
			out = h.groupEqual(out, all[i:j], buf, other)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b DuplicateString) int {
		return cmp.Or(cmp.Compare(b.Wasted, a.Wasted), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Value, b.Value))
	})
	h.m.release(0, len(h.m.data))
	if progress != nil {
		progress(1)
	}
	return out
}

// groupEqual splits strings with one hash into groups of equal content
// (a hash collision gives more than one) and appends the duplicates.
func (h *Heap) groupEqual(out []DuplicateString, run []strContent, a, b []uint16) []DuplicateString {
	used := make([]bool, len(run))
	for i := range run {
		if used[i] {
			continue
		}
		a = h.units(run[i], a)
		members := []Node{run[i].node}
		sizes := []uint64{h.Shallow(run[i].arr)}
		for j := i + 1; j < len(run); j++ {
			if used[j] || run[j].count != run[i].count {
				continue
			}
			b = h.units(run[j], b)
			if slices.Equal(a, b) {
				used[j] = true
				members = append(members, run[j].node)
				sizes = append(sizes, h.Shallow(run[j].arr))
			}
		}
		if len(members) < 2 {
			continue
		}
		var total uint64
		for _, s := range sizes {
			total += s
		}
		slices.Sort(members)
		out = append(out, DuplicateString{Value: unitsString(a), Count: len(members),
			Wasted: total - slices.Min(sizes), Members: members})
	}
	return out
}

func unitBytes(u []uint16) []byte {
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}
