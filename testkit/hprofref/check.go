package hprofref

import (
	"fmt"
	"sort"
)

// Check compares another analyser's result for the same dump (decoded from
// its `analyze --json`) with the reference and returns every difference,
// nil when there is none. Lists are compared as the spec requires them:
// heaps, classes, leaks and bitmaps complete (in any order); dominators
// and duplicate_strings as the reference's first len(got) entries (got may
// be cut by `--top N`), in order: D10 and D13 leave no ties.
// A leak's path must be valid (ValidPath), not equal to the reference's.
// Keys beyond the spec's (a bitmap's source and format) are not compared.
func (a *Analysis) Check(got *Result) []string {
	want := a.Result()
	var diffs []string
	bad := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }

	wantHeaps := map[string]Heap{}
	for _, h := range want.Heaps {
		wantHeaps[h.Name] = h
	}
	for _, h := range got.Heaps {
		if w, ok := wantHeaps[h.Name]; !ok || w != h {
			bad("heap %+v, want %+v", h, w)
		}
		delete(wantHeaps, h.Name)
	}
	for _, w := range wantHeaps {
		bad("heap %q missing", w.Name)
	}

	wantClasses := map[string]Class{}
	for _, c := range want.Classes {
		wantClasses[c.Name] = c
	}
	for _, c := range got.Classes {
		if w, ok := wantClasses[c.Name]; !ok || w != c {
			bad("class %+v, want %+v", c, w)
		}
		delete(wantClasses, c.Name)
	}
	for _, w := range wantClasses {
		bad("class %q missing", w.Name)
	}

	samePrefix(bad, "dominator", got.Dominators, want.Dominators)

	wantLeaks := map[HexID]Leak{}
	for _, l := range want.Leaks {
		wantLeaks[l.ID] = l
	}
	for _, l := range got.Leaks {
		w, ok := wantLeaks[l.ID]
		if !ok {
			bad("leak %#x (%s) is not one", uint64(l.ID), l.Class)
			continue
		}
		delete(wantLeaks, l.ID)
		if l.Class != w.Class || l.Kind != w.Kind || l.Reason != w.Reason || l.Retained != w.Retained {
			bad("leak %#x: %s %s %s retained %d; want %s %s %s retained %d", uint64(l.ID), l.Class, l.Kind, l.Reason,
				l.Retained, w.Class, w.Kind, w.Reason, w.Retained)
		}
		if err := a.ValidPath(l.Path); err != nil {
			bad("leak %#x: path: %v", uint64(l.ID), err)
		} else if l.Path[len(l.Path)-1].ID != l.ID {
			bad("leak %#x: the path ends at %#x", uint64(l.ID), uint64(l.Path[len(l.Path)-1].ID))
		}
	}
	for _, w := range wantLeaks {
		bad("leak %#x (%s %s) missing", uint64(w.ID), w.Class, w.Reason)
	}

	samePrefix(bad, "duplicate string", got.DuplicateStrings, want.DuplicateStrings)

	wantBitmaps := map[HexID]Bitmap{}
	for _, b := range want.Bitmaps {
		wantBitmaps[b.ID] = b
	}
	for _, b := range got.Bitmaps {
		w, ok := wantBitmaps[b.ID]
		if !ok || b.Width != w.Width || b.Height != w.Height || b.PixelBytes != w.PixelBytes || b.PixelsInDump != w.PixelsInDump {
			bad("bitmap %+v, want %+v", b, w)
		}
		delete(wantBitmaps, b.ID)
	}
	for _, w := range wantBitmaps {
		bad("bitmap %#x missing", uint64(w.ID))
	}
	sort.Strings(diffs)
	return diffs
}

// samePrefix reports through bad where got, a list the analyser may cut
// short (--top), is not the start of the reference's list want.
func samePrefix[T comparable](bad func(string, ...any), what string, got, want []T) {
	if len(got) > len(want) {
		bad("%d %ss, the reference has %d", len(got), what, len(want))
		return
	}
	for i, g := range got {
		if w := want[i]; g != w {
			bad("%s %d: %+v, want %+v", what, i, g, w)
		}
	}
}
