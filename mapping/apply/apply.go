// Package apply puts a mapping file's source names into the models that
// carry a release build's obfuscated ones: a trace profile's method table,
// a REAL allocation table, a heap dump's class and field tables, and text (dumps, logs) read through a filter.
// Each rewrites its model once, when it is loaded, so that every view and
// export of it shows the source names; the command line and the dashboard
// call the same functions.
package apply

import (
	"io"
	"strings"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/viewtree"
)

// Profile renames p's methods (class, name, signature types, source file)
// and returns the classes it had before, for mapping.Coverage.
func Profile(m *mapping.Mapping, p *trace.Profile) []string {
	if m == nil || p == nil {
		return nil
	}
	classes := make([]string, 0, len(p.Methods))
	for _, mt := range p.Methods {
		if !strings.HasPrefix(mt.Class, "(") { // (toplevel), (unknown)
			classes = append(classes, mt.Class)
		}
	}
	p.RenameMethods(m.RenameMethod)
	return classes
}

// Heap renames a heap dump's classes (array classes too) and fields
// (instance and static, through the declaring class's chain) once, right
// after it is read, and returns the class names it had before, for
// mapping.Coverage. Sizes, ids and references are untouched.
func Heap(m *mapping.Mapping, h *heapdump.Heap) []string {
	if m == nil || h == nil {
		return nil
	}
	return h.Rename(heapdump.Renamer{
		Class: m.Type,
		Field: func(holders []string, name string) string {
			if f, ok := m.Field(holders, name); ok {
				return f.Name
			}
			return name
		},
	})
}

// Stack retraces a thread's stack (STKL frames, top first) into the frames
// of the source: inlined frames expand, outline and synthesized frames go,
// native frames stay native. The frames are not changed; a new slice comes
// back (stack as it is when m is nil).
func Stack(m *mapping.Mapping, stack []ddm.StackFrame) []ddm.StackFrame {
	if m == nil || len(stack) == 0 {
		return stack
	}
	in := make([]mapping.StackFrame, len(stack))
	for i, f := range stack {
		line := int(f.Line)
		if line < 0 {
			line = mapping.NoLine
		}
		in[i] = mapping.StackFrame{Class: f.Class, Method: f.Method, Line: line, File: f.File}
	}
	out := make([]ddm.StackFrame, 0, len(stack))
	for i, r := range m.Stack("", in) {
		for _, f := range r.Flat() {
			g := ddm.StackFrame{Class: f.Class, Method: f.Name, File: f.File, Line: ddm.LineUnknown}
			switch {
			case stack[i].Line == ddm.LineNative:
				g.Line = ddm.LineNative
			case f.Line >= 0:
				g.Line = int32(f.Line)
			}
			out = append(out, g)
		}
	}
	return out
}

// ViewTree renames the classes of a view hierarchy's nodes (custom views
// of a minified app) and returns the classes it had before.
func ViewTree(m *mapping.Mapping, t *viewtree.Tree) []string {
	if m == nil || t == nil {
		return nil
	}
	classes := make([]string, 0, len(t.Nodes))
	for i := range t.Nodes {
		classes = append(classes, t.Nodes[i].Class)
		t.Nodes[i].Class = m.Type(t.Nodes[i].Class)
	}
	return classes
}

// Reader filters text through m (a dump, a log): the returned reader
// yields the retraced text, and stats, called once the reader is done
// with (at its end or not), tells what the filter saw and ends it. A nil m
// returns r itself.
func Reader(m *mapping.Mapping, r io.Reader) (out io.Reader, stats func() mapping.TextStats) {
	if m == nil {
		return r, func() mapping.TextStats { return mapping.TextStats{} }
	}
	pr, pw := io.Pipe()
	done := make(chan mapping.TextStats, 1)
	go func() {
		st, err := m.RetraceText(pw, r)
		pw.CloseWithError(err)
		done <- st
	}()
	return pr, func() mapping.TextStats {
		pr.Close() // a reader that stopped early ends the filter
		return <-done
	}
}

// Allocations rewrites a REAL table through m in place, before
// the allocation table is built from it: allocated classes, and each
// frame's class, method, file and line (an inlined frame expands into the
// frames it stands for). It returns the app classes seen, for coverage.
func Allocations(m *mapping.Mapping, a *ddm.Allocations) []string {
	if m == nil || a == nil {
		return nil
	}
	done := map[ddm.AllocFrame][]ddm.AllocFrame{}
	seen := map[string]bool{}
	var classes []string
	note := func(c string) {
		if !seen[c] {
			seen[c] = true
			classes = append(classes, c)
		}
	}
	for i := range a.Entries {
		e := &a.Entries[i]
		note(ddm.JavaTypeName(e.Class))
		e.Class = m.Type(e.Class)
		var frames []ddm.AllocFrame
		for _, f := range e.Frames {
			out, ok := done[f]
			if !ok {
				out = retraceAllocFrame(m, f)
				done[f] = out
			}
			note(ddm.JavaTypeName(f.Class))
			frames = append(frames, out...)
		}
		e.Frames = frames
	}
	return classes
}

func retraceAllocFrame(m *mapping.Mapping, f ddm.AllocFrame) []ddm.AllocFrame {
	line := int(f.Line)
	if line < 0 {
		line = mapping.NoLine
	}
	var out []ddm.AllocFrame
	for _, r := range m.Flatten("", []mapping.StackFrame{{Class: ddm.JavaTypeName(f.Class), Method: f.Method, Line: line, File: f.File}}) {
		g := ddm.AllocFrame{Class: mapping.Descriptor(r.Class), Method: r.Name, File: r.File, Line: ddm.LineUnknown}
		switch {
		case f.Line == ddm.LineNative:
			g.Line = ddm.LineNative
		case r.Line >= 0:
			g.Line = int16(min(r.Line, 32767))
		}
		out = append(out, g)
	}
	return out
}
