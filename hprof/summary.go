package hprof

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// Summary is what Summarize learns from one pass over a file.
type Summary struct {
	Header     Header           `json:"header"`
	Size       int64            `json:"size"`        // bytes read
	Records    map[Tag]int64    `json:"records"`     // top-level records by tag
	SubRecords map[SubTag]int64 `json:"sub_records"` // heap-dump sub-records by tag
	Strings    int              `json:"strings"`     // distinct string ids
	Heaps      []HeapStats      `json:"heaps"`       // in order of first appearance
	// Classes has every class with at least one object, most objects first
	// (then most bytes, then by name). Primitive arrays are grouped by
	// element type under names such as "int[]", with Class 0.
	Classes []ClassStats `json:"classes"`
}

// HeapStats counts the objects of one heap. Objects before any HEAP DUMP
// INFO in a heap dump record belong to HeapDefault, as in hprof-conv.
type HeapStats struct {
	ID        uint32 `json:"id"`
	Name      string `json:"name"`      // "app", "image", "zygote", "default"
	Instances int64  `json:"instances"` // INSTANCE DUMPs
	Arrays    int64  `json:"arrays"`    // object and primitive array dumps (NODATA included)
	Bytes     int64  `json:"bytes"`     // shallow size of all of them
}

// ClassStats counts the objects of one class over all heaps. An object's
// shallow size is its class's instance size from the CLASS DUMP (the length
// of its field data when the class has no CLASS DUMP); an array's is its
// element count times the element size (the identifier size for object
// arrays), without the VM's array header.
type ClassStats struct {
	Class     ID     `json:"class"`
	Name      string `json:"name"`
	Instances int64  `json:"instances"` // objects of the class (arrays for array classes)
	Bytes     int64  `json:"bytes"`
}

// TopByCount returns the n classes with the most objects.
func (s *Summary) TopByCount(n int) []ClassStats {
	return slices.Clone(s.Classes[:min(n, len(s.Classes))])
}

// TopBySize returns the n classes with the largest shallow size.
func (s *Summary) TopBySize(n int) []ClassStats {
	c := slices.Clone(s.Classes)
	slices.SortStableFunc(c, func(a, b ClassStats) int { return cmp.Compare(b.Bytes, a.Bytes) })
	return c[:min(n, len(c))]
}

type tally struct{ count, bytes int64 }

// heapTally counts one heap's objects by class: instances and object
// arrays by class id, primitive arrays by element type.
type heapTally struct {
	id        uint32
	name      ID
	named     bool
	instances map[ID]*tally
	objArrays map[ID]*tally
	prims     [len(typeSizes)]tally
}

func (h *heapTally) add(m map[ID]*tally, class ID, bytes int64) {
	t := m[class]
	if t == nil {
		t = &tally{}
		m[class] = t
	}
	t.count++
	t.bytes += bytes
}

