// Package heapfile opens a heap dump file of either form ddmtui reads, told
// apart by its first bytes, not its name: an HPROF file (heapdump.Open) or
// a Perfetto trace holding Java heap graphs (perfetto/heapgraph), which is
// fed to the same model through heapdump.Builder. Both give a
// *heapdump.Heap; what a heap graph cannot carry (primitive values) the
// heap's queries report as unavailable.
package heapfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

// Format is the form of a heap dump file.
type Format int

// The forms Open reads.
const (
	FormatUnknown   Format = iota
	FormatHPROF            // "JAVA PROFILE 1.0.x"
	FormatHeapGraph        // a Perfetto trace (TracePacket stream)
)

// Version is the Heap.Version of a heap read from a heap graph.
const Version = "perfetto heap graph"

// Options tune Open.
type Options struct {
	// PID chooses the dump of this process in a trace holding heap graphs
	// of several processes (0: the trace must hold one dump).
	PID int32
	// Progress is passed to the model (heapdump.Options.Progress); a heap
	// graph adds the phase "decode".
	Progress func(phase string, fraction float64)
}

// DumpsError is returned for a trace that holds several heap graphs when
// Options.PID does not choose one (or chooses a process with several).
type DumpsError struct {
	PID   int32    // the pid asked for, 0 for none
	Dumps []string // one line per dump (heapgraph.Graph.String)
}

func (e *DumpsError) Error() string {
	var b strings.Builder
	if e.PID != 0 {
		fmt.Fprintf(&b, "the trace holds %d heap graphs of pid %d; ddmtui reads one at a time:", len(e.Dumps), e.PID)
	} else {
		fmt.Fprintf(&b, "the trace holds %d heap graphs; choose one with --pid:", len(e.Dumps))
	}
	for _, d := range e.Dumps {
		b.WriteString("\n  ")
		b.WriteString(d)
	}
	return b.String()
}

// Sniff tells the form of a heap dump from its first bytes.
func Sniff(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, []byte("JAVA PROFILE")):
		return FormatHPROF
	// Trace.packet (field 1, length-delimited) is the first byte of every
	// Perfetto trace file.
	case len(head) > 0 && head[0] == 0x0a:
		return FormatHeapGraph
	}
	return FormatUnknown
}

// SniffFile reads the first bytes of path and tells its form.
func SniffFile(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return FormatUnknown, err
	}
	defer f.Close()
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return FormatUnknown, err
	}
	return Sniff(head[:n]), nil
}

