package mapping

import (
	"slices"
	"strconv"
	"strings"
)

// NoLine is the line of a frame that has none (Unknown Source, Native Method).
const NoLine = -1

// StackFrame is an obfuscated frame as a stack trace shows it.
type StackFrame struct {
	Class  string // dotted
	Method string
	Line   int    // NoLine when the frame gives none
	File   string // kept for frames the mapping does not know
}

// Frame is one retraced frame.
type Frame struct {
	Method
	File string // source file: the mapping's sourceFile, else derived from the class
	Line int    // NoLine when unknown
}

// Retraced is what one obfuscated frame stands for.
type Retraced struct {
	// Candidates are the inline chains the frame may be, each innermost
	// frame first. One candidate unless the mapping cannot tell (Ambiguous).
	Candidates [][]Frame
	Ambiguous  bool
	// Known is false when the mapping does not name the frame's class: the
	// one candidate is the frame as given.
	Known bool
	// Dropped is set for frames R8 retrace removes: an outline's frame
	// (its caller takes its position) and frames of synthesized methods.
	Dropped bool

	entries [][]uint32 // member lines behind Candidates
	class   *class
}

// Frame retraces one frame on its own (no outline or rewriteFrame rules,
// which need the frames around it; see Stack).
func (m *Mapping) Frame(f StackFrame) Retraced {
	r := m.frame(f)
	m.dropSynthesized(&r)
	return r
}

func (m *Mapping) frame(f StackFrame) Retraced {
	c := m.findClass(f.Class)
	if c == nil {
		return Retraced{Candidates: [][]Frame{{{Method: Method{Class: f.Class, Name: f.Method}, File: f.File, Line: f.Line}}}}
	}
	r := Retraced{Known: true, class: c}
	all := m.chains(c, f.Method)
	var picked [][]uint32
	if f.Line >= 0 {
		for _, ch := range all {
			if s, e, ok := m.obfRange(ch[0]); ok && f.Line >= s && f.Line <= e {
				picked = append(picked, ch)
			}
		}
		if len(picked) == 0 {
			for _, ch := range all {
				if m.members[ch[0]].flags&memberHasObf == 0 {
					picked = append(picked, ch)
				}
			}
		}
	}
	fallback := len(picked) == 0
	if fallback {
		// No line, or no range holds it: the methods that carry the name,
		// each as its outer frame alone, without a line.
		for _, ch := range all {
			picked = append(picked, ch[len(ch)-1:])
		}
	}
	for _, ch := range picked {
		frames := make([]Frame, 0, len(ch))
		for k, i := range ch {
			mt, ml, ok := m.methodOf(c, i)
			if !ok {
				continue
			}
			line := mapLine(ml, f.Line, k)
			// ProGuard's a:b without c:d are source lines: the line stands.
			if fallback && (ml.origN > 0 || len(all) > 1) {
				line = NoLine
			}
			frames = append(frames, Frame{Method: mt, File: m.fileOf(mt.Class), Line: line})
		}
		if len(frames) == 0 || containsChain(r.Candidates, frames) {
			continue
		}
		r.Candidates = append(r.Candidates, frames)
		r.entries = append(r.entries, ch)
	}
	if len(r.Candidates) == 0 {
		// The class is known, the method is not: R8 keeps the name.
		orig := string(c.origName(m.data))
		r.Candidates = [][]Frame{{{Method: Method{Class: orig, Name: f.Method}, File: m.fileOf(orig), Line: f.Line}}}
		r.entries = nil
	}
	r.Ambiguous = len(r.Candidates) > 1
	return r
}

// mapLine maps obfuscated line to the source line of chain position k.
func mapLine(ml memberLine, line, k int) int {
	switch {
	case ml.origN == 1:
		return ml.origStart
	case k > 0:
		if ml.origN > 0 {
			return ml.origStart
		}
		return line
	case line < 0:
		return NoLine
	case ml.origN == 0:
		return line // ProGuard: a:b without c:d keeps the lines
	case ml.hasObf && ml.origEnd-ml.origStart == ml.obfEnd-ml.obfStart:
		return ml.origStart + line - ml.obfStart
	case !ml.hasObf && line >= ml.origStart && line <= ml.origEnd:
		return line
	default:
		return ml.origStart
	}
}

func containsChain(list [][]Frame, ch []Frame) bool {
outer:
	for _, x := range list {
		if len(x) != len(ch) {
			continue
		}
		for i := range x {
			if !sameMethod(x[i].Method, ch[i].Method) || x[i].Line != ch[i].Line {
				continue outer
			}
		}
		return true
	}
	return false
}

// fileOf is the source file of a source class: R8's sourceFile metadata of
// the class or of its outermost class (nested classes share its file), else
// the outermost class's simple name with .java.
func (m *Mapping) fileOf(class string) string {
	if f := m.SourceFile(class); f != "" {
		return f
	}
	if i := strings.IndexByte(class, '$'); i > 0 {
		if f := m.SourceFile(class[:i]); f != "" {
			return f
		}
	}
	return DefaultSourceFile(class)
}

// DefaultSourceFile is the file a class would live in by Java's convention:
// a.b.Outer$Inner → Outer.java.
func DefaultSourceFile(class string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		class = class[i+1:]
	}
	if i := strings.IndexByte(class, '$'); i > 0 {
		class = class[:i]
	}
	return class + ".java"
}