// Summarize reads a whole HPROF file (any version) and summarizes it. Its
// memory grows with the number of strings and classes, not objects.
func Summarize(r io.Reader) (*Summary, error) {
	hr, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	s := &Summary{Header: hr.Header(), Records: map[Tag]int64{}, SubRecords: map[SubTag]int64{}}
	strings := map[ID]string{}
	classNames := map[ID]ID{}
	instanceSize := map[ID]uint32{}
	var heaps []*heapTally // in order of first appearance
	var cur *heapTally     // nil until the record's first object or HEAP DUMP INFO
	curID := HeapDefault
	heap := func() *heapTally {
		if cur == nil {
			for _, h := range heaps {
				if h.id == curID {
					cur = h
				}
			}
			if cur == nil {
				cur = &heapTally{id: curID, instances: map[ID]*tally{}, objArrays: map[ID]*tally{}}
				heaps = append(heaps, cur)
			}
		}
		return cur
	}
	id := int64(hr.Header().IDSize)
	for {
		rec, err := hr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch v := rec.(type) {
		case *UTF8:
			s.Records[TagString]++
			strings[v.ID] = v.Text
		case *LoadClass:
			s.Records[TagLoadClass]++
			classNames[v.Class] = v.Name
		case *HeapDump:
			s.Records[hr.RecordInfo().Tag]++
			cur, curID = nil, HeapDefault
		case *RawRecord:
			s.Records[v.Tag]++
		case *Root:
			s.SubRecords[v.Kind]++
		case *HeapDumpInfo:
			s.SubRecords[SubHeapDumpInfo]++
			cur, curID = nil, v.Heap
			h := heap()
			h.name, h.named = v.Name, true
		case *ClassDump:
			s.SubRecords[SubClassDump]++
			instanceSize[v.Class] = v.InstanceSize
		case *InstanceDump:
			s.SubRecords[SubInstanceDump]++
			h := heap()
			h.add(h.instances, v.Class, int64(len(v.Data)))
		case *ObjectArrayDump:
			s.SubRecords[SubObjectArrayDump]++
			h := heap()
			h.add(h.objArrays, v.Class, int64(len(v.Elements))*id)
		case *PrimitiveArrayDump:
			if v.NoData {
				s.SubRecords[SubPrimitiveArrayNoData]++
			} else {
				s.SubRecords[SubPrimitiveArray]++
			}
			t := &heap().prims[v.Type]
			t.count++
			t.bytes += int64(v.Count) * int64(v.Type.Size(int(id)))
		default:
			s.Records[hr.RecordInfo().Tag]++
		}
	}
	s.Size = hr.src.off
	s.Strings = len(strings)

	type classKey struct {
		class ID
		prim  Type
	}
	classes := map[classKey]*ClassStats{}
	count := func(hs *HeapStats, k classKey, t tally, array bool) {
		if t.count == 0 {
			return
		}
		if size, ok := instanceSize[k.class]; ok && !array {
			t.bytes = t.count * int64(size)
		}
		if array {
			hs.Arrays += t.count
		} else {
			hs.Instances += t.count
		}
		hs.Bytes += t.bytes
		cs := classes[k]
		if cs == nil {
			cs = &ClassStats{Class: k.class}
			nameID, loaded := classNames[k.class]
			name, named := strings[nameID]
			switch {
			case k.prim != 0:
				cs.Name = k.prim.String() + "[]"
			case loaded && named:
				cs.Name = name
			default:
				cs.Name = fmt.Sprintf("class@%#x", uint64(k.class))
			}
			classes[k] = cs
		}
		cs.Instances += t.count
		cs.Bytes += t.bytes
	}
	for _, h := range heaps {
		hs := HeapStats{ID: h.id, Name: defaultHeapName(h.id)}
		if name, ok := strings[h.name]; ok && h.named {
			hs.Name = name
		}
		for class, t := range h.instances {
			count(&hs, classKey{class: class}, *t, false)
		}
		for class, t := range h.objArrays {
			count(&hs, classKey{class: class}, *t, true)
		}
		for typ, t := range h.prims {
			count(&hs, classKey{prim: Type(typ)}, t, true)
		}
		s.Heaps = append(s.Heaps, hs)
	}
	for _, cs := range classes {
		s.Classes = append(s.Classes, *cs)
	}
	slices.SortFunc(s.Classes, func(a, b ClassStats) int {
		return cmp.Or(cmp.Compare(b.Instances, a.Instances), cmp.Compare(b.Bytes, a.Bytes),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Class, b.Class))
	})
	return s, nil
}

func defaultHeapName(h uint32) string {
	switch h {
	case HeapApp:
		return "app"
	case HeapImage:
		return "image"
	case HeapZygote:
		return "zygote"
	case HeapDefault:
		return "default"
	}
	return fmt.Sprintf("heap %#x", h)
}

// WriteText prints the summary for a terminal: the header, record counts,
// heaps, and the top classes by count and by size. Names from the file are
// escaped (safetext.Terminal), so they cannot carry control sequences.
func (s *Summary) WriteText(w io.Writer, top int) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	p("%s\tid size %d\t%s\t%d bytes\t\n", s.Header.Version, s.Header.IDSize,
		s.Header.Time().UTC().Format("2006-01-02 15:04:05.000 UTC"), s.Size)
	p("\n")
	for _, t := range slices.Sorted(maps.Keys(s.Records)) {
		p("%s\t%d\t\n", t, s.Records[t])
	}
	for _, t := range slices.Sorted(maps.Keys(s.SubRecords)) {
		p("  %s\t%d\t\n", t, s.SubRecords[t])
	}
	p("\nheap\tinstances\tarrays\tshallow bytes\t\n")
	for _, h := range s.Heaps {
		p("%s\t%d\t%d\t%d\t\n", safetext.Terminal(h.Name), h.Instances, h.Arrays, h.Bytes)
	}
	for _, part := range []struct {
		title string
		list  []ClassStats
	}{{"by count", s.TopByCount(top)}, {"by shallow size", s.TopBySize(top)}} {
		p("\ntop classes %s\tobjects\tbytes\t\n", part.title)
		for _, c := range part.list {
			p("%s\t%d\t%d\t\n", safetext.Terminal(c.Name), c.Instances, c.Bytes)
		}
	}
	return tw.Flush()
}