// Open analyses the heap dump in path, of either form. Anything that is
// not a Perfetto trace goes to heapdump.Open, whose errors name what is
// wrong with an HPROF file.
func Open(path string, opts Options) (*heapdump.Heap, error) {
	format, err := SniffFile(path)
	if err != nil {
		return nil, err
	}
	if format != FormatHeapGraph {
		return heapdump.Open(path, heapdump.Options{Progress: opts.Progress})
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadHeapGraph(f, opts)
}

// ReadHeapGraph decodes the trace r holds and analyses its heap graph.
func ReadHeapGraph(r io.Reader, opts Options) (*heapdump.Heap, error) {
	if opts.Progress != nil {
		opts.Progress("decode", 0)
	}
	tr, err := heapgraph.Read(r, heapgraph.Options{PID: opts.PID})
	if err != nil {
		return nil, err
	}
	if len(tr.Dumps) != 1 {
		e := &DumpsError{PID: opts.PID}
		for _, g := range tr.Dumps {
			e.Dumps = append(e.Dumps, g.String())
		}
		return nil, e
	}
	g := tr.Dumps[0]
	tr = nil
	b, err := Feed(g, heapdump.Options{Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	// The decoded graph is garbage now: give it back before the model's
	// own phases allocate theirs (the peak is one of them, not both).
	g = nil
	runtime.GC()
	return b.Finish()
}

// Feed gives a decoded heap graph to a new Builder, node by node, as the
// model takes it (spec/perfetto-heapgraph.md "Against hprof-analysis"):
// each graph type a type (a class object's synthetic `java.lang.Class<X>`
// stands for X: its object is a java.lang.Class, as HPROF's D3 names it),
// each object once with its references (an instance's named by its class
// chain where the graph's names are that chain's, else by the graph's own
// names), and the roots of Graph.Model: the root records, every class
// object and every zygote and boot-image object. Call Finish on the
// Builder. Feed consumes g: where its ids do not repeat (the usual case)
// the Builder keeps the graph's id and reference arrays rather than
// copying them (Builder.Reuse), and its field ids are dropped; g must
// not be used afterwards.
func Feed(g *heapgraph.Graph, opts heapdump.Options) (*heapdump.Builder, error) {
	b := heapdump.NewBuilder(Version, opts)
	classType := uint64(0) // the type of class objects: java.lang.Class
	for i, t := range g.Types {
		if t.Name == "java.lang.Class" {
			classType = uint64(i) + 1
			break
		}
	}
	if classType == 0 {
		classType = uint64(len(g.Types)) + 1
		b.Type(heapdump.Type{ID: classType, Name: "java.lang.Class"})
	}
	// Android 11 writes per-object field names and leaves null references
	// out; from 12 a type lists its own reference fields and instances
	// carry every value, null ones too. An Android 11 graph is given the
	// later form: each class's fields are those its instances name (in the
	// order first seen), so the Builder needs no names per object and a
	// field left out is null (D12's detached Fragment is a null
	// mFragmentManager, which the Fragment classes always declare).
	perType := false
	for _, t := range g.Types {
		perType = perType || len(t.RefFields) > 0
	}
	var declared map[string][]string
	if !perType {
		declared = declaredFields(g)
	}
	// chain[i] is type i's reference fields over its superclasses: an
	// instance whose references are named so needs no names of its own.
	chain := make([][]heapgraph.Edge, len(g.Types))
	for i, t := range g.Types {
		mt := heapdump.Type{ID: uint64(i) + 1, Name: t.Name, InstanceSize: t.ObjectSize}
		if t.Super >= 0 {
			mt.Super = uint64(t.Super) + 1
		}
		if perType {
			for _, f := range t.RefFields {
				_, _, name := heapgraph.SplitFieldName(g.FieldName(f))
				mt.RefFields = append(mt.RefFields, name)
			}
		} else {
			mt.RefFields = declared[t.Name]
		}
		b.Type(mt)
		var c []heapgraph.Edge
		for s := int32(i); s >= 0; s = g.Types[s].Super {
			if perType {
				for _, f := range g.Types[s].RefFields {
					_, decl, name := heapgraph.SplitFieldName(g.FieldName(f))
					c = append(c, heapgraph.Edge{Field: name, Decl: decl})
				}
			} else {
				for _, name := range declared[g.Types[s].Name] {
					c = append(c, heapgraph.Edge{Field: name, Decl: g.Types[s].Name})
				}
			}
		}
		chain[i] = c
	}
	if perType && noRepeats(g.ID) {
		feedColumns(b, g, classType, chain)
		return b, nil
	}
	m := g.Model()
	b.Grow(len(g.ID), len(g.Refs), len(m.Roots))
	var (
		refs  []uint64
		laid  []uint64
		names []string
	)
	err := g.EachNode(func(n *heapgraph.Node) error {
		c := m.Classes[n.Class]
		o := heapdump.Object{ID: n.ID, Type: uint64(n.Class) + 1, Kind: heapdump.KindInstance, Size: n.Shallow, Heap: n.Heap}
		refs = refs[:0]
		for _, e := range n.Edges {
			refs = append(refs, e.To)
		}
		o.Refs = refs
		switch {
		case c.ClassObject:
			o.Kind, o.Type = heapdump.KindClass, classType
			if c.ClassOf >= 0 {
				o.ClassOf = uint64(c.ClassOf) + 1
			}
			o.RefFields = edgeNames(n.Edges, &names)
		case c.Kind == heapgraph.KindArray:
			// An array without references may be of a primitive type:
			// the element type is in its name.
			if len(n.Edges) == 0 && isPrimitiveArray(c.Name) {
				o.Kind = heapdump.KindPrimitiveArray
			} else {
				o.Kind = heapdump.KindObjectArray
			}
		default:
			switch {
			case sameNames(n.Edges, chain[n.Class]):
			case !perType && layOut(n.Edges, chain[n.Class], &laid):
				o.Refs = laid
			default:
				o.RefFields = edgeNames(n.Edges, &names)
			}
		}
		b.Object(o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range m.Roots {
		b.RootOf(r.ID, r.Type.HprofTag())
	}
	return b, nil
}

// noRepeats reports whether no id repeats, with a bitmap of the ids in
// pages of 64 Ki ids (ART's ids are addresses divided by the alignment,
// dense within a few regions: about one bit an object).
func noRepeats(ids []uint64) bool {
	pages := map[uint64]*[1024]uint64{}
	var (
		lastKey  = ^uint64(0)
		lastPage *[1024]uint64
	)
	for _, id := range ids {
		if k := id >> 16; k != lastKey {
			if lastPage = pages[k]; lastPage == nil {
				lastPage = new([1024]uint64)
				pages[k] = lastPage
			}
			lastKey = k
		}
		w, bit := (id&0xffff)>>6, uint64(1)<<(id&63)
		if lastPage[w]&bit != 0 {
			return false
		}
		lastPage[w] |= bit
	}
	return true
}

// feedColumns is Feed's loop over the graph's columns for a graph whose
// ids do not repeat and whose instances are named by their class chains
// (API 31+): an object's references go to the Builder as the graph holds
// them, names only for class objects and the rare others.
//
// The graph's ids and references become the Builder's (Reuse): each object
// is given where the graph holds it, so nothing is copied, and the roots
// are given as Graph.Model finds them (root records, class objects,
// zygote and boot-image objects) without its sets of ids: the Builder
// takes a root twice or an id that names no object as Model does.
func feedColumns(b *heapdump.Builder, g *heapgraph.Graph, classType uint64, chain [][]heapgraph.Edge) {
	classes := modelClasses(g)
	// The iids of each type's chain, to compare with an object's.
	iids := make([][]uint32, len(g.Types))
	for i := range g.Types {
		for s := int32(i); s >= 0; s = g.Types[s].Super {
			iids[i] = append(iids[i], g.Types[s].RefFields...)
		}
	}
	nameOf := func(f uint32) string {
		s := g.FieldName(f)
		if k := strings.IndexByte(s, ' '); k >= 0 {
			s = s[k+1:] // "Decl.name", as the Builder takes it
		}
		return s
	}
	// The objects that need names of their own (class objects' statics,
	// the rare others) get them first, so the graph's field ids can go
	// before the Builder's arrays grow.
	own := map[int][]string{}
	for i := range g.ID {
		t := g.Type[i]
		c := &classes[t]
		from, to := g.RefRange(i)
		if c.Kind == heapgraph.KindArray && !c.ClassObject || slices.Equal(g.FieldOf[from:to], iids[t]) && !c.ClassObject {
			continue
		}
		names := make([]string, 0, to-from)
		for k, f := range g.FieldOf[from:to] {
			if f == 0 && !c.ClassObject {
				names = append(names, "["+strconv.Itoa(k)+"]")
			} else {
				names = append(names, nameOf(f))
			}
		}
		own[i] = names
	}
	g.FieldOf = nil // the caller gives the graph up (Feed)
	b.Reuse(g.ID, g.Refs)
	roots := len(g.Roots)
	for i := range g.ID {
		if classes[g.Type[i]].ClassObject || g.Heap[i] == heapgraph.HeapZygote || g.Heap[i] == heapgraph.HeapBootImage {
			roots++
		}
	}
	b.Grow(len(g.ID), 0, roots)
	for _, r := range g.Roots {
		b.RootOf(r.ID, r.Type.HprofTag())
	}
	for i, id := range g.ID {
		t := g.Type[i]
		c := &classes[t]
		from, to := g.RefRange(i)
		if c.ClassObject || g.Heap[i] == heapgraph.HeapZygote || g.Heap[i] == heapgraph.HeapBootImage {
			b.Root(id)
		}
		o := heapdump.Object{ID: id, Type: uint64(t) + 1, Kind: heapdump.KindInstance, Size: uint64(g.Size[i]),
			Heap: g.Heap[i].Name(), Refs: g.Refs[from:to], RefFields: own[i]}
		switch {
		case c.ClassObject:
			o.Kind, o.Type = heapdump.KindClass, classType
			if c.ClassOf >= 0 {
				o.ClassOf = uint64(c.ClassOf) + 1
			}
		case c.Kind == heapgraph.KindArray:
			if to == from && isPrimitiveArray(c.Name) {
				o.Kind = heapdump.KindPrimitiveArray
			} else {
				o.Kind = heapdump.KindObjectArray
			}
		}
		b.Object(o)
	}
}

// modelClasses is Graph.Model's class table (which type is a class
// object's, and of which class), without its root sets.
func modelClasses(g *heapgraph.Graph) []heapgraph.ModelClass {
	out := make([]heapgraph.ModelClass, len(g.Types))
	byName := make(map[string]int32, len(g.Types))
	for i, t := range g.Types {
		if _, ok := byName[t.Name]; !ok {
			byName[t.Name] = int32(i)
		}
	}
	for i, t := range g.Types {
		c := heapgraph.ModelClass{Name: t.Name, Super: t.Super, Kind: t.Kind, ClassOf: -1}
		if strings.HasPrefix(t.Name, heapgraph.ClassObjectPrefix) && strings.HasSuffix(t.Name, ">") {
			c.ClassObject = true
			if x, ok := byName[t.Name[len(heapgraph.ClassObjectPrefix):len(t.Name)-1]]; ok {
				c.ClassOf = x
			}
		}
		out[i] = c
	}
	return out
}

// fragmentBases declare mFragmentManager (spec/hprof-analysis.md D12).
var fragmentBases = []string{"android.app.Fragment", "androidx.fragment.app.Fragment"}

// declaredFields lists, per declaring class, the reference fields the
// instances of an Android 11 graph name, in the order first seen.
func declaredFields(g *heapgraph.Graph) map[string][]string {
	out := map[string][]string{}
	seen := map[uint32]bool{}
	for i := range g.ID {
		if !instanceLike(g.Types[g.Type[i]].Kind) {
			continue
		}
		from, to := g.RefRange(i)
		for _, f := range g.FieldOf[from:to] {
			if f == 0 || seen[f] {
				continue
			}
			seen[f] = true
			if _, decl, name := heapgraph.SplitFieldName(g.FieldName(f)); decl != "" {
				if !slices.Contains(out[decl], name) {
					out[decl] = append(out[decl], name)
				}
			}
		}
	}
	for _, t := range g.Types {
		if slices.Contains(fragmentBases, t.Name) && !slices.Contains(out[t.Name], "mFragmentManager") {
			out[t.Name] = append(out[t.Name], "mFragmentManager")
		}
	}
	return out
}

func instanceLike(k heapgraph.Kind) bool {
	return k != heapgraph.KindArray && k != heapgraph.KindClass && k != heapgraph.KindClassLoader && k != heapgraph.KindDexCache
}

// layOut places an Android 11 instance's references along its class
// chain, 0 for the fields it leaves out (null); false when a reference
// is not one of the chain's fields.
func layOut(es, chain []heapgraph.Edge, out *[]uint64) bool {
	s := (*out)[:0]
	for range chain {
		s = append(s, 0)
	}
	*out = s
	for _, e := range es {
		k := 0
		for k < len(chain) && (chain[k].Field != e.Field || chain[k].Decl != e.Decl) {
			k++
		}
		if k == len(chain) || s[k] != 0 {
			return false
		}
		s[k] = e.To
	}
	return true
}

// sameNames reports whether an object's references are named as its class
// chain names them.
func sameNames(es, chain []heapgraph.Edge) bool {
	if len(es) != len(chain) {
		return false
	}
	for k := range es {
		if es[k].Field != chain[k].Field || es[k].Decl != chain[k].Decl {
			return false
		}
	}
	return true
}

// edgeNames gives the Builder an object's own names ("Decl.name", or the
// plain name when the graph gives no declarer), in a reused slice.
func edgeNames(es []heapgraph.Edge, buf *[]string) []string {
	s := (*buf)[:0]
	for _, e := range es {
		if e.Decl != "" {
			s = append(s, e.Decl+"."+e.Field)
		} else {
			s = append(s, e.Field)
		}
	}
	*buf = s
	return s
}

func isPrimitiveArray(name string) bool {
	switch name {
	case "boolean[]", "char[]", "float[]", "double[]", "byte[]", "short[]", "int[]", "long[]":
		return true
	}
	return false
}

// The memory an analysis of a heap file needs (MemoryAllowance), as a soft
// limit for the collector: about what the model and its reader hold at
// once, so that garbage is reclaimed in time and the collector is not
// kept running by a live heap above the limit.
const (
	// An HPROF file's model is up to about twice the file (a dense dump
	// of 21-byte objects: 2.1 times), with a floor for small files.
	hprofMemoryFactor = 2
	hprofMemoryFloor  = 64 << 20
	// A heap graph is decoded whole before the model is built from it,
	// and the two overlap for a moment: about 4.5 times the trace (a
	// 17.7 MB graph of 1 M objects: 80 MiB; docs/PERFORMANCE.md), at
	// least 80 MiB.
	heapGraphMemoryFloor   = 80 << 20
	heapGraphMemoryPerByte = 4.5
)

// MemoryAllowance is the memory the analysis of file is given (see
// above), from its format and size; 0 when the file cannot be read.
func MemoryAllowance(file string) int64 {
	fi, err := os.Stat(file)
	if err != nil {
		return 0
	}
	if f, _ := SniffFile(file); f == FormatHeapGraph {
		return max(heapGraphMemoryFloor, int64(heapGraphMemoryPerByte*float64(fi.Size())))
	}
	return hprofMemoryFactor*fi.Size() + hprofMemoryFloor
}
