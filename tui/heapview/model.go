package heapview

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ddmtui/ddmtui/heapdump"
)

// allHeaps is the heap selection that counts every heap.
const allHeaps = ""

// classRow is one class of the histogram as the classes table shows it,
// over the heap selected.
type classRow struct {
	name      string
	class     int32 // index into Model.names
	instances int
	shallow   uint64
	retained  uint64
}

// histogram is the class table of one heap selection, with its rows
// sorted once in each order the table offers.
type histogram struct {
	heap   string // allHeaps, or a heap's name
	rows   []classRow
	orders [numClassSorts][]int32 // indices into rows, per classSort
	bytes  uint64                 // shallow bytes of the selection's nodes
	count  int                    // its nodes
}

// Model is what the viewer shows of one analysed dump. Everything a key
// needs is computed here once, off the UI goroutine: the histograms of
// every heap selection in every order, each class's instances, the leaks
// with their blamed hops, the duplicate strings, the bitmaps, the top
// dominators and, with a baseline, the diff. The UI goroutine only reads
// it (the heapdump.Heap is safe for concurrent reads).
type Model struct {
	Heap     *heapdump.Heap
	File     string
	Baseline string // the earlier dump the diff compares with ("" none)

	names     []string         // class names, by class index
	nameIndex map[string]int32 // name -> class index
	hists     []histogram      // [0] all heaps, then each heap in file order
	// The nodes of each class in node order: classNodes[classOff[c]:classOff[c+1]].
	classOff   []int32
	classNodes []int32

	// The dominator tree's children lists in node order (slot NumNodes is
	// the super-root): domKids[domOff[x]:domOff[x+1]].
	domOff  []int32
	domKids []int32

	heapRows  []heapdump.HeapRow
	reachable uint64 // shallow bytes of the reachable nodes: 100% of the dominator tree
	top       []heapdump.Node
	leaks     []heapdump.Leak
	blame     []int
	dups      []heapdump.DuplicateString
	bitmaps   []heapdump.Bitmap
	diff      []heapdump.DiffRow
	extras    bool // leaks, bitmaps and strings are known (SetExtras)
}

// maxHeapTables bounds the heaps that get a classes table of their own.
const maxHeapTables = 8

// maxTopDominators bounds the dominator tree's top level (a dump has a
// root for every zygote and image object).
const maxTopDominators = 2000

// Progress reports a phase of the analysis and the fraction of it done.
type Progress func(phase string, fraction float64)

// Load analyses file (and, when baseline is set, the histogram of that
// earlier dump for the diff) and computes what the first screen shows
// (NewModel). Call Close on the model when done.
func Load(file, baseline string, progress Progress) (*Model, error) {
	if progress == nil {
		progress = func(string, float64) {}
	}
	var base []heapdump.ClassRow
	if baseline != "" {
		old, err := heapdump.Open(baseline, heapdump.Options{Progress: func(p string, f float64) { progress("baseline "+p, f) }})
		if err != nil {
			return nil, fmt.Errorf("baseline %s: %w", baseline, err)
		}
		base = old.Histogram()
		old.Close() // one dump mapped at a time
	}
	h, err := heapdump.Open(file, heapdump.Options{Progress: func(p string, f float64) { progress(p, f) }})
	if err != nil {
		return nil, err
	}
	m := NewModel(h, file, progress)
	if baseline != "" {
		m.SetBaseline(baseline, base)
	}
	return m, nil
}

// NewModel computes what the first screen of the viewer needs of an
// analysed heap (which the model then owns: Close closes it): the
// histograms and the top dominators. The rest follows with FindExtras.
func NewModel(h *heapdump.Heap, file string, progress Progress) *Model {
	if progress == nil {
		progress = func(string, float64) {}
	}
	m := &Model{Heap: h, File: file, nameIndex: map[string]int32{}}
	progress("classes", 0)
	cls := m.classify()
	progress("classes", 0.5)
	m.histograms(cls)
	m.top = h.Dominators().Top(maxTopDominators)
	return m
}

// Extras are the parts of a model the first screen does not need, found
// after it is drawn: the leaks with their blamed hops, the bitmaps, the
// duplicate strings, and the reverse edges (referrers).
type Extras struct {
	leaks   []heapdump.Leak
	blame   []int
	bitmaps []heapdump.Bitmap
	dups    []heapdump.DuplicateString
}

// FindExtras computes the extras of a heap; it only reads the heap, so it
// may run beside a view of its model.
func FindExtras(h *heapdump.Heap, progress Progress) Extras {
	if progress == nil {
		progress = func(string, float64) {}
	}
	var x Extras
	progress("leaks", 0)
	x.leaks = h.Leaks().Find()
	x.blame = make([]int, len(x.leaks))
	for i, l := range x.leaks {
		x.blame[i] = h.Leaks().BlameStep(l.Path)
	}
	x.bitmaps = h.Bitmaps().List()
	progress("strings", 0)
	x.dups = h.Strings().Duplicates()
	progress("referrers", 0)
	if h.NumNodes() > 0 {
		h.Referrers(0) // builds the reverse edges now rather than on a key
	}
	return x
}

