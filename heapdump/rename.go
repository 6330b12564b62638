package heapdump

// Renamer gives the source names of a minified build's classes and fields
// (package mapping/apply makes one of a mapping file). Names it does not
// know come back unchanged.
type Renamer struct {
	// Class renames a class name in source form: a.b.C, a.b.C[] (D3).
	Class func(name string) string
	// Field renames a field named name, declared by the first of holders
	// (the declaring class, then its superclasses as far as the dump
	// knows them; obfuscated names).
	Field func(holders []string, name string) string
}

// Rename puts the source names into the heap's class and field tables,
// once: every query and output after it (histogram, fields, paths,
// referrers, leaks, the dominator tree, JSON and text) shows them, and
// nothing else changes (sizes, ids, edges, the analysis). The names the
// analysis itself looks for are the platform's, which a minifier keeps.
// It returns the class names as they were, for a coverage summary. Call it
// right after Open, Analyze or Builder.Finish, before the heap is shared
// between goroutines.
func (h *Heap) Rename(r Renamer) (before []string) {
	before = append([]string(nil), h.names...)
	if r.Field != nil {
		h.vals.renameFields(func(decl int32, name string) string {
			return r.Field(h.holders(decl), name)
		}, func(decl, name string) string {
			return r.Field([]string{decl}, name)
		})
	}
	if r.Class == nil {
		return before
	}
	renamed := make([]string, len(h.names))
	for i, n := range h.names {
		renamed[i] = r.Class(n)
	}
	if h.vals != nil {
		h.vals.renameClasses(func(name string) string {
			if i, ok := h.nameIdx[name]; ok {
				return renamed[i]
			}
			return r.Class(name)
		})
	}
	h.nameIdx = make(map[string]int32, len(renamed))
	for i, n := range renamed {
		if _, dup := h.nameIdx[n]; !dup {
			h.nameIdx[n] = int32(i)
		}
	}
	for i := range h.types {
		h.types[i].name = renamed[h.types[i].nameIdx]
	}
	h.names = renamed
	return before
}

// holders is type t's name and its superclasses' (before Rename renames
// them), for a field's lookup.
func (h *Heap) holders(t int32) []string {
	var out []string
	for steps := 0; t >= 0 && steps <= len(h.types); t, steps = h.types[t].super, steps+1 {
		out = append(out, h.types[t].name)
	}
	return out
}
