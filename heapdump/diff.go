package heapdump

import (
	"cmp"
	"slices"
)

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

// Diff compares two histograms (Heap.Histogram) by class name (D16): rows
// with any change, by shallow delta descending, then instances delta
// descending, then name.
func Diff(a, b []ClassRow) []DiffRow {
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
