package hprofref

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ddmtui/ddmtui/hprof"
)

// field returns the first field named name in n's data order, declared by
// class decl when decl != 0.
func (d *Dump) field(n *Node, decl uint64, name string) (FieldValue, bool) {
	for _, f := range d.Fields(n) {
		if f.Name == name && (decl == 0 || f.Decl == decl) {
			return f, true
		}
	}
	return FieldValue{}, false
}

// leaks finds leaked Activities and Fragments (D12), by retained size
// descending, then id.
func (a *Analysis) leaks() []Leak {
	d := a.D
	var out []Leak
	for _, id := range d.Order {
		n := d.Nodes[id]
		if n.Kind != KindInstance || !a.Reachable(id) {
			continue
		}
		kind, reason := "", ""
		if act := d.declaring(n.Class, "android.app.Activity"); act != 0 {
			destroyed, _ := d.field(n, act, "mDestroyed")
			finished, _ := d.field(n, act, "mFinished")
			switch {
			case destroyed.Value != 0:
				kind, reason = "activity", "destroyed"
			case finished.Value != 0:
				kind, reason = "activity", "finished"
			}
		}
		for _, base := range []string{"android.app.Fragment", "androidx.fragment.app.Fragment"} {
			if frag := d.declaring(n.Class, base); frag != 0 {
				if m, ok := d.field(n, frag, "mFragmentManager"); ok && m.Value == 0 {
					kind, reason = "fragment", "detached"
				}
			}
		}
		if kind == "" {
			continue
		}
		out = append(out, Leak{ID: HexID(id), Class: d.ClassName(n), Kind: kind, Reason: reason,
			Retained: a.Retained[id], Path: a.Path(id)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Retained != out[j].Retained {
			return out[i].Retained > out[j].Retained
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// StringValue decodes a java.lang.String instance (D13): the characters of
// its value array in [offset, offset+count), or the whole array when that
// range does not fit. ok is false when value names no char[] or byte[].
func (d *Dump) StringValue(n *Node) (s string, value *Node, ok bool) {
	v, found := d.field(n, 0, "value")
	if !found {
		return "", nil, false
	}
	arr := d.Nodes[v.Value]
	if arr == nil || arr.Kind != KindPrimArray || (arr.ElemType != hprof.TypeChar && arr.ElemType != hprof.TypeByte) {
		return "", nil, false
	}
	if arr.Data == nil && arr.Length > 0 {
		return "", nil, false // PRIMITIVE ARRAY NODATA: no characters to compare
	}
	count, offset := int64(arr.Length), int64(0)
	if c, has := d.field(n, 0, "count"); has && c.Type == hprof.TypeInt {
		count = int64(int32(c.Value))
	}
	if o, has := d.field(n, 0, "offset"); has && o.Type == hprof.TypeInt {
		offset = int64(int32(o.Value))
	}
	if offset < 0 || count < 0 || offset+count > int64(arr.Length) {
		offset, count = 0, int64(arr.Length)
	}
	if arr.ElemType == hprof.TypeByte {
		runes := make([]rune, 0, count)
		for _, b := range arr.Data[offset : offset+count] {
			runes = append(runes, rune(b)) // Latin-1
		}
		return string(runes), arr, true
	}
	units := make([]uint16, 0, count)
	for i := offset; i < offset+count && 2*i+1 < int64(len(arr.Data)); i++ {
		units = append(units, binary.BigEndian.Uint16(arr.Data[2*i:]))
	}
	return string(utf16.Decode(units)), arr, true
}

// duplicateStrings groups reachable strings by content (D13).
func (a *Analysis) duplicateStrings() []DuplicateString {
	d := a.D
	type group struct {
		count        int
		total, least uint64
		arrays       map[uint64]bool // value arrays counted: each once
	}
	groups := map[string]*group{}
	for _, id := range d.Order {
		n := d.Nodes[id]
		if n.Kind != KindInstance || !a.Reachable(id) || d.ClassName(n) != "java.lang.String" {
			continue
		}
		s, arr, ok := d.StringValue(n)
		if !ok {
			continue
		}
		size := d.Shallow(arr)
		g := groups[s]
		if g == nil {
			g = &group{least: size, arrays: map[uint64]bool{}}
			groups[s] = g
		}
		g.count++
		if !g.arrays[arr.ID] { // copies sharing one array waste nothing
			g.arrays[arr.ID] = true
			g.total += size
			g.least = min(g.least, size)
		}
	}
	var out []DuplicateString
	for s, g := range groups {
		if g.count >= 2 {
			// (count-1) x size when the arrays are alike and distinct; in
			// general the distinct arrays' total minus the smallest.
			out = append(out, DuplicateString{Value: s, Count: g.count, Wasted: g.total - g.least})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Wasted != b.Wasted {
			return a.Wasted > b.Wasted
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Value < b.Value
	})
	return out
}

// bitmaps lists the reachable android.graphics.Bitmap instances (D14), by
// id.
func (a *Analysis) bitmaps() []Bitmap {
	d := a.D
	// Bitmap.dumpData (API 35+): the DumpData instance, if any.
	var dump *Node
	for cid, name := range d.ClassNames {
		if name != "android.graphics.Bitmap" || d.Classes[cid] == nil {
			continue
		}
		for _, s := range d.Classes[cid].Statics {
			if s.Name == "dumpData" && isObjectType(s.Type) {
				if n := d.Nodes[s.Value]; n != nil && n.Kind == KindInstance {
					dump = n
				}
			}
		}
	}
	var out []Bitmap
	for _, id := range d.Order {
		n := d.Nodes[id]
		if n.Kind != KindInstance || !a.Reachable(id) || !d.IsSubclass(n.Class, "android.graphics.Bitmap") {
			continue
		}
		w, _ := d.field(n, 0, "mWidth")
		h, _ := d.field(n, 0, "mHeight")
		bm := Bitmap{ID: HexID(id), Width: int(int32(w.Value)), Height: int(int32(h.Value))}
		if buf, ok := d.field(n, 0, "mBuffer"); ok && d.isByteArray(buf.Value) {
			bm.PixelsInDump, bm.PixelBytes, bm.Source, bm.Format = true, uint64(d.Nodes[buf.Value].Length), "mBuffer", "raw"
		} else if dump != nil {
			ptr, hasPtr := d.field(n, 0, "mNativePtr")
			count, _ := d.field(dump, 0, "count")
			format, _ := d.field(dump, 0, "format")
			natives, _ := d.field(dump, 0, "natives")
			buffers, _ := d.field(dump, 0, "buffers")
			nat, bufs := d.Nodes[natives.Value], d.Nodes[buffers.Value]
			if hasPtr && nat != nil && nat.Kind == KindPrimArray && nat.ElemType == hprof.TypeLong && nat.Data != nil &&
				bufs != nil && bufs.Kind == KindObjArray {
				for i := 0; i < int(int32(count.Value)) && i < nat.Length && i < len(bufs.Elems); i++ {
					if int64(binary.BigEndian.Uint64(nat.Data[8*i:])) == int64(ptr.Value) && d.isByteArray(bufs.Elems[i]) {
						bm.PixelsInDump, bm.PixelBytes, bm.Source = true, uint64(d.Nodes[bufs.Elems[i]].Length), "dumpData"
						bm.Format = map[uint64]string{0: "jpeg", 1: "png", 2: "webp", 3: "webp", 4: "webp"}[format.Value]
						break
					}
				}
			}
		}
		out = append(out, bm)
	}
	return out
}

func (d *Dump) isByteArray(id uint64) bool {
	n := d.Nodes[id]
	return n != nil && n.Kind == KindPrimArray && n.ElemType == hprof.TypeByte
}

// HexID is an id written as a lower-case hex string in JSON ("0x12c0a1b0").
type HexID uint64

// MarshalText writes the id as "0x...".
func (h HexID) MarshalText() ([]byte, error) { return []byte(fmt.Sprintf("%#x", uint64(h))), nil }

// UnmarshalText reads "0x..." ids.
func (h *HexID) UnmarshalText(b []byte) error {
	v, err := strconv.ParseUint(strings.TrimPrefix(string(b), "0x"), 16, 64)
	*h = HexID(v)
	return err
}

// Result is the JSON of `ddmtui hprof analyze --json` (spec: JSON).
type Result struct {
	Heaps            []Heap            `json:"heaps"`
	Classes          []Class           `json:"classes"`
	Dominators       []Dominator       `json:"dominators"`
	Leaks            []Leak            `json:"leaks"`
	DuplicateStrings []DuplicateString `json:"duplicate_strings"`
	Bitmaps          []Bitmap          `json:"bitmaps"`
}

// Heap is a heap's totals (D15).
type Heap struct {
	Name    string `json:"name"`
	Objects int    `json:"objects"`
	Bytes   uint64 `json:"bytes"`
}

// Class is a row of the class histogram (D9).
type Class struct {
	Name               string `json:"name"`
	Instances          int    `json:"instances"`
	Shallow            uint64 `json:"shallow"`
	Retained           uint64 `json:"retained"`
	ReachableInstances int    `json:"reachable_instances"`
	ReachableShallow   uint64 `json:"reachable_shallow"`
}

// Dominator is a top-level node of the dominator tree (D10).
type Dominator struct {
	ID       HexID  `json:"id"`
	Class    string `json:"class"`
	Retained uint64 `json:"retained"`
}

// Leak is a leaked Activity or Fragment (D12).
type Leak struct {
	ID       HexID  `json:"id"`
	Class    string `json:"class"`
	Kind     string `json:"kind"`
	Reason   string `json:"reason"`
	Retained uint64 `json:"retained"`
	Path     []Hop  `json:"path"`
}

// Hop is an element of a path (D11); Field is nil for the first.
type Hop struct {
	Class string  `json:"class"`
	ID    HexID   `json:"id"`
	Field *string `json:"field"`
}

// DuplicateString is a group of equal strings (D13).
type DuplicateString struct {
	Value  string `json:"value"`
	Count  int    `json:"count"`
	Wasted uint64 `json:"wasted"`
}

// Bitmap is a reachable bitmap (D14).
type Bitmap struct {
	ID           HexID  `json:"id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	PixelBytes   uint64 `json:"pixel_bytes"`
	PixelsInDump bool   `json:"pixels_in_dump"`
	Source       string `json:"source,omitempty"`
	Format       string `json:"format,omitempty"`
}

// Paths is the JSON of `ddmtui hprof path FILE ID --json`.
type Paths struct {
	Paths []PathEntry `json:"paths"`
}

// PathEntry is one object's path.
type PathEntry struct {
	ID   HexID `json:"id"`
	Path []Hop `json:"path"`
}

// DiffResult is the JSON of `ddmtui hprof diff OLD NEW --json`.
type DiffResult struct {
	Diff []DiffRow `json:"diff"`
}

// DiffRow is one class's change (D16).
type DiffRow struct {
	Name           string `json:"name"`
	InstancesDelta int64  `json:"instances_delta"`
	ShallowDelta   int64  `json:"shallow_delta"`
	RetainedDelta  int64  `json:"retained_delta"`
}
