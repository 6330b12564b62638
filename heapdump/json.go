package heapdump

import (
	"cmp"
	"slices"
)

// Report is the JSON document of `ddmtui hprof analyze --json`
// (spec/hprof-analysis.md "JSON"): the required keys and a few extra ones.
type Report struct {
	Version          string          `json:"version"`
	IDSize           int             `json:"id_size"`
	Objects          int             `json:"objects"`
	Reachable        int             `json:"reachable"`
	Truncated        bool            `json:"truncated,omitempty"`
	TruncatedAt      int64           `json:"truncated_at,omitempty"`
	Heaps            []HeapRow       `json:"heaps"`
	Classes          []ClassRow      `json:"classes"`
	Dominators       []DominatorJSON `json:"dominators"`
	Leaks            []LeakJSON      `json:"leaks"`
	DuplicateStrings []DuplicateJSON `json:"duplicate_strings"`
	Bitmaps          []BitmapJSON    `json:"bitmaps"`
}

// DominatorJSON is one top dominator (D10).
type DominatorJSON struct {
	ID       string `json:"id"`
	Class    string `json:"class"`
	Of       string `json:"of,omitempty"` // for a class object: the class it is
	Retained uint64 `json:"retained"`
}

// StepJSON is one element of a path (D11); Field is null for the first.
type StepJSON struct {
	Class string  `json:"class"`
	ID    string  `json:"id"`
	Field *string `json:"field"`
	Of    string  `json:"of,omitempty"` // for a class object: the class it is
}

// LeakJSON is one leak (D12).
type LeakJSON struct {
	ID       string     `json:"id"`
	Class    string     `json:"class"`
	Kind     string     `json:"kind"`
	Reason   string     `json:"reason"`
	Retained uint64     `json:"retained"`
	Depth    int        `json:"depth"`
	Path     []StepJSON `json:"path"`
	// Blame is the index in Path of the hop most likely to blame
	// (Heap.BlameStep): a heuristic beside D12, not part of it.
	Blame int `json:"blame"`
}

// DuplicateJSON is one group of duplicate strings (D13).
type DuplicateJSON struct {
	Value  string `json:"value"`
	Count  int    `json:"count"`
	Wasted uint64 `json:"wasted"`
}

