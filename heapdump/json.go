package heapdump

import ()

// Report is the JSON document of `ddmtui hprof analyze --json`
// (spec/hprof-analysis.md "JSON"): the required keys and a few extra ones.
type Report struct {
	Version   string `json:"version"`
	IDSize    int    `json:"id_size"`
	Objects   int    `json:"objects"`
	Reachable int    `json:"reachable"`
	Truncated bool   `json:"truncated,omitempty"`
	// Converted is ConvertedNote when the file is a converted Android dump
	// (Heap.Converted): its leaks may include one that is not.
	Converted        string          `json:"converted,omitempty"`
	TruncatedAt      int64           `json:"truncated_at,omitempty"`
	Heaps            []HeapRow       `json:"heaps"`
	Classes          []ClassRow      `json:"classes"`
	Dominators       []DominatorJSON `json:"dominators"`
	Leaks            []LeakJSON      `json:"leaks"`
	DuplicateStrings []DuplicateJSON `json:"duplicate_strings"`
	Bitmaps          []BitmapJSON    `json:"bitmaps"`
	// Unavailable names, per section ("leaks", "duplicate_strings",
	// "bitmaps"), what the dump cannot tell and the section therefore
	// leaves out (a heap graph has no primitive values).
	Unavailable map[string]string `json:"unavailable,omitempty"`
	// Mapping is set when a mapping file renamed the dump's classes and
	// fields (Heap.Rename): how many of its app classes it knew.
	Mapping *MappingJSON `json:"mapping,omitempty"`
}

// MappingJSON is a mapping's coverage of a dump's app classes (platform
// classes left out); Summary is its one line ("mapping: 3 of 412 classes
// known — wrong build?").
type MappingJSON struct {
	Known   int    `json:"known"`
	Total   int    `json:"total"`
	Skipped int    `json:"skipped_lines,omitempty"`
	Summary string `json:"summary"`
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
	Class string `json:"class"`
	ID    string `json:"id"`
	// Root is the first element's GC root kind (Heap.RootKind: "thread",
	// "JNI global", "sticky class", …), omitted when the dump does not say.
	Root  string  `json:"root,omitempty"`
	Field *string `json:"field"`
	Of    string  `json:"of,omitempty"` // for a class object: the class it is
	// OmittedBefore counts the elements of a long path left out just
	// before this one (MaxPathSteps); Field names the hop from the last of
	// them.
	OmittedBefore int `json:"omitted_before,omitempty"`
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
	// (Leaks.BlameStep): a heuristic beside D12, not part of it.
	Blame int `json:"blame"`
	// PathOmitted: the leak is beyond the MaxLeakPaths largest, whose
	// paths alone are listed (Path is empty; Depth is its path's length).
	PathOmitted bool `json:"path_omitted,omitempty"`
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

// PathJSON is one object's path; Path is empty when it is unreachable,
// cut to MaxPathSteps elements when longer (Depth is the whole path's).
type PathJSON struct {
	ID        string     `json:"id"`
	Reachable bool       `json:"reachable"`
	Depth     int        `json:"depth"`
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
	r := &Report{Version: h.format, IDSize: h.idSize, Objects: h.NumNodes(), Reachable: h.reachable,
		Truncated: trunc, Dominators: []DominatorJSON{}, Leaks: []LeakJSON{}, DuplicateStrings: []DuplicateJSON{}, Bitmaps: []BitmapJSON{}}
	if trunc {
		r.TruncatedAt = at
	}
	if h.Converted() {
		r.Converted = ConvertedNote
	}
	unavailable := func(section, why string) {
		if why != "" {
			if r.Unavailable == nil {
				r.Unavailable = map[string]string{}
			}
			r.Unavailable[section] = why
		}
	}
	leaks, strs, bitmaps, paths := h.Leaks(), h.Strings(), h.Bitmaps(), h.Paths()
	unavailable("leaks", leaks.Unavailable())
	unavailable("duplicate_strings", strs.Unavailable())
	unavailable("bitmaps", bitmaps.Unavailable())
	r.Heaps, r.Classes = h.Heaps(), h.Histogram()
	// Duplicate strings take the longest: on the other core.
	var dups []DuplicateString
	done := make(chan struct{})
	go func() {
		dups = strs.Duplicates()
		close(done)
	}()
	for _, d := range h.Dominators().Top(top) {
		r.Dominators = append(r.Dominators, DominatorJSON{ID: HexID(h.ID(d)), Class: h.ClassName(d), Of: h.ClassObjectName(d), Retained: h.Retained(d)})
	}
	for _, l := range leaks.Find() {
		r.Leaks = append(r.Leaks, LeakJSON{ID: HexID(h.ID(l.Node)), Class: h.ClassName(l.Node), Kind: l.Kind,
			Reason: l.Reason, Retained: h.Retained(l.Node), Depth: l.Depth, Path: paths.JSON(l.Path), Blame: leaks.BlameStep(l.Path),
			PathOmitted: l.Path == nil})
	}
	<-done
	for _, d := range dups[:min(top, len(dups))] {
		r.DuplicateStrings = append(r.DuplicateStrings, DuplicateJSON{Value: d.Value, Count: d.Count, Wasted: d.Wasted})
	}
	for _, b := range bitmaps.List() {
		r.Bitmaps = append(r.Bitmaps, BitmapJSON{ID: HexID(h.ID(b.Node)), Class: h.ClassName(b.Node), Width: b.Width,
			Height: b.Height, PixelBytes: b.PixelBytes, PixelsInDump: b.PixelsInDump, Source: b.Source,
			Format: b.Format, Retained: h.Retained(b.Node)})
	}
	return r
}