// Stack retraces the frames of one stack trace, top first, thrown being the
// exception's class as the trace names it (obfuscated; "" when unknown). It
// applies what needs the neighbouring frames: an outline's frame gives its
// position to the caller's outlineCallsite and is dropped, rewriteFrame
// rules on the top frame whose conditions hold (throws(…)) remove inner
// frames, and frames of synthesized methods are dropped.
func (m *Mapping) Stack(thrown string, frames []StackFrame) []Retraced {
	out := make([]Retraced, len(frames))
	for i, f := range frames {
		out[i] = m.frame(f)
	}
	for i := 0; i+1 < len(frames); i++ {
		if !m.isOutline(out[i]) || frames[i].Line < 0 {
			continue
		}
		for _, ch := range out[i+1].entries {
			cs := m.extraOf(ch[len(ch)-1], extraOutlineCallsite)
			if cs == nil {
				cs = m.extraOf(ch[0], extraOutlineCallsite)
			}
			if cs == nil {
				continue
			}
			pos, ok := outlinePosition(cs, frames[i].Line)
			if !ok {
				continue
			}
			caller := frames[i+1]
			caller.Line = pos
			out[i+1] = m.frame(caller)
			out[i] = Retraced{Known: true, Dropped: true, Candidates: out[i].Candidates}
			break
		}
	}
	if len(frames) > 0 && !out[0].Dropped {
		m.rewrite(&out[0], thrown)
	}
	for i := range out {
		m.dropSynthesized(&out[i])
	}
	return out
}

func (m *Mapping) isOutline(r Retraced) bool {
	if !r.Known || len(r.entries) == 0 {
		return false
	}
	for _, ch := range r.entries {
		if m.members[ch[len(ch)-1]].flags&memberOutline == 0 {
			return false
		}
	}
	return true
}

// outlinePosition reads "positions":{"1":4,…} of an outlineCallsite line
// and returns the callsite position for the outline's line.
func outlinePosition(meta []byte, line int) (int, bool) {
	want := strconv.Itoa(line)
	for _, kv := range strings.Split(string(jsonGroup(meta, "positions", '{', '}')), ",") {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.Trim(strings.TrimSpace(k), `"'`) != want {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// rewrite applies rewriteFrame rules of the top frame's member lines.
func (m *Mapping) rewrite(r *Retraced, thrown string) {
	for ci, ch := range r.entries {
		remove := 0
		for _, i := range ch {
			meta := m.extraOf(i, extraRewrite)
			if meta == nil {
				continue
			}
			conds, acts := jsonStrings(meta, "conditions"), jsonStrings(meta, "actions")
			if !m.conditionsHold(conds, thrown) {
				continue
			}
			for _, a := range acts {
				if n, ok := strings.CutPrefix(a, "removeInnerFrames("); ok {
					if k, err := strconv.Atoi(strings.TrimSuffix(n, ")")); err == nil && k > 0 {
						remove += k
					}
				}
			}
		}
		if remove > 0 {
			c := r.Candidates[ci]
			if remove >= len(c) {
				remove = len(c) - 1
			}
			r.Candidates[ci] = c[remove:]
		}
	}
}

// conditionsHold checks rewriteFrame conditions; only throws(Lx;) is
// defined, and an unknown condition never holds.
func (m *Mapping) conditionsHold(conds []string, thrown string) bool {
	if len(conds) == 0 || thrown == "" {
		return false
	}
	for _, c := range conds {
		d, ok := strings.CutPrefix(c, "throws(")
		if !ok || !strings.HasSuffix(d, ")") {
			return false
		}
		d = strings.TrimSuffix(d, ")")
		if d != Descriptor(thrown) && d != Descriptor(m.Type(thrown)) {
			return false
		}
	}
	return true
}

// jsonStrings reads "key":["a","b"] from a metadata line.
func jsonStrings(meta []byte, key string) []string {
	var out []string
	for _, v := range strings.Split(string(jsonGroup(meta, key, '[', ']')), ",") {
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// dropSynthesized removes frames of synthesized methods from each chain;
// a frame made only of them is dropped.
func (m *Mapping) dropSynthesized(r *Retraced) {
	if !r.Known || len(r.entries) == 0 || r.Dropped {
		return
	}
	for ci, ch := range r.entries {
		if ci >= len(r.Candidates) {
			break
		}
		outer := ch[len(ch)-1]
		name := string(m.members[outer].obfName(m.data))
		if len(r.Candidates[ci]) > 0 && m.synthesizedOuter(r.class, name, outer) {
			c := r.Candidates[ci]
			last := len(c) - 1
			c[last].Synthesized = true
			r.Candidates[ci] = c[:last]
		}
	}
	kept := r.Candidates[:0]
	for _, c := range r.Candidates {
		if len(c) > 0 {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		r.Dropped = true
		return
	}
	r.Candidates = kept
	r.Ambiguous = len(kept) > 1
}

// Flatten retraces a stack (top first) into one list of frames for views
// that show one frame a line: inline chains expand, dropped frames go, and
// an ambiguous frame shows its first candidate with the distinct names of
// all joined by "|".
func (m *Mapping) Flatten(thrown string, frames []StackFrame) []Frame {
	out := make([]Frame, 0, len(frames))
	for _, r := range m.Stack(thrown, frames) {
		out = append(out, r.Flat()...)
	}
	return out
}

// Flat is the frame as one list: nothing when dropped, else its first
// candidate, the distinct names of all candidates joined by "|" when
// ambiguous.
func (r Retraced) Flat() []Frame {
	if r.Dropped || len(r.Candidates) == 0 {
		return nil
	}
	first := r.Candidates[0]
	if r.Ambiguous {
		names := []string{first[len(first)-1].Name}
		for _, c := range r.Candidates[1:] {
			if n := c[len(c)-1].Name; !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		first = slices.Clone(first)
		first[len(first)-1].Name = strings.Join(names, "|")
	}
	return first
}