// SetExtras gives the model its extras (on the goroutine that reads it).
func (m *Model) SetExtras(x Extras) {
	m.leaks, m.blame, m.bitmaps, m.dups = x.leaks, x.blame, x.bitmaps, x.dups
	m.extras = true
}

// Complete computes the model's extras at once (for a model not shown).
func (m *Model) Complete() { m.SetExtras(FindExtras(m.Heap, nil)) }

// SetBaseline makes the model's diff (D16) against an earlier dump's
// histogram.
func (m *Model) SetBaseline(file string, old []heapdump.ClassRow) {
	m.Baseline = file
	m.diff = heapdump.Diff(old, m.hists[0].histRows())
}

// Leaks are the leaks the viewer lists (nil until the extras are known).
func (m *Model) Leaks() []heapdump.Leak { return m.leaks }

// Close releases the dump.
func (m *Model) Close() error { return m.Heap.Close() }

// histRows is the all-heaps histogram as heapdump.ClassRow (for the diff).
func (hg *histogram) histRows() []heapdump.ClassRow {
	out := make([]heapdump.ClassRow, len(hg.rows))
	for i, r := range hg.rows {
		out[i] = heapdump.ClassRow{Name: r.name, Instances: r.instances, Shallow: r.shallow, Retained: r.retained}
	}
	return out
}

// classify gives every node its class index and groups the nodes by
// class (a counting sort: two passes, no per-node allocation).
func (m *Model) classify() []int32 {
	h := m.Heap
	n := h.NumNodes()
	cls := make([]int32, n)
	for x := range n {
		name := h.ClassName(heapdump.Node(x))
		c, ok := m.nameIndex[name]
		if !ok {
			c = int32(len(m.names))
			m.nameIndex[name] = c
			m.names = append(m.names, name)
		}
		cls[x] = c
	}
	off := make([]int32, len(m.names)+1)
	for _, c := range cls {
		off[c+1]++
	}
	for i := 1; i < len(off); i++ {
		off[i] += off[i-1]
	}
	pos := slices.Clone(off[:len(m.names)])
	nodes := make([]int32, n)
	for x, c := range cls {
		nodes[pos[c]] = int32(x)
		pos[c]++
	}
	m.classOff, m.classNodes = off, nodes
	m.heapRows = h.Heaps()
	return cls
}

// histograms computes the histogram of every heap selection. The
// retained size of a class over one heap follows D9 with the nodes of
// that heap: the retained sizes of its reachable nodes in the heap that
// have no strict dominator of the same class name (in any heap), found by
// one walk of the dominator tree counting the classes on the path.
func (m *Model) histograms(cls []int32) {
	h := m.Heap
	n := h.NumNodes()
	heapIdx := map[string]int{}
	for i, r := range m.heapRows {
		heapIdx[r.Name] = i
	}
	// One histogram per heap (ART writes three); a file that names more
	// heaps gets the all-heaps table only, so that memory stays bounded by
	// heaps × classes.
	nh := len(m.heapRows)
	if nh > maxHeapTables {
		nh = 0
		heapIdx = map[string]int{}
	}
	heapOf := make([]int32, n)
	for x := range n {
		heapOf[x] = int32(heapIdx[h.HeapName(heapdump.Node(x))])
	}
	// Per heap and class: instances, shallow, retained.
	type acc struct {
		instances int
		shallow   uint64
		retained  uint64
	}
	per := make([][]acc, max(nh, 1)) // [0] absorbs every node when nh is 0
	for i := range per {
		per[i] = make([]acc, len(m.names))
	}
	for x := range n {
		a := &per[heapOf[x]][cls[x]]
		a.instances++
		a.shallow += h.Shallow(heapdump.Node(x))
		if h.Reachable(heapdump.Node(x)) {
			m.reachable += h.Shallow(heapdump.Node(x))
		}
	}
	// The dominator tree as children lists (CSR over int32; slot n is the
	// super-root), then a depth-first walk counting classes on the path.
	kidOff := make([]int32, n+2)
	for x := range n {
		if d, ok := h.Dominator(heapdump.Node(x)); ok {
			kidOff[slot(d, n)+1]++
		}
	}
	for i := 1; i < len(kidOff); i++ {
		kidOff[i] += kidOff[i-1]
	}
	kids := make([]int32, kidOff[n+1])
	pos := slices.Clone(kidOff[:n+1])
	for x := range n {
		if d, ok := h.Dominator(heapdump.Node(x)); ok {
			s := slot(d, n)
			kids[pos[s]] = int32(x)
			pos[s]++
		}
	}
	m.domOff, m.domKids = kidOff, kids
	onPath := make([]int32, len(m.names))
	type frame struct{ node, next int32 }
	stack := []frame{{node: int32(n), next: kidOff[n]}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next == kidOff[top.node+1] {
			if top.node != int32(n) {
				onPath[cls[top.node]]--
			}
			stack = stack[:len(stack)-1]
			continue
		}
		x := kids[top.next]
		top.next++
		c := cls[x]
		if onPath[c] == 0 {
			per[heapOf[x]][c].retained += h.Retained(heapdump.Node(x))
		}
		onPath[c]++
		stack = append(stack, frame{node: x, next: kidOff[x]})
	}
	// All heaps: D9 exactly, as the analysis computes it.
	all := histogram{heap: allHeaps}
	for _, r := range h.Histogram() {
		all.rows = append(all.rows, classRow{name: r.Name, class: m.nameIndex[r.Name], instances: r.Instances, shallow: r.Shallow, retained: r.Retained})
		all.bytes += r.Shallow
		all.count += r.Instances
	}
	all.sort()
	m.hists = append(m.hists, all)
	for hi, hr := range m.heapRows[:nh] {
		hg := histogram{heap: hr.Name, bytes: hr.Bytes, count: hr.Objects}
		for c, a := range per[hi] {
			if a.instances > 0 {
				hg.rows = append(hg.rows, classRow{name: m.names[c], class: int32(c), instances: a.instances, shallow: a.shallow, retained: a.retained})
			}
		}
		hg.sort()
		m.hists = append(m.hists, hg)
	}
}

