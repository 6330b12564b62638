package heapview

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/heapfile"
	"github.com/ddmtui/ddmtui/internal/memlimit"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/mapping/apply"
)

// allHeaps is the heap selection that counts every heap.
const allHeaps = ""

// histogram is the class table of one heap selection (the model's
// Histogram, the rows the JSON and the diff take too), with its rows
// sorted once in each order the table offers.
type histogram struct {
	heap   string // allHeaps, or a heap's name
	rows   []heapdump.ClassRow
	orders [numClassSorts][]int32 // indices into rows, per classSort
	bytes  uint64                 // shallow bytes of the selection's nodes
	count  int                    // its nodes
}

// Model is what the viewer shows of one analysed dump: tables over the
// queries of heapdump. What a key needs is computed here once, off the UI
// goroutine: the histograms of every heap selection in every order, the
// leaks with their blamed hops, the duplicate strings, the bitmaps, the
// top dominators and, with a baseline, the diff. The UI goroutine only
// reads it (the heapdump.Heap is safe for concurrent reads).
type Model struct {
	Heap     *heapdump.Heap
	File     string
	Baseline string // the earlier dump the diff compares with ("" none)
	Mapping  string // the mapping's coverage of the dump's classes ("" none)

	hists     []histogram    // [0] all heaps, then each heap in file order
	instances map[string]int // class name -> its nodes over every heap
	heapRows  []heapdump.HeapRow
	reachable uint64 // shallow bytes of the reachable nodes: 100% of the dominator tree
	top       []heapdump.Node
	leaks     []heapdump.Leak
	blame     []int
	release   func() // gives back the soft memory limit's allowance (nil: none)
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
// (NewModel). A mapping, when set, renames both dumps' classes and fields
// first. Call Close on the model when done.
func Load(file, baseline string, mp *mapping.Mapping, progress Progress) (*Model, error) {
	return LoadPID(file, baseline, 0, mp, progress)
}

// LoadPID is Load for a file of either form (heapfile.Open: HPROF or a
// Perfetto trace's heap graph); pid chooses the dump of a trace with
// several processes' heap graphs. The mapping renames a heap graph's
// classes and fields as it does an HPROF file's.
func LoadPID(file, baseline string, pid int32, mp *mapping.Mapping, progress Progress) (*Model, error) {
	if progress == nil {
		progress = func(string, float64) {}
	}
	var base []heapdump.ClassRow
	// Each analysis raises the collector's soft limit by its file's
	// allowance while its model is open (internal/memlimit): a watching
	// command's limit is its memory budget, which a large heap passes.
	if baseline != "" {
		done := memlimit.Raise(heapfile.MemoryAllowance(baseline))
		old, err := heapfile.Open(baseline, heapfile.Options{PID: pid, Progress: func(p string, f float64) { progress("baseline "+p, f) }})
		if err != nil {
			done()
			return nil, fmt.Errorf("baseline %s: %w", baseline, err)
		}
		apply.Heap(mp, old)
		base = old.Histogram()
		old.Close() // one dump mapped at a time
		done()
	}
	release := memlimit.Raise(heapfile.MemoryAllowance(file))
	h, err := heapfile.Open(file, heapfile.Options{PID: pid, Progress: func(p string, f float64) { progress(p, f) }})
	if err != nil {
		release()
		return nil, err
	}
	before := apply.Heap(mp, h)
	m := NewModel(h, file, progress)
	m.release = release
	if mp != nil {
		m.Mapping = mp.Coverage(before).String()
	}
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
	m := &Model{Heap: h, File: file}
	progress("classes", 0)
	m.histograms(progress)
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
	x.dups = heapdump.Wasting(h.Strings().Duplicates())
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
	m.diff = heapdump.Diff(old, m.hists[0].rows)
}

// Leaks are the leaks the viewer lists (nil until the extras are known).
func (m *Model) Leaks() []heapdump.Leak { return m.leaks }

// Close releases the dump.
func (m *Model) Close() error {
	err := m.Heap.Close()
	if m.release != nil {
		m.release() // the analysis's allowance (LoadPID)
	}
	return err
}

// histograms computes the histogram of every heap selection: all heaps
// (D9), and each heap's own (a file that names more than maxHeapTables
// heaps gets the all-heaps table only).
func (m *Model) histograms(progress Progress) {
	h := m.Heap
	m.heapRows = h.Heaps()
	all := histogram{heap: allHeaps, rows: h.Histogram()}
	m.instances = make(map[string]int, len(all.rows))
	for _, r := range all.rows {
		all.bytes += r.Shallow
		all.count += r.Instances
		m.reachable += r.ReachableShallow
		m.instances[r.Name] = r.Instances
	}
	all.sort()
	m.hists = append(m.hists, all)
	if len(m.heapRows) > maxHeapTables {
		return
	}
	for i, hr := range m.heapRows {
		progress("classes", float64(i+1)/float64(len(m.heapRows)+1))
		hg := histogram{heap: hr.Name, bytes: hr.Bytes, count: hr.Objects, rows: h.Histogram(hr.Name)}
		hg.sort()
		m.hists = append(m.hists, hg)
	}
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
	key := func(s classSort, r *heapdump.ClassRow) uint64 {
		switch s {
		case byRetained:
			return r.Retained
		case byShallow:
			return r.ReachableShallow
		case byInstances:
			return uint64(r.ReachableInstances)
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
				return strings.Compare(ra.Name, rb.Name)
			}
			return cmp.Or(cmp.Compare(key(s, rb), key(s, ra)), strings.Compare(ra.Name, rb.Name))
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

// classInstances returns the nodes of a class, in the heap selected
// (allHeaps: every heap), by retained size descending (unreachable ones
// last), then id; at most limit of them (0: all) and how many there are.
func (m *Model) classInstances(name, heap string, limit int) ([]heapdump.Node, int) {
	out := m.Heap.Instances(name, heap)
	total := len(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, total
}

// classSize is how many nodes a class has over every heap.
func (m *Model) classSize(name string) int { return m.instances[name] }
