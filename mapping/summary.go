package mapping

import (
	"fmt"
	"strings"
)

// Coverage says how many of the class names a data set shows the mapping
// knows; a low share means a mapping for another build.
type Coverage struct {
	Seen, Known int
	Skipped     int // malformed lines the mapping left out
}

// platformPrefixes name classes that a minifier never renames (the
// platform's own), so they do not count against a mapping.
var platformPrefixes = []string{
	"java.", "javax.", "android.", "androidx.annotation.", "dalvik.", "libcore.", "sun.", "jdk.",
	"com.android.internal.", "com.android.org.", "org.apache.harmony.", "org.json.", "org.w3c.", "org.xml.",
}

// Platform reports whether class (dotted, perhaps an array) is the
// platform's, which a mapping does not list.
func Platform(class string) bool {
	class = strings.TrimRight(strings.TrimLeft(class, "["), "[]")
	if _, ok := primitives[class]; ok || class == "" {
		return true
	}
	for _, p := range platformPrefixes {
		if strings.HasPrefix(class, p) {
			return true
		}
	}
	return false
}

// Coverage counts the distinct app classes among names (any form Class
// takes; platform classes are left out) and how many the mapping knows.
func (m *Mapping) Coverage(names []string) Coverage {
	seen := make(map[string]struct{}, len(names))
	c := Coverage{Skipped: m.Skipped}
	for _, n := range names {
		n = elementClass(n)
		if Platform(n) {
			continue
		}
		if _, dup := seen[n]; dup {
			continue
		}
		seen[n] = struct{}{}
		c.Seen++
		if m.Known(n) {
			c.Known++
		}
	}
	return c
}

// Suspicious reports a mapping that names under a quarter of the classes.
func (c Coverage) Suspicious() bool { return c.Seen > 0 && c.Known*4 < c.Seen }

// String is the one-line summary: "mapping: 3 of 412 classes known — wrong build?".
func (c Coverage) String() string {
	s := fmt.Sprintf("mapping: %d of %d classes known", c.Known, c.Seen)
	if c.Suspicious() {
		s += " — wrong build?"
	}
	if c.Skipped > 0 {
		s += fmt.Sprintf("; %d malformed lines skipped", c.Skipped)
	}
	return s
}

// Summary describes the mapping itself: compiler, size and skipped lines.
func (m *Mapping) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mapping: %d classes, %d members", len(m.classes), len(m.members))
	if m.Header.Compiler != "" {
		fmt.Fprintf(&b, ", compiler %s", m.Header.Compiler)
		if m.Header.CompilerVersion != "" {
			fmt.Fprintf(&b, " %s", m.Header.CompilerVersion)
		}
	}
	if m.Header.MapID != "" {
		fmt.Fprintf(&b, ", pg_map_id %s", m.Header.MapID)
	}
	if m.Skipped > 0 {
		fmt.Fprintf(&b, "; %d malformed lines skipped (first: line %d: %v)", m.Skipped, m.FirstSkip.Line, m.FirstSkip.Err)
	}
	return b.String()
}

// elementClass is the dotted class of any form Class takes, arrays reduced
// to their element: [La/b; and a.b[] are a.b.
func elementClass(n string) string {
	if t := strings.TrimLeft(n, "["); len(t) == 1 && len(t) < len(n) {
		return "int" // a primitive array ([I): the platform's
	}
	n = strings.TrimLeft(n, "[")
	if len(n) > 2 && n[0] == 'L' && n[len(n)-1] == ';' {
		n = n[1 : len(n)-1]
	}
	return strings.ReplaceAll(strings.TrimRight(n, "[]"), "/", ".")
}