// slot is a dominator's index in the children lists: n for the
// super-root.
func slot(d heapdump.Node, n int) int {
	if d == heapdump.SuperRoot {
		return n
	}
	return int(d)
}

// classSort is an order of the classes table.
type classSort int

const (
	byRetained classSort = iota
	byShallow
	byInstances
	byName
	numClassSorts
)

// sort lays the rows out once in every order (ties by name).
func (hg *histogram) sort() {
	rows := hg.rows
	key := func(s classSort, r *classRow) uint64 {
		switch s {
		case byRetained:
			return r.retained
		case byShallow:
			return r.shallow
		case byInstances:
			return uint64(r.instances)
		}
		return 0
	}
	for s := range numClassSorts {
		idx := make([]int32, len(rows))
		for i := range idx {
			idx[i] = int32(i)
		}
		slices.SortFunc(idx, func(a, b int32) int {
			ra, rb := &rows[a], &rows[b]
			if s == byName {
				return strings.Compare(ra.name, rb.name)
			}
			return cmp.Or(cmp.Compare(key(s, rb), key(s, ra)), strings.Compare(ra.name, rb.name))
		})
		hg.orders[s] = idx
	}
}

// Histogram returns the histogram of a heap selection: allHeaps or a
// heap's name (nil when the dump has no such heap).
func (m *Model) histogram(heap string) *histogram {
	for i := range m.hists {
		if m.hists[i].heap == heap {
			return &m.hists[i]
		}
	}
	return nil
}

// defaultHeap is the selection shown first: the app heap when the dump
// has one (Android Studio's default), else every heap.
func (m *Model) defaultHeap() string {
	if m.histogram("app") != nil {
		return "app"
	}
	return allHeaps
}

// heapCycle is the order the heap key steps through: app, all heaps, then
// the other heaps.
func (m *Model) heapCycle() []string {
	var out []string
	if m.histogram("app") != nil {
		out = append(out, "app")
	}
	out = append(out, allHeaps)
	for _, r := range m.heapRows {
		if r.Name != "app" && m.histogram(r.Name) != nil {
			out = append(out, r.Name)
		}
	}
	return out
}

// instances returns the nodes of a class, in the heap selected (allHeaps:
// every heap), by retained size descending (unreachable ones last), then
// id; at most limit of them (0: all) and how many there are.
func (m *Model) instances(name, heap string, limit int) ([]heapdump.Node, int) {
	c, ok := m.nameIndex[name]
	if !ok {
		return nil, 0
	}
	h := m.Heap
	var out []heapdump.Node
	for _, x := range m.classNodes[m.classOff[c]:m.classOff[c+1]] {
		if heap == allHeaps || h.HeapName(heapdump.Node(x)) == heap {
			out = append(out, heapdump.Node(x))
		}
	}
	slices.SortFunc(out, func(a, b heapdump.Node) int {
		return cmp.Or(cmp.Compare(h.Retained(b), h.Retained(a)), cmp.Compare(h.ID(a), h.ID(b)))
	})
	total := len(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, total
}

// classSize is how many nodes a class has over every heap.
func (m *Model) classSize(name string) int {
	c, ok := m.nameIndex[name]
	if !ok {
		return 0
	}
	return int(m.classOff[c+1] - m.classOff[c])
}