// BitmapJSON is one reachable bitmap (D14).
type BitmapJSON struct {
	ID           string `json:"id"`
	Class        string `json:"class"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	PixelBytes   int    `json:"pixel_bytes"`
	PixelsInDump bool   `json:"pixels_in_dump"`
	Source       string `json:"source,omitempty"`
	Format       string `json:"format,omitempty"`
	Retained     uint64 `json:"retained"`
}

// PathsJSON is the document of `ddmtui hprof path --json`.
type PathsJSON struct {
	Paths []PathJSON `json:"paths"`
}

// PathJSON is one object's path; Path is empty when it is unreachable.
type PathJSON struct {
	ID        string     `json:"id"`
	Reachable bool       `json:"reachable"`
	Path      []StepJSON `json:"path"`
}

// DefaultTop is how many dominators and duplicate strings a Report lists.
const DefaultTop = 100

// Report computes the whole report; top bounds the dominators and the
// duplicate strings (<= 0: DefaultTop).
func (h *Heap) Report(top int) *Report {
	if top <= 0 {
		top = DefaultTop
	}
	trunc, at := h.Truncated()
	r := &Report{Version: h.version, IDSize: h.idSize, Objects: h.NumNodes(), Reachable: h.reachable,
		Truncated: trunc, Dominators: []DominatorJSON{}, Leaks: []LeakJSON{}, DuplicateStrings: []DuplicateJSON{}, Bitmaps: []BitmapJSON{}}
	if trunc {
		r.TruncatedAt = at
	}
	r.Heaps, r.Classes = h.HeapsByName(), h.Histogram()
	// Duplicate strings take the longest: on the other core.
	var dups []DuplicateString
	strs := make(chan struct{})
	go func() {
		dups = h.DuplicateStrings()
		close(strs)
	}()
	for _, d := range h.TopDominators(top) {
		r.Dominators = append(r.Dominators, DominatorJSON{ID: HexID(h.ID(d)), Class: h.ClassName(d), Of: h.ClassObjectName(d), Retained: h.Retained(Node(d))})
	}
	for _, l := range h.Leaks() {
		r.Leaks = append(r.Leaks, LeakJSON{ID: HexID(h.ID(l.Node)), Class: h.ClassName(l.Node), Kind: l.Kind,
			Reason: l.Reason, Retained: h.Retained(Node(l.Node)), Depth: l.Depth, Path: h.PathJSON(l.Path), Blame: h.BlameStep(l.Path)})
	}
	<-strs
	for _, d := range dups[:min(top, len(dups))] {
		r.DuplicateStrings = append(r.DuplicateStrings, DuplicateJSON{Value: d.Value, Count: d.Count, Wasted: d.Wasted})
	}
	for _, b := range h.Bitmaps() {
		r.Bitmaps = append(r.Bitmaps, BitmapJSON{ID: HexID(h.ID(b.Node)), Class: h.ClassName(b.Node), Width: b.Width,
			Height: b.Height, PixelBytes: b.PixelBytes, PixelsInDump: b.PixelsInDump, Source: b.Source,
			Format: b.Format, Retained: h.Retained(Node(b.Node))})
	}
	return r
}

// PathJSON renders a path for the JSON.
func (h *Heap) PathJSON(p []PathStep) []StepJSON {
	out := make([]StepJSON, len(p))
	for i, s := range p {
		out[i] = StepJSON{Class: h.ClassName(s.Node), ID: HexID(h.ID(s.Node)), Of: h.ClassObjectName(s.Node)}
		if i > 0 {
			f := s.Field
			out[i].Field = &f
		}
	}
	return out
}

// Paths answers `hprof path` for object ids; an id that names no object
// is an error.
func (h *Heap) Paths(ids []uint64) (*PathsJSON, error) {
	out := &PathsJSON{Paths: []PathJSON{}}
	for _, id := range ids {
		n, ok := h.Lookup(id)
		if !ok {
			return nil, &NoObjectError{ID: id}
		}
		p := h.PathToRoot(n)
		out.Paths = append(out.Paths, PathJSON{ID: HexID(id), Reachable: p != nil, Path: h.PathJSON(p)})
	}
	return out, nil
}

// NoObjectError is returned for an id that names no object of the dump.
type NoObjectError struct{ ID uint64 }

func (e *NoObjectError) Error() string { return "no object " + HexID(e.ID) + " in the dump" }

// DiffRow is one class's change between two dumps (D16).
type DiffRow struct {
	Name           string `json:"name"`
	InstancesDelta int64  `json:"instances_delta"`
	ShallowDelta   int64  `json:"shallow_delta"`
	RetainedDelta  int64  `json:"retained_delta"`
}

// DiffJSON is the document of `ddmtui hprof diff --json`.
type DiffJSON struct {
	Diff []DiffRow `json:"diff"`
}

// Diff compares two dumps by class name (D16): rows with any change, by
// shallow delta descending, then instances delta descending, then name.
func Diff(a, b *Heap) []DiffRow {
	return DiffHistograms(a.Histogram(), b.Histogram())
}

// DiffHistograms is Diff over histograms already computed.
func DiffHistograms(a, b []ClassRow) []DiffRow {
	rows := map[string]*DiffRow{}
	get := func(name string) *DiffRow {
		r, ok := rows[name]
		if !ok {
			r = &DiffRow{Name: name}
			rows[name] = r
		}
		return r
	}
	for _, c := range a {
		r := get(c.Name)
		r.InstancesDelta -= int64(c.Instances)
		r.ShallowDelta -= int64(c.Shallow)
		r.RetainedDelta -= int64(c.Retained)
	}
	for _, c := range b {
		r := get(c.Name)
		r.InstancesDelta += int64(c.Instances)
		r.ShallowDelta += int64(c.Shallow)
		r.RetainedDelta += int64(c.Retained)
	}
	out := []DiffRow{}
	for _, r := range rows {
		if r.InstancesDelta != 0 || r.ShallowDelta != 0 || r.RetainedDelta != 0 {
			out = append(out, *r)
		}
	}
	slices.SortFunc(out, func(x, y DiffRow) int {
		return cmp.Or(cmp.Compare(y.ShallowDelta, x.ShallowDelta), cmp.Compare(y.InstancesDelta, x.InstancesDelta), cmp.Compare(x.Name, y.Name))
	})
	return out
}
